/** Pearson's correlation, as numpy's `corrcoef(x, y)[0, 1]` computes it. */

/**
 * Pearson's r of two equally long series; NaN when either is constant (numpy gives nan there too).
 * @example pearson([1, 2, 3], [2, 4, 7]) // 0.993…
 */
export function pearson(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length) throw new RangeError(`length mismatch: ${x.length} and ${y.length} values`);
  const n = x.length;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxx === 0 || syy === 0 ? Number.NaN : sxy / Math.sqrt(sxx * syy);
}
