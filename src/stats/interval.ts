import { bootstrap, mean } from "./bootstrap.js";

/** A mean with its bootstrap 95% percentile interval. */
export interface MeanWithInterval {
  n: number;
  mean: number;
  low: number;
  high: number;
}

/**
 * The mean of `values` and a percentile bootstrap 95% interval (seeded, default seed 1 and 1000 resamples).
 * @example meanWithInterval([0, 1, 1, 0.5]) // { n: 4, mean: 0.625, low: …, high: … }
 */
export function meanWithInterval(values: number[], options: { resamples?: number; seed?: number } = {}): MeanWithInterval | undefined {
  if (values.length === 0) return undefined;
  const interval = bootstrap(values, mean, { seed: options.seed ?? 1, resamples: options.resamples });
  // Every resample of a non-empty list of numbers has a mean, so the interval exists.
  return { n: values.length, mean: mean(values)!, low: interval.lo!, high: interval.hi! };
}
