import { RubricateError } from "../errors.js";
import type { Verdict, VerdictOrError } from "../types.js";
import type { ParsedAnswer } from "./parse.js";

/** The votes cast so far on one question. */
export interface VoteTally {
  yes: number;
  no: number;
  answers: ParsedAnswer[];
  errors: RubricateError[];
}

/**
 * How many more votes could still change the outcome: zero once one side has a majority of
 * `samples`, and one extra vote (index `samples`) to break a tie left by errors or an even n.
 * @example votesStillNeeded({ yes: 2, no: 0, answers: [], errors: [] }, 3) // 0
 */
export function votesStillNeeded(tally: VoteTally, samples: number, cast = tally.yes + tally.no + tally.errors.length): number {
  const majority = Math.floor(samples / 2) + 1;
  if (tally.yes >= majority || tally.no >= majority) return 0;
  if (cast < samples) {
    // Ask only as many as could still make a majority: at first that is the majority itself.
    const lead = Math.max(tally.yes, tally.no);
    return Math.min(samples - cast, majority - lead);
  }
  if (cast === samples && tally.yes === tally.no && tally.yes + tally.no > 0) return 1;
  return 0;
}

/** The majority verdict, with P(yes) from logprobs when every vote had one, else the vote share. */
export function tallyVotes(tally: VoteTally, samples: number): VerdictOrError {
  const valid = tally.yes + tally.no;
  if (valid === 0) return tally.errors.at(-1) ?? new RubricateError("JUDGE_PARSE", "the judge gave no usable answer");
  if (tally.yes === tally.no) {
    return new RubricateError("JUDGE_PARSE", `votes tied ${tally.yes}–${tally.no}${tally.errors.length ? ` with ${tally.errors.length} unusable answer(s)` : ""}; no majority`);
  }
  const pass = tally.yes > tally.no;
  const agreeing = tally.answers.find((a) => a.verdict === pass);
  const probabilities = tally.answers.map((a) => a.probability).filter((p): p is number => p !== undefined);
  const verdict: Verdict = {
    pass,
    probability: probabilities.length === tally.answers.length ? mean(probabilities) : tally.yes / valid,
    reasoning: agreeing?.reason,
    source: "llm",
  };
  if (agreeing?.quote !== undefined) verdict.quote = agreeing.quote;
  if (samples > 1) verdict.votes = { yes: tally.yes, no: tally.no };
  return verdict;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
