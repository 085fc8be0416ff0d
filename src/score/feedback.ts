import { withholdsReward, type CriterionResult, type ErrorPolicy, type ScoreResult } from "../types.js";

/**
 * A plain-text account of what failed and why, one line per criterion that cost reward, for
 * people reading results and for optimisers (GEPA) reflecting on them.
 */
export function buildFeedback(result: Pick<ScoreResult, "reward" | "verdicts" | "errors" | "gated">, policy: ErrorPolicy): string {
  const lines: string[] = [];
  const reward = result.reward === null ? "no reward (errors)" : `reward ${result.reward.toFixed(3)}`;
  const failing = result.verdicts.filter((r) => r.status === "met" || r.status === "unmet").filter((r) => (r.points < 0 ? r.status === "met" : r.status === "unmet"));
  if (failing.length === 0 && result.errors.length === 0) return `${reward}: every criterion met.`;
  lines.push(`${reward}${result.gated ? " (a required criterion failed)" : ""}`);
  for (const r of failing) {
    const what = r.question ?? "code check";
    lines.push(`- ${label(r)} ${r.id} (${pointsText(r)}): ${what}${r.reasoning ? ` — ${r.reasoning}` : ""}`);
  }
  for (const e of result.errors) {
    const what = policy === "zero" ? "reward set to 0" : !withholdsReward(policy, e.code) ? "not counted" : policy === "skip-criterion" ? "reward withheld: the response may have caused it" : "reward withheld";
    lines.push(`- ERROR ${e.criterion} [${e.code}] (${what}): ${e.message}`);
  }
  return lines.join("\n");
}

function label(r: CriterionResult): string {
  if (r.points < 0) return "PITFALL";
  return r.required ? "FAILED (required)" : "FAILED";
}

function pointsText(r: CriterionResult): string {
  return `${r.points > 0 ? "+" : ""}${r.points} pts`;
}
