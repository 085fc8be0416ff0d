/**
 * A pushed result is a claim: the schema checks its shape, this checks that its numbers agree
 * with each other, so a leaderboard row cannot claim a mean reward its own per-task rewards do not
 * give, more passes than rollouts, or an interval that misses its mean. (Anyone with a registry
 * token can still push numbers they made up, consistent ones included: the page names who pushed
 * each row, and marks the rows this hub evaluated itself.)
 */
import type { HubResult } from "../hub/results.js";

/** Slack for sums of floats written as JSON. */
const EPS = 1e-6;

/** The problems with a result's numbers (empty when they agree). */
export function inconsistencies(result: HubResult): string[] {
  const s = result.stats;
  const problems: string[] = [];
  if (s.scored + s.errors !== s.rollouts) problems.push(`stats.scored (${s.scored}) + stats.errors (${s.errors}) must equal stats.rollouts (${s.rollouts})`);
  if (s.tasks > s.rollouts) problems.push(`stats.tasks (${s.tasks}) cannot exceed stats.rollouts (${s.rollouts})`);
  for (const c of s.criteria) {
    if (c.ok > c.answered) problems.push(`criterion ${c.id}: ok (${c.ok}) exceeds answered (${c.answered})`);
    if (c.rate !== null && c.answered > 0 && Math.abs(c.rate - c.ok / c.answered) > EPS) problems.push(`criterion ${c.id}: rate ${c.rate} is not ok/answered (${c.ok}/${c.answered})`);
    if (c.answered > s.rollouts) problems.push(`criterion ${c.id}: answered (${c.answered}) exceeds stats.rollouts (${s.rollouts})`);
  }
  const r = s.reward;
  if (r) {
    if (!(r.low <= r.mean + EPS && r.mean <= r.high + EPS)) problems.push(`stats.reward: the interval [${r.low}, ${r.high}] does not contain the mean ${r.mean}`);
    if (r.n > s.tasks) problems.push(`stats.reward.n (${r.n}) exceeds stats.tasks (${s.tasks})`);
  } else if (s.scored > 0) problems.push("stats.reward is missing though rollouts were scored");
  if (s.perTask) {
    const values = Object.values(s.perTask);
    if (values.length > s.tasks) problems.push(`stats.perTask has ${values.length} tasks, more than stats.tasks (${s.tasks})`);
    if (r) {
      if (values.length !== r.n) problems.push(`stats.perTask has ${values.length} tasks but stats.reward.n is ${r.n}`);
      else if (values.length > 0) {
        const mean = values.reduce((a, b) => a + b, 0) / values.length;
        if (Math.abs(mean - r.mean) > EPS) problems.push(`stats.reward.mean (${r.mean}) is not the mean of stats.perTask (${mean})`);
      }
    }
  }
  return problems;
}
