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
import { asciiNumerals } from "../text/numerals.js";
import { lastBoxed } from "./math/extract.js";

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
 * A number written in scientific notation: "1.5 \times 10^{3}", "1.5 × 10^3", "6 \cdot 10^{-2}".
 * Starting only where a number starts keeps the scan linear on a long run of digits.
 */
const SCIENTIFIC = /(?<![\d.])([-−]?\d+(?:\.\d+)?)\s*(?:\\times|\\cdot|×|·)\s*10\s*\^\s*(?:\{\s*([-−+]?\d+)\s*\}|([-−+]?\d+))/g;
/** LaTeX text in a box: a unit or a connective (`\text{ m}`, `\text{ or }`) is dropped, a number in it (`\text{3,000,000}`) kept. */
const TEXT_IN_BOX = /\\(?:text|textrm|textbf|textnormal|mbox|mathrm)\s*\{([^{}]*)\}/g;
/** Words that, in a box, hedge or deny its number: `\boxed{3 \text{ or more}}`, `\boxed{\text{not } 3}`. */
const BOX_HEDGE = /\b(?:or|nor|not|no|maybe|perhaps|either|than|least|most|fewer|more|less|wrong|incorrect)\b/i;

/**
 * A number raised to a written power: "5^3", "2^{10}", "10^{-3}", "1.5^2". Starting only where a
 * number starts (not inside one, nor after a letter: "m^2" is a unit) keeps the scan linear.
 */
const POWER = /(?<![\w.^])(\d+(?:\.\d+)?)\s*\^\s*(?:\{\s*([-−+]?\d+(?:\.\d+)?)\s*\}|([-−+]?\d+(?:\.\d+)?))/g;
/** A square root of one number: "\sqrt{5}", "\sqrt 9". */
const SQUARE_ROOT = /\\sqrt\s*(?:\{\s*(\d+(?:\.\d+)?)\s*\}|(\d+(?:\.\d+)?)(?![\d.]))/g;
/** The most digits a power is written out with exactly; a longer one (a policy's 9^99999999) is left as written, not a number. */
const MAX_POWER_DIGITS = 400;

/**
 * The value of base^exponent as a number would be written: exactly for whole numbers (BigInt, so
 * "2^{64}" is 18446744073709551616), else as JavaScript writes the double; undefined when it would
 * have more than MAX_POWER_DIGITS digits.
 */
function powerWritten(base: string, exponent: string): string | undefined {
  const e = Number(exponent.replace("−", "-"));
  const b = Number(base);
  if (b > 1 && Math.abs(e) * Math.log10(b) > MAX_POWER_DIGITS) return undefined;
  if (/^\d+$/.test(base) && Number.isInteger(e) && e >= 0) return (BigInt(base) ** BigInt(e)).toString();
  const value = b ** e;
  return Number.isFinite(value) ? String(value) : undefined;
}

/**
 * LaTeX number notation read as plain text: `\frac{3}{4}` as 3/4, `1{,}000` as 1,000, `1.5 \times
 * 10^{3}` as 1.5e3; digits of other scripts and thousands grouped by a no-break space as ASCII
 * numbers (text/numerals.ts, which `math` reads them through too).
 */
function plainNumbers(text: string): string {
  return (
    asciiNumerals(text)
      // LaTeX fractions (\frac{3}{4}, \dfrac, \tfrac) as written fractions, so "\boxed{\frac{3}{4}}" is 0.75, not 4.
      .replace(/\\[dt]?frac\{\s*([-−]?[\d.,]+)\s*\}\s*\{\s*([\d.,]+)\s*\}/g, "$1/$2")
      // Thousands written "1{,}000" or "1\,000", and "32,\!349".
      .replace(/\{,\}/g, ",")
      .replace(/(\d)\\,(?=\d{3}(?!\d))/g, "$1,")
      .replace(/\\!/g, "")
      .replace(SCIENTIFIC, (_m, mantissa: string, braced: string | undefined, bare: string | undefined) => `${mantissa}e${(braced ?? bare)!.replace("−", "-")}`)
      // A power or a root of a number is the number it makes: "\boxed{5^3}" is 125, not 5, and "\sqrt{5}" about 2.236.
      .replace(POWER, (written, base: string, braced: string | undefined, bare: string | undefined) => powerWritten(base, (braced ?? bare)!) ?? written)
      .replace(SQUARE_ROOT, (_m, braced: string | undefined, bare: string | undefined) => String(Math.sqrt(Number(braced ?? bare))))
  );
}

/**
 * The answer number in a text: the last `\boxed{…}` if any ("boxed"), else the first or last number written.
 * A box is one answer: exponents and subscripts in it are not read (`\boxed{5 m^2}` is 5), nor a
 * unit in `\text{}` (`\boxed{5\text{ m}}` is 5), and a box holding several different numbers, a ±
 * or a hedging word (`\boxed{3 or 5}`, `\boxed{5 \text{ or } 3}`, `\boxed{\pm 5}`, `\boxed{3 or more}`)
 * is a hedge, NaN. Its braces are matched, so `\boxed{1{,}000}` is 1000, and thousands grouped by
 * spaces are one number, as typeset (`\boxed{1 000}` is 1000).
 * @example extractNumber("so x = 12, and the answer is \\boxed{1,024}") // 1024
 */
export function extractNumber(text: string, pick: "last" | "first" | "boxed" | undefined): number | undefined {
  const found = answerNumber(text, pick);
  return found === undefined ? undefined : found.value;
}

/** A number as read, with its spelling ("1,234"): NaN for a box that hedges. */
export interface ReadNumber {
  value: number;
  written: string;
}

