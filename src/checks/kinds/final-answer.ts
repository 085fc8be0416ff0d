/**
 * `final_answer`: the response states a final answer in a form a grader reads: `\\boxed{…}`,
 * an "Answer: …" line, or GSM8K's "#### n".
 *
 * rubric:  check: { final_answer: { format: boxed } }
 */
import * as z from "zod";
import { extractAnswer, lastBoxed } from "../math/extract.js";
import { defineCheck } from "../kind.js";

export const FinalAnswerSpec = z.strictObject({
  format: z.enum(["any", "boxed", "line", "gsm8k"]).optional().describe("any (default): \\boxed{…}, a 'Final answer: …' line or '#### …'; boxed; line; gsm8k ('#### n')"),
});
export type FinalAnswerSpec = z.infer<typeof FinalAnswerSpec>;

// "Answer: …" / "Final answer is …" at the start of a line, or "the (final) answer is …" in a sentence.
const ANSWER_LINE = /^\s*(?:\*\*)?(?:the\s+)?(?:final\s+answer|answer)(?:\*\*)?(?:\s+is\b|\s*[:：])(?:\*\*)?[ \t]*(.*)$/gim;
const ANSWER_SENTENCE = /\bthe\s+(?:final\s+)?answer\s+is\b\s*:?[ \t]*(.*)$/gim;
const GSM8K_LINE = /^####\s*\S/m;

/**
 * Words that open a statement about the answer, not an answer: "the final answer is hard to
 * find", "Answer is unclear to me", "the answer is that we cannot know". Such prose must not
 * earn the format reward.
 */
const NOT_AN_ANSWER = /^(?:not\b|no\b|none\b|unclear|unknown|uncertain|undetermined|undefined|hard|difficult|tricky|elusive|impossible|ambiguous|beyond|too\b|still|yet\b|probably|likely|perhaps|maybe|somewhere|something|that\b|this\b|because|as follows|below|above|given|obvious|trivial|simple|easy|open\b|to be\b|being\b|what\b|which\b|whatever|hidden|missing|left\b|in\b|on\b|at\b|about\b|where\b|when\b|why\b|how\b)/i;

/** The content after an answer phrase when it is an answer, not prose about one. */
function answerContent(content: string): string | undefined {
  const text = content.replace(/^[*_\s]+/, "").trim();
  if (text === "" || /^[.…!?,;]/.test(text) || NOT_AN_ANSWER.test(text)) return undefined;
  return text;
}

/** The last answer line or sentence in the text whose content is an answer. */
function answerPhrase(text: string, sentences: boolean): string | undefined {
  const hits = [...text.matchAll(ANSWER_LINE), ...(sentences ? text.matchAll(ANSWER_SENTENCE) : [])].sort((a, b) => a.index - b.index);
  return hits.map((m) => answerContent(m[1])).filter((c) => c !== undefined).at(-1);
}

export const finalAnswer = defineCheck<FinalAnswerSpec>({
  key: "final_answer",
  spec: FinalAnswerSpec,
  summary: "states a final answer in the expected form (\\boxed{}, an 'Answer:' line, '#### n')",
  tag: true,
  gradesAnswer: true,
  hacks: [
    ["final-answer-prose-hard", "prose about the answer where the answer should be", "Finding the final answer is hard…", ["any"]],
    ["final-answer-prose-unclear", "an 'Answer' line that states no answer", "Answer is unclear to me.", ["any", "line"]],
    ["final-answer-prose-that", "'the answer is' followed by a non-answer", "I tried several approaches. The answer is that it cannot be determined from this.", ["any"]],
    ["final-answer-empty-box", "an empty \\boxed{}", "So the result is \\boxed{ }.", ["any", "boxed"]],
    ["final-answer-empty-line", "an 'Answer:' line with nothing after it", "Answer:\n", ["any", "line"]],
    ["final-answer-empty-gsm8k", "a '####' marker with nothing after it", "Work shown above.\n####", ["any", "gsm8k"]],
  ].map(([id, description, response, formats]) => ({
    id: id as string,
    description: description as string,
    build: (spec: FinalAnswerSpec) => ((formats as string[]).includes(spec.format ?? "any") ? { response: response as string } : undefined),
  })),
  run(spec, { text }) {
    const format = spec.format ?? "any";
    const tail = text.slice(-8000);
    const boxed = lastBoxed(tail);
    const found =
      format === "boxed" ? (boxed !== undefined && boxed.trim() !== "" ? "\\boxed{…}" : undefined)
      : format === "gsm8k" ? (GSM8K_LINE.test(tail) ? "#### line" : undefined)
      : format === "line" ? (answerPhrase(tail, false) !== undefined ? "answer line" : undefined)
      : boxed !== undefined && boxed.trim() !== "" ? "\\boxed{…}" : GSM8K_LINE.test(tail) ? "#### line" : answerPhrase(tail, true) !== undefined ? "answer line" : undefined;
    if (!found) return { pass: false, reasoning: `no final answer in the ${format === "any" ? "expected" : format} form` };
    const answer = format === "any" || format === "boxed" ? extractAnswer(tail, format === "boxed" ? "boxed" : "auto") : undefined;
    return { pass: true, reasoning: `final answer given (${found}${answer ? `: ${JSON.stringify(answer.slice(0, 60))}` : ""})` };
  },
});
