/**
 * A panel of judges (ideally from different model families, so no family grades its own kind
 * alone): every member answers every question. Its P(yes) is always the mean of the members'
 * (a member without one counts 1 for yes, 0 for no); its verdict is, by `decide`, the members'
 * majority (default) or that mean ≥ 0.5. A criterion's `threshold` is then applied to the mean,
 * as to any judge's P(yes). A member's error is not a "no": it is left out, and a question no
 * member answered, or an even split (majority) or a mean of exactly 0.5 (mean), is an error.
 */
import { RubricateError } from "../errors.js";
import { addUsage, emptyUsage, type Verdict, type VerdictOrError } from "../types.js";
import type { Judge, JudgeAnswer, JudgeRequest } from "./types.js";

/** How a panel turns its members' answers into a verdict: their majority, or their mean P(yes) ≥ 0.5. */
export type PanelDecision = "majority" | "mean";

/**
 * Builds a panel judge over `members` (at least two; an odd number avoids ties).
 * @example const judge = createPanel([createJudge("openai-small"), createJudge("anthropic-small"), createJudge("local")])
 */
export function createPanel(members: readonly Judge[], options: { id?: string; decide?: PanelDecision } = {}): Judge {
  const decide = options.decide ?? "majority";
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
      const probabilities = ok.map((g) => g.v.probability ?? (g.v.pass ? 1 : 0));
      const mean = probabilities.reduce((a, b) => a + b, 0) / probabilities.length;
      const missing = ok.length < members.length ? ` (${members.length - ok.length} member(s) gave no answer)` : "";
      if (decide === "majority" ? yes === no : mean === 0.5) {
        const why = decide === "majority" ? `the panel split ${yes}–${no} on "${q.id}"${missing}; no majority` : `the panel's mean P(yes) on "${q.id}" is exactly 0.5${missing}; no verdict`;
        verdicts.set(q.id, new RubricateError("JUDGE_PARSE", why));
        continue;
      }
      const pass = decide === "majority" ? yes > no : mean > 0.5;
      const verdict: Verdict = {
        pass,
        probability: mean,
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
