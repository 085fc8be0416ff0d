/** Seeded percentile bootstrap intervals: the same seed gives the same interval, on every machine. */

import { quantile } from "./quantile.js";
import { seededRandom } from "./rng.js";

export { quantile, seededRandom };

/** Bootstrap settings. */
export interface BootstrapOptions {
  /** Default 0. */
  seed?: number;
  /** Default 1000. */
  resamples?: number;
  /** Default 0.95. */
  level?: number;
}

/** A point estimate with its percentile interval. */
export interface Interval {
  value: number | null;
  lo: number | null;
  hi: number | null;
  /** Resamples where the statistic was undefined (null), left out of the interval. */
  undefinedResamples: number;
}

/** One statistic's values over the resamples. */
export interface Draws {
  /** The finite values, sorted ascending. */
  draws: number[];
  /** Resamples where the statistic was null or not finite. */
  undefinedResamples: number;
}

/**
 * The bootstrap loop every interval in rubricate goes through. Each of `resamples` rounds draws
 * every group afresh (with replacement, the group's size; groups in order, so independent sets
 * are resampled independently) and evaluates every statistic on the drawn groups. With any group
 * empty nothing is drawn.
 * @example resampleStatistics([diffs], { mean: ([d]) => mean(d) }, { seed: 1, resamples: 2000 }).mean.draws
 */
export function resampleStatistics<G extends readonly (readonly unknown[])[], K extends string>(
  groups: G,
  statistics: Record<K, (drawn: G) => number | null>,
  opts: Pick<BootstrapOptions, "seed" | "resamples"> = {},
): Record<K, Draws> {
  const names = Object.keys(statistics) as K[];
  const out = Object.fromEntries(names.map((k) => [k, { draws: [] as number[], undefinedResamples: 0 }])) as Record<K, Draws>;
  if (groups.length > 0 && groups.every((g) => g.length > 0)) {
    const resamples = opts.resamples ?? 1000;
    const rand = seededRandom(opts.seed ?? 0);
    const drawn = groups.map((g) => new Array(g.length)) as unknown as G;
    for (let r = 0; r < resamples; r++) {
      for (let gi = 0; gi < groups.length; gi++) {
        const from = groups[gi];
        const into = drawn[gi] as unknown[];
        const n = from.length;
        for (let i = 0; i < n; i++) into[i] = from[Math.floor(rand() * n)];
      }
      for (const k of names) {
        const v = statistics[k](drawn);
        if (v === null || !Number.isFinite(v)) out[k].undefinedResamples++;
        else out[k].draws.push(v);
      }
    }
  }
  for (const k of names) out[k].draws.sort((a, b) => a - b);
  return out;
}

/** The central `level` percentile interval of sorted draws (nulls when there are none). */
export function percentileInterval(sorted: readonly number[], level = 0.95): { lo: number | null; hi: number | null } {
  const alpha = (1 - level) / 2;
  return { lo: quantile(sorted, alpha), hi: quantile(sorted, 1 - alpha) };
}

/**
 * Percentile intervals of several statistics over the same resamples of `items` (resampled
 * with replacement, same size). Statistics returning null in a resample are left out of that
 * statistic's interval and counted. With no items every value is null.
 * @example bootstrapMany(pairs, { acc: (s) => accuracy(confusion(s)) }, { seed: 1 }).acc // { value, lo, hi, undefinedResamples }
 */
export function bootstrapMany<T, K extends string>(
  items: readonly T[],
  statistics: Record<K, (sample: readonly T[]) => number | null>,
  opts: BootstrapOptions = {},
): Record<K, Interval> {
  const names = Object.keys(statistics) as K[];
  const overGroups = Object.fromEntries(names.map((k) => [k, ([sample]: readonly [readonly T[]]) => statistics[k](sample)])) as Record<K, (drawn: readonly [readonly T[]]) => number | null>;
  const resampled = resampleStatistics([items] as const, overGroups, opts);
  const n = items.length;
  const out = {} as Record<K, Interval>;
  for (const k of names) {
    const value = n > 0 ? statistics[k](items) : null;
    out[k] = {
      value: value !== null && Number.isFinite(value) ? value : null,
      ...percentileInterval(resampled[k].draws, opts.level),
      undefinedResamples: resampled[k].undefinedResamples,
    };
  }
  return out;
}

/**
 * A percentile bootstrap interval of one statistic (default 95%, 1000 resamples, seed 0).
 * @example bootstrap([1, 0, 1, 1], (s) => s.reduce((a, b) => a + b, 0) / s.length, { seed: 7 })
 */
export function bootstrap<T>(items: readonly T[], statistic: (sample: readonly T[]) => number | null, opts: BootstrapOptions = {}): Interval {
  return bootstrapMany(items, { stat: statistic }, opts).stat;
}

/** The arithmetic mean, summed in order (null when empty). */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}
