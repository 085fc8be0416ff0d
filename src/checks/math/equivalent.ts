import { Script, createContext } from "node:vm";
import { closeNumbers, loadMathjs, sameValue } from "./compare.js";
import { extractAnswer, type AnswerExtraction } from "./extract.js";
import { readAnswer, type DecimalComma, type MathValue } from "./read.js";

/** Options of the `math` check: tolerance, time limit, extraction. */
export interface MathOptions {
  /** Relative tolerance for numbers (default 1e-6). */
  tolerance?: number;
  /** Where the response's answer is (default "auto": boxed, "final answer is", "####", "Answer:", last formula or number). */
  extract?: AnswerExtraction;
  /** "12,5": "auto" (default) reads a decimal comma when the reference is a single number. */
  decimalComma?: DecimalComma;
  /** Wall-clock limit for one comparison (default 200 ms); past it the answer counts as not equivalent. */
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

const PLAIN_NUMBER = /^-?(?:\d+\.?\d*|\.\d+)$/;

/**
 * Whether the final answer of `response` equals `reference` mathematically.
 * @example mathEquivalent("so the answer is $\\boxed{\\dfrac{1}{2}}$", "0.5").equivalent // true
 */
export function mathEquivalent(response: string, reference: string, options: MathOptions = {}): MathVerdict {
  loadMathjs();
  // Extraction and reading are linear, but regular expressions and the parser run on untrusted
  // text: one guard bounds the whole comparison.
  const verdict = withTimeLimit(() => compare(response, reference, options), options.timeoutMs ?? 200);
  return verdict ?? { equivalent: false, reference: reference.slice(0, 200), problem: "timeout" };
}

function compare(response: string, reference: string, options: MathOptions): MathVerdict {
  const referenceAnswer = extractAnswer(reference, "auto") ?? reference.trim();
  const answer = extractAnswer(response, options.extract ?? "auto");
  if (answer === undefined || answer === "") return { equivalent: false, reference: referenceAnswer, problem: "no-answer" };
  const tolerance = options.tolerance ?? 1e-6;
  // Most answers in GSM8K and AIME are plain numbers: compared without the parser.
  if (PLAIN_NUMBER.test(answer) && PLAIN_NUMBER.test(referenceAnswer)) {
    return { equivalent: closeNumbers(Number(answer), Number(referenceAnswer), tolerance), answer, reference: referenceAnswer };
  }
  const equivalent = compareAnswers(answer, referenceAnswer, tolerance, options.decimalComma ?? "auto");
  return { equivalent, answer, reference: referenceAnswer };
}

function compareAnswers(answer: string, reference: string, tolerance: number, decimalComma: DecimalComma): boolean {
  const expected = readAnswer(reference, { decimalComma: decimalComma === "always" });
  const singleExpected = decimalComma === "always" || (decimalComma === "auto" && isSingle(expected));
  const got = readAnswer(answer, { decimalComma: singleExpected });
  return sameValue(got, expected, { tolerance });
}

const isSingle = (value: MathValue) => value.kind === "expr";

// A synchronous parse cannot be interrupted from the same thread except by V8's watchdog, which
// node:vm exposes as a script timeout; the comparison runs as a call from such a script.
const guardContext = createContext({ job: undefined as (() => unknown) | undefined, result: undefined as unknown });
const guardScript = new Script("result = job()");

/** The job's result, or undefined when it ran past `ms`. */
function withTimeLimit<T>(job: () => T, ms: number): T | undefined {
  guardContext.job = job;
  try {
    guardScript.runInContext(guardContext, { timeout: Math.max(1, Math.round(ms)) });
    return guardContext.result as T;
  } catch (e) {
    if ((e as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return undefined;
    throw e;
  } finally {
    guardContext.job = undefined;
    guardContext.result = undefined;
  }
}
