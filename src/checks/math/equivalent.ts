import { asciiNumerals } from "../../text/numerals.js";
import { canonicalInteger } from "../number.js";
import { numbersMatch, type CompareOptions } from "./compare.js";
import type { DecimalComma } from "./compare-answers.js";
import { extractAnswer, extractReference, type AnswerExtraction } from "./extract.js";
import { compareWithinLimit } from "./guarded-compare.js";

export type { DecimalComma } from "./compare-answers.js";

/** Options of the `math` check: tolerance, opt-in rounding and percent, time limit, extraction. */
export interface MathOptions {
  /**
   * Relative tolerance for numbers (default 1e-9: a float error, not a rounding). Unset, integers
   * written out compare exactly; set, it applies to them too. Against a reference of 0 it is absolute.
   */
  tolerance?: number;
  /** Opt-in: numbers equal when they agree rounded to this many decimals (default: no rounding; "0.083" is not 1/12). */
  round?: number;
  /** "strict" (default): "28%" equals 28 only; "fraction": "28%" also equals 0.28 and "50%" 1/2. */
  percent?: "strict" | "fraction";
  /** Where the response's answer is (default "auto": boxed, "final answer is", "####", "Answer:", last formula or number). */
  extract?: AnswerExtraction;
  /** "12,5": "auto" (default) reads a decimal comma when the other side is a single number. */
  decimalComma?: DecimalComma;
  /** Time limit for reading and comparing a formula (default 200 ms of its own CPU; a process waiting for a core gets more wall-clock time); past it the answer counts as not equivalent. Finding the answer (in the response's last 8,000 characters) and comparing plain numbers are not timed. */
  timeoutMs?: number;
}

/** Whether two math answers are equivalent, and why. */
export interface MathVerdict {
  equivalent: boolean;
  /** The answer found in the response, as written. */
  answer?: string;
  /** The reference answer used, as written. */
  reference: string;
  /** Why: "no answer found", "timed out", or undefined when compared. */
  problem?: "no-answer" | "timeout";
}

/**
 * Floats carry about 16 digits; 1e-9 absorbs the error of computing an exact answer ("\\sqrt{117}"
 * vs "3\\sqrt{13}") and nothing a person writes: "16386.21" is not "16386.20", nor "0.0833" 1/12.
 */
const DEFAULT_TOLERANCE = 1e-9;

// The fraction part is one optional group: `\d+\.?\d*` reads the same numbers, but a run of digits
// that fails at its end ("111…1x") makes it try every split of the run between its two \d's, a
// quadratic time on text this path reads without the time guard.
const PLAIN_NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * Two plain numbers: integers exactly (floats carry 16 digits, and a relative 1e-9 let 1234567891
 * pass for 1234567890) unless the rubric set a tolerance; others as floats.
 */
function samePlainNumbers(answer: string, reference: string, options: CompareOptions): boolean {
  const [a, b] = [canonicalInteger(answer), canonicalInteger(reference)];
  if (a !== undefined && b !== undefined && options.exactIntegers !== false) return a === b;
  return numbersMatch([Number(answer), 0], [Number(reference), 0], false, false, options);
}

/**
 * Whether the final answer of `response` equals `reference` mathematically.
 * @example mathEquivalent("so the answer is $\\boxed{\\dfrac{1}{2}}$", "0.5").equivalent // true
 */
export function mathEquivalent(response: string, reference: string, options: MathOptions = {}): MathVerdict {
  // Numbers in ASCII before anything is read, as `number` reads them (text/numerals.ts): "\boxed{٤٢}"
  // is 42 and "1 000" (a no-break space) 1000 to the extraction, the reader and mathjs alike, which
  // know ASCII digits only (mathjs is never handed a digit or space it does not parse).
  return compareAnswers(asciiNumerals(response), asciiNumerals(reference), options);
}

/** mathEquivalent on texts whose numbers are in ASCII. */
function compareAnswers(response: string, reference: string, options: MathOptions): MathVerdict {
  // Finding the answers is outside the guard: it reads at most TAIL_CHARS of the response, with
  // regular expressions that stay linear on it (the worst crafted tails take ~3 ms, BENCHMARKS.md),
  // and a round trip to the guard's worker costs more than a plain-number comparison.
  const referenceAnswer = extractReference(reference);
  const answer = extractAnswer(response, options.extract ?? "auto");
  if (answer === undefined || answer === "") return { equivalent: false, reference: referenceAnswer, problem: "no-answer" };
  const compareOptions: CompareOptions = { tolerance: options.tolerance ?? DEFAULT_TOLERANCE, round: options.round, percent: options.percent ?? "strict", exactIntegers: options.tolerance === undefined };
  // Most answers in GSM8K and AIME are plain numbers: compared without the parser, or a guard.
  if (PLAIN_NUMBER.test(answer) && PLAIN_NUMBER.test(referenceAnswer)) {
    return { equivalent: samePlainNumbers(answer, referenceAnswer, compareOptions), answer, reference: referenceAnswer };
  }
  // Reading a formula runs the parser and mathjs on untrusted text: both run in the guard's worker,
  // which loads mathjs before its first comparison, so the time limit is per comparison.
  const equivalent = compareWithinLimit({ answer, reference: referenceAnswer, options: compareOptions, decimalComma: options.decimalComma ?? "auto" }, options.timeoutMs ?? 200);
  if (equivalent === undefined) return { equivalent: false, answer, reference: referenceAnswer, problem: "timeout" };
  return { equivalent, answer, reference: referenceAnswer };
}

