/**
 * `number`: the answer number in the text is within a tolerance of an expected value. Which
 * number is the answer, and how a written number reads (thousands separators, decimal commas):
 * ../number.ts.
 *
 * rubric:  check: { number: { expected: "{{answer}}", tolerance: 0.01, relative: true } }
 */
import * as z from "zod";
import { RubricateError } from "../../errors.js";
import { renderTemplate } from "../../text/template.js";
import { referenceCases } from "../hacks.js";
import { defineCheck } from "../kind.js";
import { undisguisedOnce } from "../memo.js";
import { extractNumber, parseNumber } from "../number.js";

export const NumberSpec = z.strictObject({
  expected: z.union([z.number(), z.string()]).describe("A number, or a {{variable}} holding one"),
  tolerance: z.number().nonnegative().optional(),
  relative: z.boolean().optional(),
  pick: z.enum(["last", "first", "boxed"]).optional().describe("Which number in the text is the answer (default: boxed if any, else last)"),
});
export type NumberSpec = z.infer<typeof NumberSpec>;

export const number = defineCheck<NumberSpec>({
  key: "number",
  spec: NumberSpec,
  summary: "the answer number (boxed, else last) within a tolerance of an expected value",
  pure: true,
  gradesAnswer: true,
  // A wrong answer written with the reference's digits under an operation (each read as 12 before).
  hacks: referenceCases<NumberSpec>(
    [
      { id: "number-power", description: "the reference's digits under a power", reference: "12", response: "\\boxed{12^{2}}" },
      { id: "number-root", description: "the square root of the reference", reference: "12", response: "\\boxed{\\sqrt{12}}" },
      { id: "number-factorial", description: "the reference's factorial", reference: "12", response: "\\boxed{12!}" },
    ],
    (spec) => spec.expected,
  ),
  fix(_spec, { criterionId, category }) {
    if (category === "hedge") return `Code check "${criterionId}" reads one number (the last \\boxed{}, else the last number) from a text that may list several candidates, so hedging with the right one last wins: set \`pick: boxed\` and add a required code check that allows exactly one boxed answer, e.g. \`check: { regex: '^(?![\\s\\S]*\\\\boxed[\\s\\S]*\\\\boxed)[\\s\\S]*\\\\boxed\\{' }\`, or a pitfall question "Does the response give more than one candidate final answer?".`;
    return `Code check "${criterionId}" reads a number anywhere in the text, so ${category === "keywords" ? "a meaningless string that ends with the right number" : "a response without working"} collects its points: set \`pick: boxed\`, and if the pass threshold can be reached by this check alone, raise \`pass_threshold\` above its share or make the working criteria required.`;
  },
  run(spec, { text, sample, memo }) {
    const expected = typeof spec.expected === "number" ? spec.expected : parseNumber(renderTemplate(spec.expected, sample));
    if (Number.isNaN(expected)) throw new RubricateError("CHECK_FAILED", `expected value ${JSON.stringify(spec.expected)} is not a number`);
    // The number a reader gets (text/markup.ts): one inside an HTML comment or a hidden element is none.
    const actual = extractNumber(undisguisedOnce(text, memo), spec.pick);
    if (actual === undefined) return { pass: false, reasoning: "no number found in the response" };
    if (Number.isNaN(actual)) return { pass: false, reasoning: "the boxed answer is not one number (several different numbers, a ±, a hedging word, or an operation on a number such as a logarithm)" };
    const tolerance = spec.tolerance ?? 1e-6;
    const allowed = spec.relative ? tolerance * Math.abs(expected) : tolerance;
    const pass = Math.abs(actual - expected) <= allowed;
    return { pass, reasoning: pass ? `answer ${actual} matches ${expected}` : `answer ${actual}, expected ${expected}` };
  },
});
