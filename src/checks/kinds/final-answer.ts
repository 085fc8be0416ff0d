/**
 * `final_answer`: the response states a final answer in a form a grader reads: `\\boxed{…}`,
 * an "Answer: …" line, or GSM8K's "#### n".
 *
 * rubric:  check: { final_answer: { format: boxed } }
 */
import * as z from "zod";
import { stripInvisible } from "../../text/invisible.js";
import { extractAnswer, lastBoxed, matchingBrace } from "../math/extract.js";
import { defineCheck } from "../kind.js";

export const FinalAnswerSpec = z.strictObject({
  format: z.enum(["any", "boxed", "line", "gsm8k"]).optional().describe("any (default): \\boxed{…}, a 'Final answer: …' line or '#### …'; boxed; line; gsm8k ('#### n')"),
});
export type FinalAnswerSpec = z.infer<typeof FinalAnswerSpec>;

// "Answer: …" / "Final answer is …" at the start of a line, or "the (final) answer is …" in a sentence.
const ANSWER_LINE = /^\s*(?:\*\*)?(?:the\s+)?(?:final\s+answer|answer)(?:\*\*)?(?:\s+is\b|\s*[:：])(?:\*\*)?[ \t]*(.*)$/gim;
const ANSWER_SENTENCE = /\bthe\s+(?:final\s+)?answer\s+is\b\s*:?[ \t]*(.*)$/gim;
const GSM8K_LINE = /^####\s*(.*)$/gm;

/**
 * Words that open a statement about the answer, not an answer: "the final answer is hard to
 * find", "Answer is unclear to me", "the answer is that we cannot know". Such prose must not
 * earn the format reward.
 */
const NOT_AN_ANSWER = /^(?:not\b|no\b|none\b|unclear|unknown|uncertain|n\/a\b|tbd\b|tba\b|idk\b|i\s+(?:do\s+not|don['’]t|am\s+not|cannot|can['’]t)\b|i['’]m\s+not\b|cannot\b|can['’]t\b|unable\b|unsure\b|indeterminate|insufficient|(?:it\s+)?depends\b|see\b|various\b|varies\b|undetermined|undefined|hard|difficult|tricky|elusive|impossible|ambiguous|beyond|too\b|still|yet\b|probably|likely|perhaps|maybe|somewhere|something|that\b|this\b|because|as follows|below|above|given|obvious|trivial|simple|easy|open\b|to be\b|being\b|what\b|which\b|whatever|hidden|missing|left\b|in\b|on\b|at\b|about\b|where\b|when\b|why\b|how\b)/i;

/** LaTeX that typesets as blank: spacing commands, `~`, `\\`, `\phantom{…}`, `\hspace{…}`. */
const LATEX_SPACE = /\\(?:q?quad|enspace|thinspace|medspace|thickspace|negthinspace|nobreakspace|space)(?![a-zA-Z])|\\[,;:! \\]|~/g;
const LATEX_BLANK_ARG = /\\(?:[hv]?phantom|[hv]space\*?)\s*\{/g;

/**
 * True when a box's or an answer line's content shows nothing once typeset: white space,
 * invisible characters (text/invisible.ts), LaTeX spacing, `\phantom{42}`, empty groups
 * (`{}`, `\text{ }`) and math delimiters (`$\,$`). `\boxed{\quad}` is an empty box.
 */
export function showsNothing(content: string): boolean {
  let text = stripInvisible(content);
  for (let m = LATEX_BLANK_ARG.exec(text); m; m = LATEX_BLANK_ARG.exec(text)) {
    const end = matchingBrace(text, m.index + m[0].length - 1);
    if (end === -1) break;
    text = text.slice(0, m.index) + text.slice(end + 1);
    LATEX_BLANK_ARG.lastIndex = m.index;
  }
  LATEX_BLANK_ARG.lastIndex = 0;
  text = text.replace(LATEX_SPACE, " ").replace(/\$|\\[()[\]]/g, " ");
  for (let before = ""; before !== text; ) {
    before = text;
    text = text.replace(/\\[a-zA-Z]+\*?\s*\{\s*\}|\{\s*\}/g, " ");
  }
  return text.trim() === "";
}

/**
 * The content after an answer phrase when it is an answer, not prose about one: something
 * visible with a letter, digit or symbol in it ("Answer: -" and "#### ." state nothing).
 */
function answerContent(content: string): string | undefined {
  const text = content.replace(/^[*_\s]+/, "").trim();
  if (showsNothing(text) || /^[.…!?,;]/.test(text) || NOT_AN_ANSWER.test(text) || !/[\p{L}\p{N}\p{S}]/u.test(stripInvisible(text))) return undefined;
  return text;
}

/** True when a box's content states something: visible, with a letter, digit or symbol (`\boxed{?}` states nothing). */
const boxStates = (boxed: string | undefined) => boxed !== undefined && !showsNothing(boxed) && /[\p{L}\p{N}\p{S}]/u.test(stripInvisible(boxed));

/** True when the text has a GSM8K "#### …" line whose content is an answer. */
const gsm8kAnswer = (text: string) => [...text.matchAll(GSM8K_LINE)].some((m) => answerContent(m[1]) !== undefined);

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
    ["final-answer-blank-box", "a box that typesets empty (LaTeX spacing, a phantom, a zero-width space)", "So the result is \\boxed{\\quad\\phantom{42}\u200B}.", ["any", "boxed"]],
    ["final-answer-invisible-line", "an 'Answer:' line holding only an invisible character", "Answer: \u2800", ["any", "line"]],
    ["final-answer-punctuation-gsm8k", "a '####' marker followed by punctuation only", "Work shown above.\n#### .", ["any", "gsm8k"]],
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
      format === "boxed" ? (boxStates(boxed) ? "\\boxed{…}" : undefined)
      : format === "gsm8k" ? (gsm8kAnswer(tail) ? "#### line" : undefined)
      : format === "line" ? (answerPhrase(tail, false) !== undefined ? "answer line" : undefined)
      : boxStates(boxed) ? "\\boxed{…}" : gsm8kAnswer(tail) ? "#### line" : answerPhrase(tail, true) !== undefined ? "answer line" : undefined;
    if (!found) return { pass: false, reasoning: `no final answer in the ${format === "any" ? "expected" : format} form` };
    const answer = format === "any" || format === "boxed" ? extractAnswer(tail, format === "boxed" ? "boxed" : "auto") : undefined;
    return { pass: true, reasoning: `final answer given (${found}${answer ? `: ${JSON.stringify(answer.slice(0, 60))}` : ""})` };
  },
});
