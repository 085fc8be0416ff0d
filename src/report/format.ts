/** Number formatting shared by the HTML and markdown reports. */

/**
 * A number with `digits` decimals, or "—" for null, undefined, NaN and ±Infinity.
 * @example formatNumber(0.12345) // "0.123"
 */
export function formatNumber(value: number | null | undefined, digits = 3): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  return value.toFixed(digits);
}

/**
 * A cost in a report table: dollars to 4 decimals, or "—" when nothing was paid (all cached, or no price).
 * @example formatUsd(0.01234) // "$0.0123"
 */
export function formatUsd(value: number): string {
  return value > 0 ? `$${value.toFixed(4)}` : "—";
}

/**
 * A proportion as a percentage, or "—" when missing.
 * @example formatPercent(0.5) // "50.0%"
 */
export function formatPercent(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  return `${(value * 100).toFixed(digits)}%`;
}

/**
 * A value with its interval, as "0.712 [0.650, 0.770]"; the interval is left out when missing.
 * @example formatInterval(0.7, 0.6, 0.8, 2) // "0.70 [0.60, 0.80]"
 */
export function formatInterval(
  value: number | null | undefined,
  lo: number | null | undefined,
  hi: number | null | undefined,
  digits = 3,
): string {
  const v = formatNumber(value, digits);
  if (lo === null || lo === undefined || hi === null || hi === undefined || !Number.isFinite(lo) || !Number.isFinite(hi)) return v;
  return `${v} [${formatNumber(lo, digits)}, ${formatNumber(hi, digits)}]`;
}
