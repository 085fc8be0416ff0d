/**
 * The settings of the `math` kind, apart from the comparison that runs it (check.ts), so the table
 * of kinds and the rubric schema load without the reader, LaTeX and the comparer.
 */
import * as z from "zod";

export const MathSpec = z.strictObject({
  expected: z.union([z.string().min(1), z.number()]).describe("The reference answer (LaTeX or plain), or a {{variable}} holding it; a GSM8K solution ending in '#### n' works as is"),
  tolerance: z.number().nonnegative().max(1).optional().describe("Relative tolerance for numbers (default 1e-9: a float error, not a rounding)"),
  round: z.number().int().min(0).max(12).optional().describe("Opt-in rounding: numbers equal when they agree rounded to this many decimals (0.33 = 1/3 with round: 2). Default: none; 0.083 is not 1/12"),
  percent: z.enum(["strict", "fraction"]).optional().describe("strict (default): 28% equals 28 only; fraction: 28% also equals 0.28"),
  extract: z.enum(["auto", "boxed", "none"]).optional().describe("Where the response's answer is: auto (boxed, 'final answer is', '####', 'Answer:', last formula or number), boxed only, or the whole text"),
  decimal_comma: z.enum(["auto", "always", "never"]).optional().describe("Read '12,5' as 12.5: auto when the other side is one number (default); '1,234' is always 1234"),
  timeout_ms: z.number().int().positive().max(10_000).optional().describe("Time limit for reading and comparing a formula (default 200 ms of its own work: a machine too busy to run it gets more wall-clock time); past it the answer counts as wrong. Plain numbers are compared without it"),
});
export type MathSpec = z.infer<typeof MathSpec>;
