/**
 * `math`: the final answer equals a reference mathematically (MATH, GSM8K, AIME answer formats).
 *
 * rubric:  check: { math: { expected: "{{answer}}" } }
 *
 * The kind's settings are in spec.ts; this comparison (the reader, LaTeX, the comparer) loads on
 * the first run of a `math` check (kinds/math.ts).
 */
import { renderReference } from "../../text/template.js";
import type { CheckInput, CheckResult } from "../kind.js";
import { undisguisedOnce } from "../memo.js";
import { mathEquivalent } from "./equivalent.js";
import type { MathSpec } from "./spec.js";

/** Runs one `math` check: the response's final answer against the reference. */
export function runMath(spec: MathSpec, { text, sample, memo }: CheckInput): CheckResult {
  const reference = typeof spec.expected === "number" ? String(spec.expected) : renderReference("math", spec.expected, sample);
  // The answer a reader gets (text/markup.ts): a box inside an HTML comment or a hidden element is none.
  const verdict = mathEquivalent(undisguisedOnce(text, memo), reference, { tolerance: spec.tolerance, round: spec.round, percent: spec.percent, extract: spec.extract, decimalComma: spec.decimal_comma, timeoutMs: spec.timeout_ms });
  if (verdict.problem === "no-answer") return { pass: false, reasoning: `no final answer found (expected ${short(verdict.reference)})` };
  if (verdict.problem === "timeout") return { pass: false, reasoning: `the comparison computed past ${spec.timeout_ms ?? 200} ms; counted as not equal`, forfeit: true };
  return {
    pass: verdict.equivalent,
    reasoning: verdict.equivalent ? `answer ${short(verdict.answer!)} equals ${short(verdict.reference)}` : `answer ${short(verdict.answer!)}, expected ${short(verdict.reference)}`,
  };
}

const short = (s: string, n = 80) => JSON.stringify(s.length > n ? `${s.slice(0, n)}…` : s);
