/**
 * `rubricate env filter`: which tasks give a group-relative trainer (GRPO) a signal. Every task is
 * rolled out k times; a task every rollout passes or every rollout fails has zero advantage in
 * every group, so only tasks whose pass rate lies in a band are kept. A rollout without a reward
 * (the policy could not be called after retries, or the judge gave no verdict) says nothing about
 * the task's difficulty: it counts neither as a pass nor as a failure, and a task without any
 * rewarded rollout has no pass rate (it is kept and reported, never judged on no evidence).
 */
import { RubricateError } from "../errors.js";
import type { RolloutRecord } from "../env/types.js";

/** A task's rollouts counted. */
export interface PassRate {
  task: string;
  /** Rollouts whose reward reached the pass threshold. */
  passed: number;
  /** Rollouts with a reward. */
  scored: number;
  /** Rollouts without a reward (policy or judge errors): neither passes nor failures. */
  errors: number;
  /** passed / scored, or null when no rollout has a reward. */
  rate: number | null;
}

/** An inclusive range of pass rates, written `0.1..0.9`. */
export interface Band {
  min: number;
  max: number;
}

/**
 * Reads a band `min..max` (both in [0, 1], min ≤ max).
 * @example parseBand("0.1..0.9") // { min: 0.1, max: 0.9 }
 */
export function parseBand(text: string): Band {
  const m = /^\s*([0-9.]+)\s*\.\.\s*([0-9.]+)\s*$/.exec(text);
  const min = m ? Number(m[1]) : NaN;
  const max = m ? Number(m[2]) : NaN;
  if (!(min >= 0 && max <= 1 && min <= max)) throw new RubricateError("BAD_INPUT", `--keep "${text}": expected min..max with 0 ≤ min ≤ max ≤ 1, e.g. 0.1..0.9`);
  return { min, max };
}

/** True when a pass rate lies in the band, both ends included. */
export const inBand = (rate: number, band: Band): boolean => rate >= band.min && rate <= band.max;

/**
 * Each task's pass rate over its rollouts: a rollout passes when its reward reaches `passThreshold`.
 * @example passRates(records, ["t1", "t2"], 1) // [{ task: "t1", passed: 3, scored: 8, errors: 0, rate: 0.375 }, …]
 */
export function passRates(records: readonly RolloutRecord[], taskIds: readonly string[], passThreshold: number): PassRate[] {
  const counts = new Map(taskIds.map((task) => [task, { task, passed: 0, scored: 0, errors: 0 }]));
  for (const r of records) {
    const c = counts.get(r.task);
    if (!c) continue;
    if (r.error || r.reward === null) c.errors++;
    else {
      c.scored++;
      if (r.reward >= passThreshold) c.passed++;
    }
  }
  return [...counts.values()].map((c) => ({ ...c, rate: c.scored > 0 ? c.passed / c.scored : null }));
}

/** The histogram's bins: exactly 0, tenths in between, exactly 1 (the two that give no signal apart). */
export const HISTOGRAM_BINS = ["0", "(0, 0.1)", ...Array.from({ length: 9 }, (_, i) => `[${(i + 1) / 10}, ${(i + 2) / 10 === 1 ? 1 : (i + 2) / 10})`), "1"];

/** Counts of pass rates per bin of `HISTOGRAM_BINS`. */
export function histogram(rates: readonly number[]): number[] {
  const counts = HISTOGRAM_BINS.map(() => 0);
  for (const r of rates) counts[r <= 0 ? 0 : r >= 1 ? 11 : Math.min(10, 1 + Math.floor(Math.round(r * 1e9) / 1e8))]++;
  return counts;
}

/** What a filter decided about each task, with the histograms before and after. */
export interface FilterResult {
  band: Band;
  rates: (PassRate & { kept: boolean })[];
  kept: number;
  removed: number;
  /** Tasks without any rewarded rollout: kept, for want of evidence, and reported. */
  unrated: number;
  histogram: { bins: string[]; before: number[]; after: number[] };
}

/**
 * Keeps the tasks whose pass rate lies in the band (and those without a pass rate).
 * @example decide(passRates(records, ids, 1), parseBand("0.1..0.9")).kept
 */
export function decide(rates: readonly PassRate[], band: Band): FilterResult {
  const decided = rates.map((r) => ({ ...r, kept: r.rate === null || inBand(r.rate, band) }));
  const rated = (rows: typeof decided) => rows.flatMap((r) => (r.rate === null ? [] : [r.rate]));
  return {
    band,
    rates: decided,
    kept: decided.filter((r) => r.kept).length,
    removed: decided.filter((r) => !r.kept).length,
    unrated: decided.filter((r) => r.rate === null).length,
    histogram: { bins: HISTOGRAM_BINS, before: histogram(rated(decided)), after: histogram(rated(decided.filter((r) => r.kept))) },
  };
}

/** The report as text: counts, then the two histograms side by side with bars. */
export function filterReportText(result: FilterResult, header: string): string {
  const width = Math.max(...result.histogram.before, 1);
  const bar = (n: number) => "#".repeat(Math.round((n / width) * 20)).padEnd(20);
  const rows = result.histogram.bins.map((bin, i) => `${bin.padEnd(11)} ${String(result.histogram.before[i]).padStart(5)} ${bar(result.histogram.before[i])} ${String(result.histogram.after[i]).padStart(5)} ${bar(result.histogram.after[i])}`);
  return [
    header,
    `kept ${result.kept}, removed ${result.removed} (pass rate outside ${result.band.min}..${result.band.max})${result.unrated ? `, ${result.unrated} without a pass rate (kept: every rollout errored)` : ""}`,
    "",
    `${"pass rate".padEnd(11)} ${"before".padStart(5)} ${"".padEnd(20)} ${"after".padStart(5)}`,
    ...rows,
  ].join("\n");
}