/** extractNumber, with the number as written: what a comparison of integers past 2^53 needs. */
export function answerNumber(text: string, pick: "last" | "first" | "boxed" | undefined): ReadNumber | undefined {
  text = plainNumbers(text);
  const box = pick === "first" || pick === "last" ? undefined : lastBoxed(text);
  if (box !== undefined) return boxNumber(box);
  if (pick === "boxed") return undefined;
  const all = writtenNumbers(text);
  if (all.length === 0) return undefined;
  const written = pick === "first" ? all[0] : all.at(-1)!;
  const value = parseNumber(written);
  return Number.isNaN(value) ? undefined : { value, written };
}

/**
 * An operation on a number that a box's reading leaves undone: a power too long to write out or of
 * something other than a number, a factorial, a function ("\boxed{\log 8}"). Degrees and primes
 * ("30^\circ") are no operation.
 */
const OPERATED = /\d\s*\)?\s*(?:\^(?!\s*\{?\s*\\(?:circ|prime)(?![a-zA-Z]))|!)|\\(?:log|ln|lg|exp|sin|cos|tan|cot|sec|csc|arcsin|arccos|arctan|sinh|cosh|tanh)(?![a-zA-Z])/;
/** The largest n whose n! a box is read as: 170! is the last a double holds. */
const MAX_FACTORIAL = 170;

/** Just before an exponent or a subscript ("m^2", "m^{2}", "x_1"): a number there is not the answer but part of a unit or a name. */
const EXPONENT_BEFORE = /[_^]\s*\{?\s*$/;

/** The numbers written in a text, in order, without exponents and subscripts (the 2 of "25 m^2"). */
function writtenNumbers(text: string): string[] {
  return [...text.matchAll(NUMBER)].filter((m) => !EXPONENT_BEFORE.test(text.slice(Math.max(0, m.index - 16), m.index))).map((m) => m[0]);
}

/**
 * Thousands grouped by plain spaces in a box (`\boxed{1 000}`, `\boxed{12 345 678}`): math mode
 * typesets them without the spaces, as 1000, which is what `math` reads too. Only groups of three
 * digits join, as with `\,`, so `\boxed{3 5}` is still two numbers, a hedge. Each group starts
 * with a mandatory space and holds three digits: the scan is linear. In prose only a no-break or
 * thin space groups thousands (text/numerals.ts), for a plain one there may part two numbers.
 */
const BOX_SPACED_THOUSANDS = /(?<![\d.,])\d{1,3}(?: \d{3})+(?![\d])/g;

/** A box holding one factorial ("\boxed{5!}"), as the number it makes, written exactly. */
function factorialBox(box: string): ReadNumber | undefined {
  const n = /^\s*(\d{1,3})\s*!\s*$/.exec(box)?.[1];
  if (n === undefined || Number(n) > MAX_FACTORIAL) return undefined;
  let product = 1n;
  for (let k = 2n; k <= BigInt(n); k++) product *= k;
  return { value: Number(product), written: product.toString() };
}

/**
 * The one number a box holds, NaN when it hedges or holds an operation on its number it cannot
 * carry out (`\boxed{5!}` is 120; `\boxed{\log 8}` is not 8), undefined when it holds none.
 */
function boxNumber(box: string): ReadNumber | undefined {
  const factorial = factorialBox(box);
  if (factorial) return factorial;
  const inside = box.replace(TEXT_IN_BOX, (_m, words: string) => (/\d/.test(words) ? ` ${words} ` : " ")).replace(BOX_SPACED_THOUSANDS, (group) => group.replace(/ /g, ""));
  const numbers = writtenNumbers(inside);
  if (numbers.length === 0) return undefined;
  const values = numbers.map(parseNumber);
  const hedged = /[±∓]|\\(?:pm|mp)(?![a-zA-Z])/.test(box) || OPERATED.test(box) || BOX_HEDGE.test(box.replace(/\\[a-zA-Z]+/g, " ")) || values.some((v) => v !== values[0]);
  return { value: hedged ? Number.NaN : values[0], written: numbers[0] };
}

/**
 * An integer written out in full ("1234567891", "-012", "20.0") in one canonical spelling ("-12",
 * "20"), so two are equal exactly when their spellings are: a BigInt comparison, in linear time
 * however many digits; undefined for anything else.
 */
export function canonicalInteger(text: string): string | undefined {
  const m = /^(-?)(\d+)(?:\.0*)?$/.exec(text);
  if (!m) return undefined;
  const digits = m[2].replace(/^0+/, "");
  return digits === "" ? "0" : m[1] + digits;
}

/** A number written as an integer ("2,148,000", "−12"), in canonicalInteger's spelling ("2148000", "-12"); undefined otherwise (a decimal point included). */
function integerSpelling(written: string): string | undefined {
  const text = written.replace(/[,\s]/g, "").replace("−", "-");
  return text.includes(".") ? undefined : canonicalInteger(text);
}

/**
 * Whether two numbers as read are the same value: integers exactly, by their digits (floats carry
 * 16 digits, and a relative 1e-9 took 1234567891 for 1234567890), others within a relative 1e-9
 * (a float error, not a rounding); against 0, within 1e-9.
 */
export function sameNumber(got: ReadNumber, expected: ReadNumber): boolean {
  const [a, b] = [integerSpelling(got.written), integerSpelling(expected.written)];
  if (a !== undefined && b !== undefined) return a === b && !Number.isNaN(got.value);
  if (!Number.isFinite(got.value) || !Number.isFinite(expected.value)) return false;
  const scale = expected.value === 0 ? 1 : Math.max(Math.abs(got.value), Math.abs(expected.value));
  return Math.abs(got.value - expected.value) <= 1e-9 * scale;
}
