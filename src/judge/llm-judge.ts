import { RubricateError, toRubricateError } from "../errors.js";
import { addUsage, emptyUsage, type Usage, type VerdictOrError } from "../types.js";
import { JudgeConfigSchema, type JudgeConfig, type JudgeConfigInput, type Price } from "./config.js";
import { parseBatched, parseSingle, type ParsedAnswer } from "./parse.js";
import { buildJudgeRequest, sampleNonce, sharedPrefix, type PromptSettings } from "./prompt.js";
import type { CompletionRequest, CompletionResponse, Provider } from "../providers/types.js";
import type { Judge, JudgeAnswer, JudgeQuestion, JudgeRequest } from "./types.js";
import { tallyVotes, votesStillNeeded, type VoteTally } from "./votes.js";

/** What a judge needs from the engine: one cached, scheduled, retried call. */
export interface CallEngine {
  complete(
    provider: Provider,
    request: CompletionRequest,
    options: { voteIndex?: number; keyExtra?: unknown; signal?: AbortSignal; scheduler?: string; price?: Price },
  ): Promise<{ response: CompletionResponse; cached: boolean; usage: Usage }>;
}

/** Parse attempts per question before its answer becomes a `JUDGE_PARSE` error. */
export const PARSE_ATTEMPTS = 3;

/**
 * A judge over an LLM: batched or single questions, majority votes with early stop, parse
 * retries. All calls go through the engine (cache, scheduler, retries).
 * @example const judge = createLLMJudge({ provider: "openai", model: "gpt-4.1-mini" }, { engine, provider })
 */
export function createLLMJudge(configInput: JudgeConfigInput | JudgeConfig, deps: { engine: CallEngine; provider: Provider; id?: string }): Judge {
  const config = JudgeConfigSchema.parse(configInput);
  const id = deps.id ?? config.id ?? `${config.provider}:${config.model}`;
  const total = emptyUsage();
  const settings: PromptSettings = {
    model: config.model,
    system: config.system,
    temperature: config.temperature,
    maxTokens: config.max_tokens,
    logprobs: config.logprobs,
    structuredOutput: config.structured_output,
  };

  async function answer(request: JudgeRequest, options: { signal?: AbortSignal } = {}): Promise<JudgeAnswer> {
    const usage = emptyUsage();
    // Every call of this answer shares the sample block: hash and render it once, not once per question and vote.
    let shared: { nonce: string; prefix: string } | undefined;
    const call = async (questions: JudgeQuestion[], batched: boolean, voteIndex: number, attempt: number) => {
      if (!shared) {
        const nonce = sampleNonce(request.rubric.id, request.sample);
        shared = { nonce, prefix: sharedPrefix(request.rubric, request.sample, nonce) };
      }
      const built = buildJudgeRequest(request.rubric, request.sample, questions, batched, settings, shared);
      const keyExtra = { attempt, versions: questions.map((q) => q.version ?? null) };
      const result = await deps.engine.complete(deps.provider, built, { voteIndex, keyExtra, signal: options.signal, scheduler: id, price: config.price });
      addUsage(usage, result.usage);
      return result.response;
    };
    const askOne = async (question: JudgeQuestion, voteIndex: number, firstAttempt: number): Promise<ParsedAnswer | RubricateError> => {
      let last: RubricateError | undefined;
      for (let attempt = firstAttempt; attempt < PARSE_ATTEMPTS; attempt++) {
        try {
          return parseSingle(await call([question], false, voteIndex, attempt));
        } catch (e) {
          last = toRubricateError(e);
          if (last.code === "ABORTED" || !["JUDGE_PARSE", "JUDGE_REFUSAL"].includes(last.code)) return last;
        }
      }
      return new RubricateError(last!.code, `${last!.message} (after ${PARSE_ATTEMPTS} attempts)`);
    };
    const castVote = async (questions: JudgeQuestion[], voteIndex: number): Promise<Map<string, ParsedAnswer | RubricateError>> => {
      const out = new Map<string, ParsedAnswer | RubricateError>();
      if (config.mode === "single" || questions.length === 1) {
        await Promise.all(questions.map(async (q) => out.set(q.id, await askOne(q, voteIndex, 0))));
        return out;
      }
      let retry = questions;
      try {
        const parsed = parseBatched(await call(questions, true, voteIndex, 0), questions.map((q) => q.id));
        for (const [qid, a] of parsed.answers) out.set(qid, a);
        retry = questions.filter((q) => parsed.problems.has(q.id));
      } catch (e) {
        const error = toRubricateError(e);
        if (error.code === "ABORTED" || !["JUDGE_PARSE", "JUDGE_REFUSAL"].includes(error.code)) {
          for (const q of questions) out.set(q.id, error);
          return out;
        }
      }
      // The batch left these unanswered or malformed: ask each alone before calling it an error.
      await Promise.all(retry.map(async (q) => out.set(q.id, await askOne(q, voteIndex, 1))));
      return out;
    };

    const tallies = new Map<string, VoteTally>(request.questions.map((q) => [q.id, { yes: 0, no: 0, answers: [], errors: [] }]));
    let nextVote = 0;
    const maxVotes = config.samples;
    let wave = votesStillNeeded({ yes: 0, no: 0, answers: [], errors: [] }, maxVotes);
    while (wave > 0) {
      const open = request.questions.filter((q) => votesStillNeeded(tallies.get(q.id)!, maxVotes, nextVote) > 0);
      if (open.length === 0) break;
      const indices = Array.from({ length: Math.min(wave, maxVotes + 1 - nextVote) }, (_, i) => nextVote + i);
      nextVote += indices.length;
      const votes = await Promise.all(indices.map((v) => castVote(open, v)));
      for (const vote of votes) for (const [qid, a] of vote) record(tallies.get(qid)!, a);
      wave = Math.max(...open.map((q) => votesStillNeeded(tallies.get(q.id)!, maxVotes, nextVote)), 0);
    }
    options.signal?.throwIfAborted();
    const verdicts = new Map<string, VerdictOrError>();
    for (const q of request.questions) verdicts.set(q.id, tallyVotes(tallies.get(q.id)!, maxVotes));
    addUsage(total, usage);
    return { verdicts, usage };
  }

  return { id, answer, usage: () => ({ ...total }) };
}

function record(tally: VoteTally, answer: ParsedAnswer | RubricateError): void {
  if (answer instanceof RubricateError) {
    if (answer.code === "ABORTED") throw answer;
    tally.errors.push(answer);
    return;
  }
  tally.answers.push(answer);
  if (answer.verdict) tally.yes++;
  else tally.no++;
}
