/**
 * The filters as pure functions: a row's first failing reason, the best-of-n order, and a group
 * accumulator that keeps only what the group stage can still need (the best n, the worst).
 */
import type { DistillRow, FilterOptions } from "./types.js";

/** Why a row is dropped before grouping, or null when it passes every row filter. */
export function rowDropReason(row: DistillRow, f: FilterOptions): string | null {
  if (row.rewardProblem) return "reward-invalid";
  if (row.reward === null) return "reward-null";
  if (f.minReward !== undefined && row.reward < f.minReward) return "min-reward";
  for (const id of f.require ?? []) if (!meetsRequirement(row, id)) return `require:${id}`;
  return lengthDropReason(row, f);
}

/** Why a row breaks a length limit, or null. */
export function lengthDropReason(row: DistillRow, f: FilterOptions): string | null {
  if (f.minChars !== undefined && row.response.length < f.minChars) return "too-short";
  if (f.maxChars !== undefined && row.response.length > f.maxChars) return "too-long";
  if (f.maxTokens !== undefined && row.tokens > f.maxTokens) return "too-long";
  return null;
}

/**
 * A required criterion: a positive one must be met; a pitfall (negative points) must not be met
 * (unmet, or skipped because its condition failed). An error or an absent verdict never satisfies it.
 */
export function meetsRequirement(row: DistillRow, id: string): boolean {
  const v = row.verdicts.find((x) => x.id === id);
  if (!v || v.status === "error") return false;
  return v.points < 0 ? v.status !== "met" : v.status === "met";
}

/** Best first: higher reward, then fewer completion tokens, then earlier in the input. */
export function bestFirst(a: DistillRow, b: DistillRow): number {
  return (b.reward ?? -Infinity) - (a.reward ?? -Infinity) || a.tokens - b.tokens || a.index - b.index;
}

/** Worst first, for the rejected side of a pair: lower reward, then earlier in the input. */
export function worstFirst(a: DistillRow, b: DistillRow): number {
  return (a.reward ?? Infinity) - (b.reward ?? Infinity) || a.index - b.index;
}

/**
 * What the group stage holds for one group: counts, the reward spread over scored rows, the
 * candidates passing row filters (only the best `cap` when capped), and the worst usable row.
 */
export class GroupAccumulator {
  rows = 0;
  best = -Infinity;
  worst = Infinity;
  /** Sorted best first. */
  readonly candidates: DistillRow[] = [];
  /** Candidates pushed out of the best `cap`. */
  overflow = 0;
  /** The worst row with a reward within the length limits (the rejected side of a pair). */
  rejected?: DistillRow;
  constructor(readonly key: string, private readonly cap = Infinity) {}

  /** Adds a row with its row-filter verdict (null = passes). */
  add(row: DistillRow, dropReason: string | null, f: FilterOptions): void {
    this.rows++;
    if (row.reward !== null) {
      if (row.reward > this.best) this.best = row.reward;
      if (row.reward < this.worst) this.worst = row.reward;
      if (lengthDropReason(row, f) === null && (!this.rejected || worstFirst(row, this.rejected) < 0)) this.rejected = row;
    }
    if (dropReason !== null) return;
    const c = this.candidates;
    let i = c.length;
    while (i > 0 && bestFirst(row, c[i - 1]) < 0) i--;
    if (i >= this.cap) {
      this.overflow++;
      return;
    }
    c.splice(i, 0, row);
    if (c.length > this.cap) {
      c.pop();
      this.overflow++;
    }
  }

  /** Best minus worst reward over the group's scored rows (0 with fewer than two). */
  get spread(): number {
    return this.best === -Infinity ? 0 : this.best - this.worst;
  }
}
