import type { RubricateError } from "../errors.js";
import type { Criterion, Scoring } from "../rubric/schema.js";
import { withholdsReward, type CriterionResult, type ErrorPolicy, type ScoreResult, type Verdict } from "../types.js";
import { buildFeedback } from "./feedback.js";

export type { ErrorPolicy } from "../types.js";

/** A criterion's outcome before aggregation: a verdict, an error, or skipped because its `when` failed. */
export type Outcome = { verdict: Verdict } | { error: RubricateError } | { skipped: string };

/** A criterion is "good" when a positive one is met or a pitfall (negative points) is not. */
export const isGood = (r: Pick<CriterionResult, "status" | "points">): boolean => (r.points < 0 ? r.status === "unmet" : r.status === "met");

/**
 * Turns per-criterion outcomes into a reward. `points` is HealthBench's: clip(Σ points met ÷ Σ
 * positive points, 0, 1), skipped criteria counted in neither sum. Required criteria gate to 0.
 * @example aggregate(rubric.criteria, outcomes, rubric.scoring).reward // 0.75
 */
export function aggregate(criteria: Criterion[], outcomes: Map<string, Outcome>, scoring: Scoring, options: { errors?: ErrorPolicy; questions?: Map<string, string> } = {}): ScoreResult {
  const policy = options.errors ?? "null";
  const results = criteria.map((c) => toResult(c, outcomes.get(c.id), options.questions?.get(c.id)));
  const errors = results.filter((r) => r.status === "error").map((r) => ({ criterion: r.id, code: r.error!.code, message: r.error!.message }));
  const counted = results.filter((r) => r.status === "met" || r.status === "unmet");
  const gated = results.some((r) => r.required && (r.status === "met" || r.status === "unmet") && !isGood(r));

  let reward: number | null;
  if (errors.some((e) => withholdsReward(policy, e.code))) reward = null;
  else if (errors.length > 0 && policy === "zero") reward = 0;
  // skip-criterion leaves the errors out; when that leaves nothing to measure, there is no reward, not a 0.
  else if (errors.length > 0 && !gated && nothingMeasured(scoring.method, counted)) reward = null;
  else if (gated) reward = 0;
  else reward = combine(scoring.method, counted, criteria);

  const passed = reward === null || scoring.pass_threshold === undefined ? (reward === null ? null : undefined) : reward >= scoring.pass_threshold;
  const result: ScoreResult = { reward, verdicts: results, errors, feedback: "", gated: gated || undefined };
  if (passed !== undefined) result.passed = passed;
  result.feedback = buildFeedback(result, policy);
  return result;
}

/** True when no answered criterion can move the reward (none counted, or for `points` none with positive points). */
function nothingMeasured(method: Scoring["method"], counted: CriterionResult[]): boolean {
  return method === "points" ? !counted.some((r) => r.points > 0) : counted.length === 0;
}

function combine(method: Scoring["method"], counted: CriterionResult[], criteria: Criterion[]): number {
  if (method === "points") {
    const possible = counted.filter((r) => r.points > 0).reduce((sum, r) => sum + r.points, 0);
    if (possible === 0) return 0;
    const achieved = counted.reduce((sum, r) => sum + r.earned, 0);
    return clip(achieved / possible);
  }
  if (counted.length === 0) return 0;
  if (method === "all") return counted.every(isGood) ? 1 : 0;
  if (method === "mean") return counted.reduce((sum, r) => sum + credit(r), 0) / counted.length;
  const weights = new Map(criteria.map((c) => [c.id, c.weight ?? 1]));
  const weight = (id: string) => weights.get(id) ?? 1;
  const total = counted.reduce((sum, r) => sum + weight(r.id), 0);
  return counted.reduce((sum, r) => sum + weight(r.id) * credit(r), 0) / total;
}

// Object literals of one shape (no spreads): this runs for every criterion of every sample.
function toResult(criterion: Criterion, outcome: Outcome | undefined, question: string | undefined): CriterionResult {
  const { id, points, required } = criterion;
  const asked = question ?? criterion.question;
  const source = criterion.check ? "check" : "llm";
  if (!outcome) return { id, points, required, source, question: asked, status: "error", earned: 0, error: { code: "INTERNAL", message: "criterion was never evaluated" } };
  if ("skipped" in outcome) return { id, points, required, source, question: asked, status: "skipped", earned: 0, reasoning: outcome.skipped };
  if ("error" in outcome) return { id, points, required, source, question: asked, status: "error", earned: 0, error: { code: outcome.error.code, message: outcome.error.message } };
  const { verdict } = outcome;
  const status = verdict.pass ? "met" : "unmet";
  // Partial credit (a share of tests passed) earns that share of a positive criterion's points.
  const share = verdict.score !== undefined && criterion.points > 0 ? clip(verdict.score) : undefined;
  const result: CriterionResult = { id, points, required, source: verdict.source, question: asked, status, earned: share !== undefined ? share * criterion.points : verdict.pass ? criterion.points : 0 };
  if (share !== undefined) result.score = share;
  if (verdict.probability !== undefined) result.probability = verdict.probability;
  if (verdict.reasoning !== undefined) result.reasoning = verdict.reasoning;
  if (verdict.quote !== undefined) result.quote = verdict.quote;
  return result;
}

/** How good a counted criterion is, in [0, 1]: a check's partial `score` for a positive criterion, else 1 or 0. */
const credit = (r: CriterionResult): number => (r.points >= 0 && r.score !== undefined ? r.score : isGood(r) ? 1 : 0);

const clip = (x: number) => Math.min(1, Math.max(0, x));
