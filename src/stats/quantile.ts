/**
 * The q-quantile (q in 0…1, clamped) of numbers sorted ascending, interpolating linearly
 * (numpy's default). Empty input gives `null`, never NaN: NaN would pass silently through
 * arithmetic and turn into `null` in JSON anyway, so callers decide what "no data" means.
 * @example quantile([1, 2, 3, 4], 0.25) // 1.75
 */
export function quantile(sorted: ArrayLike<number>, q: number): number | null {
  if (sorted.length === 0) return null;
  const position = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}
