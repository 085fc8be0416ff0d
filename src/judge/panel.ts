/**
 * A panel of judges (ideally from different model families, so no family grades its own kind
 * alone): every member answers every question; the panel's verdict is the members' majority,
 * its P(yes) the mean of theirs. A member's error is not a "no": it is left out, and a question
 * no member answered, or one the members split on evenly, is an error.
 */
import { RubricateError } from "../errors.js";
import { addUsage, emptyUsage, type Verdict, type VerdictOrError } from "../types.js";
import type { Judge, JudgeAnswer, JudgeRequest } from "./types.js";

/**
 * Builds a panel judge over `members` (at least two; an odd number avoids ties).
 * @example const judge = createPanel([createJudge("openai-small"), createJudge("anthropic-small"), createJudge("local")])
 */
export function createPanel(members: readonly Judge[], options: { id?: string } = {}): Judge {
  if (members.length < 2) throw new RubricateError("BAD_INPUT", `a panel needs at least two judges, got ${members.length}`);
  const id = options.id ?? `panel(${members.map((m) => m.id).join(", ")})`;
  const total = emptyUsage();

  async function answer(request: JudgeRequest, opts: { signal?: AbortSignal } = {}): Promise<JudgeAnswer> {
    const answers = await Promise.all(members.map((m) => m.answer(request, opts)));
    const usage = emptyUsage();
    for (const a of answers) addUsage(usage, a.usage);
    addUsage(total, usage);
    const verdicts = new Map<string, VerdictOrError>();
    for (const q of request.questions) {
      const given = answers.map((a, i) => ({ member: members[i].id, v: a.verdicts.get(q.id) }));
      const ok = given.filter((g): g is { member: string; v: Verdict } => g.v !== undefined && !(g.v instanceof Error));
      if (ok.length === 0) {
        const last = given.map((g) => g.v).filter((v): v is RubricateError => v instanceof Error).at(-1);
        verdicts.set(q.id, last ?? new RubricateError("JUDGE_PARSE", `no panel member answered "${q.id}"`));
        continue;
      }
      const yes = ok.filter((g) => g.v.pass).length;
      const no = ok.length - yes;
      if (yes === no) {
        verdicts.set(q.id, new RubricateError("JUDGE_PARSE", `the panel split ${yes}–${no} on "${q.id}"${ok.length < members.length ? ` (${members.length - ok.length} member(s) gave no answer)` : ""}; no majority`));
        continue;
      }
      const pass = yes > no;
      const probabilities = ok.map((g) => g.v.probability ?? (g.v.pass ? 1 : 0));
      const verdict: Verdict = {
        pass,
        probability: probabilities.reduce((a, b) => a + b, 0) / probabilities.length,
        reasoning: ok.map((g) => `${g.member}: ${g.v.pass ? "yes" : "no"}${g.v.reasoning ? ` — ${g.v.reasoning}` : ""}`).join("\n"),
        source: "llm",
        votes: { yes, no },
      };
      const quoted = ok.find((g) => g.v.pass === pass && g.v.quote !== undefined);
      if (quoted) verdict.quote = quoted.v.quote;
      verdicts.set(q.id, verdict);
    }
    return { verdicts, usage };
  }

  return {
    id,
    answer,
    usage: () => ({ ...total }),
    close: async () => {
      await Promise.all(members.map((m) => m.close?.()));
    },
  };
}
