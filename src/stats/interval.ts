/**
 * A seeded PRNG (mulberry32): same seed, same stream, so intervals are reproducible on every machine.
 * @example const random = seededRandom(42); random() // the same first number every time
 */
export function seededRandom(seed: number): () => number {
  // Mixing in the golden-ratio constant spreads small seeds (0, 1, 2…) apart.
  let a = (Math.floor(seed) >>> 0) ^ 0x9e3779b9;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A mean with its bootstrap 95% percentile interval. */
export interface MeanWithInterval {
  n: number;
  mean: number;
  low: number;
  high: number;
}

/**
 * The mean of `values` and a percentile bootstrap 95% interval (seeded, default 1000 resamples).
 * @example meanWithInterval([0, 1, 1, 0.5]) // { n: 4, mean: 0.625, low: …, high: … }
 */
export function meanWithInterval(values: number[], options: { resamples?: number; seed?: number } = {}): MeanWithInterval | undefined {
  const n = values.length;
  if (n === 0) return undefined;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const random = seededRandom(options.seed ?? 1);
  const resamples = options.resamples ?? 1000;
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(random() * n)];
    means[r] = sum / n;
  }
  means.sort();
  return { n, mean, low: quantile(means, 0.025), high: quantile(means, 0.975) };
}

/** The q-quantile of sorted values (linear interpolation). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}
