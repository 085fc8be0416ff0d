/** Seeded percentile bootstrap intervals: the same seed gives the same interval, on every machine. */

import { quantile as interpolate, seededRandom } from "./interval.js";

export { seededRandom };

/** The q-quantile (0…1) of sorted numbers, interpolating linearly (numpy's default); null when empty. */
export function quantile(sorted: number[], q: number): number | null {
  return sorted.length === 0 ? null : interpolate(sorted, Math.min(1, Math.max(0, q)));
}

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
  const resamples = opts.resamples ?? 1000;
  const level = opts.level ?? 0.95;
  const names = Object.keys(statistics) as K[];
  const draws = Object.fromEntries(names.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  const nulls = Object.fromEntries(names.map((k) => [k, 0])) as Record<K, number>;
  const n = items.length;
  if (n > 0) {
    const rand = seededRandom(opts.seed ?? 0);
    const sample: T[] = new Array(n);
    for (let r = 0; r < resamples; r++) {
      for (let i = 0; i < n; i++) sample[i] = items[Math.floor(rand() * n)];
      for (const k of names) {
        const v = statistics[k](sample);
        if (v === null || !Number.isFinite(v)) nulls[k]++;
        else draws[k].push(v);
      }
    }
  }
  const alpha = (1 - level) / 2;
  const out = {} as Record<K, Interval>;
  for (const k of names) {
    const value = n > 0 ? statistics[k](items) : null;
    const sorted = draws[k].sort((a, b) => a - b);
    out[k] = {
      value: value !== null && Number.isFinite(value) ? value : null,
      lo: quantile(sorted, alpha),
      hi: quantile(sorted, 1 - alpha),
      undefinedResamples: n > 0 ? nulls[k] : 0,
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
