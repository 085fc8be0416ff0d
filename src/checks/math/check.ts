/**
 * `math`: the final answer equals a reference mathematically (MATH, GSM8K, AIME answer formats).
 *
 * rubric:  check: { math: { expected: "{{answer}}" } }
 */
import * as z from "zod";
import { RubricateError } from "../../errors.js";
import { renderTemplate } from "../../text/template.js";
import { defineCheck } from "../kind.js";
import { mathEquivalent } from "./equivalent.js";

export const MathSpec = z.strictObject({
  expected: z.union([z.string().min(1), z.number()]).describe("The reference answer (LaTeX or plain), or a {{variable}} holding it; a GSM8K solution ending in '#### n' works as is"),
  tolerance: z.number().nonnegative().max(1).optional().describe("Relative tolerance for numbers (default 1e-9: a float error, not a rounding)"),
  round: z.number().int().min(0).max(12).optional().describe("Opt-in rounding: numbers equal when they agree rounded to this many decimals (0.33 = 1/3 with round: 2). Default: none; 0.083 is not 1/12"),
  percent: z.enum(["strict", "fraction"]).optional().describe("strict (default): 28% equals 28 only; fraction: 28% also equals 0.28"),
  extract: z.enum(["auto", "boxed", "none"]).optional().describe("Where the response's answer is: auto (boxed, 'final answer is', '####', 'Answer:', last formula or number), boxed only, or the whole text"),
  decimal_comma: z.enum(["auto", "always", "never"]).optional().describe("Read '12,5' as 12.5: auto when the other side is one number (default); '1,234' is always 1234"),
  timeout_ms: z.number().int().positive().max(10_000).optional().describe("Time limit per comparison (default 200 ms of its own work: a machine too busy to run it gets more wall-clock time); past it the answer counts as wrong"),
});
export type MathSpec = z.infer<typeof MathSpec>;

export const mathCheck = defineCheck<MathSpec>({
  key: "math",
  spec: MathSpec,
  summary: "final answer mathematically equal to a reference (fractions, radicals, sets, intervals, equations, units)",
  run(spec, { text, sample }) {
    const reference = typeof spec.expected === "number" ? String(spec.expected) : renderTemplate(spec.expected, sample);
    // An empty reference is missing data, not an answer every response fails.
    if (reference.trim() === "") throw new RubricateError("MISSING_INPUT", `math: the reference answer ${JSON.stringify(spec.expected)} is empty for this sample`);
    const verdict = mathEquivalent(text, reference, { tolerance: spec.tolerance, round: spec.round, percent: spec.percent, extract: spec.extract, decimalComma: spec.decimal_comma, timeoutMs: spec.timeout_ms });
    if (verdict.problem === "no-answer") return { pass: false, reasoning: `no final answer found (expected ${short(verdict.reference)})` };
    if (verdict.problem === "timeout") return { pass: false, reasoning: `the comparison computed past ${spec.timeout_ms ?? 200} ms; counted as not equal` };
    return {
      pass: verdict.equivalent,
      reasoning: verdict.equivalent ? `answer ${short(verdict.answer!)} equals ${short(verdict.reference)}` : `answer ${short(verdict.answer!)}, expected ${short(verdict.reference)}`,
    };
  },
});

const short = (s: string, n = 80) => JSON.stringify(s.length > n ? `${s.slice(0, n)}…` : s);
