/**
 * `final_answer`: the response states a final answer in a form a grader reads: `\\boxed{…}`,
 * an "Answer: …" line, or GSM8K's "#### n".
 *
 * rubric:  check: { final_answer: { format: boxed } }
 */
import { z } from "zod";
import { extractAnswer, lastBoxed } from "../math/extract.js";
import { defineCheck } from "../kind.js";

export const FinalAnswerSpec = z.strictObject({
  format: z.enum(["any", "boxed", "line", "gsm8k"]).optional().describe("any (default): \\boxed{…}, a 'Final answer: …' line or '#### …'; boxed; line; gsm8k ('#### n')"),
});
export type FinalAnswerSpec = z.infer<typeof FinalAnswerSpec>;

const ANSWER_LINE = /^\s*(?:\*\*)?(?:final answer|answer)(?:\*\*)?(?:\s+is\b|\s*[:：])(?:\*\*)?\s*\S/im;
const GSM8K_LINE = /^####\s*\S/m;

export const finalAnswer = defineCheck<FinalAnswerSpec>({
  key: "final_answer",
  spec: FinalAnswerSpec,
  summary: "states a final answer in the expected form (\\boxed{}, an 'Answer:' line, '#### n')",
  tag: true,
  gradesAnswer: true,
  run(spec, { text }) {
    const format = spec.format ?? "any";
    const tail = text.slice(-8000);
    const boxed = lastBoxed(tail);
    const found =
      format === "boxed" ? (boxed !== undefined && boxed.trim() !== "" ? "\\boxed{…}" : undefined)
      : format === "gsm8k" ? (GSM8K_LINE.test(tail) ? "#### line" : undefined)
      : format === "line" ? (ANSWER_LINE.test(tail) ? "answer line" : undefined)
      : boxed !== undefined && boxed.trim() !== "" ? "\\boxed{…}" : GSM8K_LINE.test(tail) ? "#### line" : ANSWER_LINE.test(tail) || /final answer is\s*\S/i.test(tail) ? "answer line" : undefined;
    if (!found) return { pass: false, reasoning: `no final answer in the ${format === "any" ? "expected" : format} form` };
    const answer = format === "any" || format === "boxed" ? extractAnswer(tail, format === "boxed" ? "boxed" : "auto") : undefined;
    return { pass: true, reasoning: `final answer given (${found}${answer ? `: ${JSON.stringify(answer.slice(0, 60))}` : ""})` };
  },
});
