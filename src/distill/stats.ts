/**
 * Bounded accumulators for the report: fixed-bin reward histograms and per-criterion counts,
 * before and after filtering. Their size depends on the number of criteria, never on the rows.
 */
import type { RowVerdict } from "./types.js";

/** Bins of the reward histograms over [0, 1]. */
export const REWARD_BINS = 20;

/** A reward distribution: count, sum, min, max and fixed bins over [0, 1]. */
export interface RewardDistribution {
  n: number;
  sum: number;
  min: number | null;
  max: number | null;
  /** REWARD_BINS counts; a reward outside [0, 1] lands in the edge bin. */
  bins: number[];
}

/** Per-criterion counts: met, unmet, skipped, error. */
export interface CriterionCounts {
  met: number;
  unmet: number;
  skipped: number;
  error: number;
  /** Negative points: a pitfall. */
  pitfall: boolean;
}

/** One side (before or after) of the report's statistics. */
export interface SideStats {
  rows: number;
  reward: RewardDistribution;
  criteria: Record<string, CriterionCounts>;
}

/** An empty side, before any row. */
export const emptySide = (): SideStats => ({ rows: 0, reward: { n: 0, sum: 0, min: null, max: null, bins: new Array(REWARD_BINS).fill(0) }, criteria: {} });

/** Adds one row's reward and verdicts to a side. */
export function addToSide(side: SideStats, reward: number | null, verdicts: RowVerdict[]): void {
  side.rows++;
  if (reward !== null) {
    const r = side.reward;
    r.n++;
    r.sum += reward;
    r.min = r.min === null ? reward : Math.min(r.min, reward);
    r.max = r.max === null ? reward : Math.max(r.max, reward);
    r.bins[Math.min(REWARD_BINS - 1, Math.max(0, Math.floor(reward * REWARD_BINS)))]++;
  }
  for (const v of verdicts) {
    let c = side.criteria[v.id];
    if (!c) c = side.criteria[v.id] = { met: 0, unmet: 0, skipped: 0, error: 0, pitfall: v.points < 0 };
    c[v.status]++;
  }
}

/** Share of answered rows where the criterion was met (null when never answered). */
export const passRate = (c: CriterionCounts | undefined): number | null => (c && c.met + c.unmet > 0 ? c.met / (c.met + c.unmet) : null);

/** The mean reward of a side, or null. */
export const meanReward = (s: SideStats): number | null => (s.reward.n > 0 ? s.reward.sum / s.reward.n : null);

/** One stage of the funnel: what came in, what went on, and why the rest was dropped. */
export interface StageCounts {
  stage: string;
  /** What the stage counts: rows, groups or pairs. */
  unit: "rows" | "groups" | "pairs";
  in: number;
  out: number;
  dropped: Record<string, number>;
}

/** The funnel, stage by stage, in pipeline order. */
export class Funnel {
  private readonly stages = new Map<string, StageCounts>();

  /** Declares a stage (its position in the report is the order of declaration). */
  stage(name: string, unit: StageCounts["unit"]): StageCounts {
    let s = this.stages.get(name);
    if (!s) this.stages.set(name, (s = { stage: name, unit, in: 0, out: 0, dropped: {} }));
    return s;
  }

  /** Counts n passing or dropped units at a stage. */
  count(name: string, unit: StageCounts["unit"], reason: string | null, n = 1): void {
    const s = this.stage(name, unit);
    s.in += n;
    if (reason === null) s.out += n;
    else s.dropped[reason] = (s.dropped[reason] ?? 0) + n;
  }

  list(): StageCounts[] {
    return [...this.stages.values()];
  }
}
