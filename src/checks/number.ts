/** Numbers as written in text: optional sign, thousands separators, decimals, exponents, simple fractions. */
// A minus sign counts only where it cannot be a hyphen joining two numbers ("2024-01-05", "3-4").
const NUMBER = /(?:(?<![\w.])[-−])?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?:\s*\/\s*\d+(?:\.\d+)?)?|(?:(?<![\w.])[-−])?\.\d+/g;

/** Parses one written number ("1,234.5", "−3", "3/4"); NaN when it is not one. */
export function parseNumber(written: string): number {
  const text = written.trim().replace(/−/g, "-").replace(/,(?=\d{3}\b)/g, "").replace(/\s+/g, "");
  const fraction = /^(-?\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(text);
  if (fraction) return Number(fraction[1]) / Number(fraction[2]);
  return /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : Number.NaN;
}

/**
 * The answer number in a text: the last `\boxed{…}` if any ("boxed"), else the first or last number written.
 * @example extractNumber("so x = 12, and the answer is \\boxed{1,024}") // 1024
 */
export function extractNumber(text: string, pick: "last" | "first" | "boxed" | undefined): number | undefined {
  // LaTeX fractions (\frac{3}{4}, \dfrac, \tfrac) as written fractions, so "\boxed{\frac{3}{4}}" is 0.75, not 4.
  text = text.replace(/\\[dt]?frac\{\s*([-−]?[\d.,]+)\s*\}\s*\{\s*([\d.,]+)\s*\}/g, "$1/$2");
  const boxed = [...text.matchAll(/\\boxed\{([^{}]*)\}/g)].map((m) => m[1]);
  if (boxed.length > 0 && pick !== "first" && pick !== "last") {
    const inside = boxed.at(-1)!.match(NUMBER);
    return inside ? parseNumber(inside.at(-1)!) : undefined;
  }
  if (pick === "boxed") return undefined;
  const all = text.match(NUMBER);
  if (!all) return undefined;
  const chosen = pick === "first" ? all[0] : all.at(-1)!;
  const value = parseNumber(chosen);
  return Number.isNaN(value) ? undefined : value;
}
