/**
 * Numbers as written in text: optional sign, thousands separators, decimals, exponents, simple
 * fractions, and decimal commas.
 *
 * The comma rule: a comma followed by exactly three digits groups thousands ("1,000",
 * "12,345,678", and so "1,234" is 1234, as in English); a single comma between digits followed by
 * one, two, or four or more digits, in a number with no '.', is a decimal comma ("12,5" is 12.5,
 * "3,14" is 3.14, "0,0625" is 0.0625). A run like "1,2,3" is a list, not a number: its parts are
 * read one by one.
 */
// A minus sign counts only where it cannot be a hyphen joining two numbers ("2024-01-05", "3-4").
const SIGN = "(?:(?<![\\w.])[-−])?";
const DECIMAL_COMMA = "(?<![\\d,.])\\d+,(?:\\d{1,2}|\\d{4,})(?![\\d,.])";
const NUMBER = new RegExp(
  `${SIGN}${DECIMAL_COMMA}|${SIGN}(?:\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.\\d+)?(?:[eE][-+]?\\d+)?(?:\\s*\\/\\s*\\d+(?:\\.\\d+)?)?|${SIGN}\\.\\d+`,
  "g",
);

/** Parses one written number ("1,234.5", "12,5", "−3", "3/4"); NaN when it is not one. */
export function parseNumber(written: string): number {
  let text = written.trim().replace(/−/g, "-").replace(/\s+/g, "");
  if (/^-?\d+,(?:\d{1,2}|\d{4,})$/.test(text)) text = text.replace(",", ".");
  text = text.replace(/,(?=\d{3}\b)/g, "");
  const fraction = /^(-?\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(text);
  if (fraction) return Number(fraction[1]) / Number(fraction[2]);
  // One optional fraction group, not `\d+\.?\d*`: the same numbers, without trying every split of a
  // long run of digits that fails at its end.
  return /^-?(\d+(?:\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : Number.NaN;
}

/**
 * The answer number in a text: the last `\boxed{…}` if any ("boxed"), else the first or last number written.
 * A box is one answer: exponents and subscripts in it are not read (`\boxed{5 m^2}` is 5), and a
 * box holding several different numbers or a ± (`\boxed{3 or 5}`, `\boxed{\pm 5}`) is a hedge, NaN.
 * @example extractNumber("so x = 12, and the answer is \\boxed{1,024}") // 1024
 */
export function extractNumber(text: string, pick: "last" | "first" | "boxed" | undefined): number | undefined {
  // LaTeX fractions (\frac{3}{4}, \dfrac, \tfrac) as written fractions, so "\boxed{\frac{3}{4}}" is 0.75, not 4.
  text = text.replace(/\\[dt]?frac\{\s*([-−]?[\d.,]+)\s*\}\s*\{\s*([\d.,]+)\s*\}/g, "$1/$2");
  const boxed = [...text.matchAll(/\\boxed\{([^{}]*)\}/g)].map((m) => m[1]);
  if (boxed.length > 0 && pick !== "first" && pick !== "last") {
    const box = boxed.at(-1)!;
    const inside = [...box.matchAll(NUMBER)].filter((m) => !/[_^]\s*$/.test(box.slice(Math.max(0, m.index - 16), m.index))).map((m) => parseNumber(m[0]));
    if (inside.length === 0) return undefined;
    if (/[±∓]|\\(?:pm|mp)(?![a-zA-Z])/.test(box) || inside.some((v) => v !== inside[0])) return Number.NaN;
    return inside[0];
  }
  if (pick === "boxed") return undefined;
  const all = text.match(NUMBER);
  if (!all) return undefined;
  const chosen = pick === "first" ? all[0] : all.at(-1)!;
  const value = parseNumber(chosen);
  return Number.isNaN(value) ? undefined : value;
}
