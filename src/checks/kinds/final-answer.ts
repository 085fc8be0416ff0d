/**
 * `final_answer`: the response states a final answer in a form a grader reads: `\\boxed{…}`,
 * an "Answer: …" line, or GSM8K's "#### n".
 *
 * rubric:  check: { final_answer: { format: boxed } }
 */
import * as z from "zod";
import { stripInvisible } from "../../text/invisible.js";
import { extractAnswer, GSM8K, gsm8kValue, lastBoxed, matchingBrace } from "../math/extract.js";
import { defineCheck } from "../kind.js";

export const FinalAnswerSpec = z.strictObject({
  format: z.enum(["any", "boxed", "line", "gsm8k"]).optional().describe("any (default): \\boxed{…}, a 'Final answer: …' line or '#### …'; boxed; line; gsm8k ('#### n')"),
});
export type FinalAnswerSpec = z.infer<typeof FinalAnswerSpec>;

// "Answer: …" / "Final answer is …" at the start of a line, or "the (final) answer is …" in a sentence.
const ANSWER_LINE = /^\s*(?:\*\*)?(?:the\s+)?(?:final\s+answer|answer)(?:\*\*)?(?:\s+is\b|\s*[:：])(?:\*\*)?[ \t]*(.*)$/gim;
const ANSWER_SENTENCE = /\bthe\s+(?:final\s+)?answer\s+is\b\s*:?[ \t]*(.*)$/gim;

/**
 * Words that open a statement about the answer, not an answer: "the final answer is hard to
 * find", "Answer is unclear to me", "the answer is that we cannot know". Such prose must not
 * earn the format reward.
 */
const NOT_AN_ANSWER = /^(?:not\b|no\b(?![\s.!]*$)|none\b|sorry\b|todo\b|fixme\b|xxx\b|your\b|placeholder|insert\b|fill\s+in\b|i\s+have\s+no\b|no\s+idea|i\s+(?:could|would|will)\s+not\b|i\s+(?:couldn|wouldn|won)['’]t\b|unclear|unknown|uncertain|n\/a\b|tbd\b|tba\b|idk\b|i\s+(?:do\s+not|don['’]t|am\s+not|cannot|can['’]t)\b|i['’]m\s+not\b|cannot\b|can['’]t\b|unable\b|unsure\b|indeterminate|insufficient|(?:it\s+)?depends\b|see\b|various\b|varies\b|undetermined|undefined|hard|difficult|tricky|elusive|impossible|ambiguous|beyond|too\b|still|yet\b|probably|likely|perhaps|maybe|somewhere|something|that\b|this\b|because|as follows|below|above|given|obvious|trivial|simple|easy|open\b|to be\b|being\b|what\b|which\b|whatever|hidden|missing|left\b|in\b|on\b|at\b|about\b|where\b|when\b|why\b|how\b)/i;

/**
 * LaTeX that typesets as blank: spacing commands (`\enskip`, `\hfill`, `\>`), struts, `~`, `\\`,
 * a kern or skip with its length (`\kern1em`, `\hskip 1em plus 1fil`, `\mkern18mu`), a rule
 * (`\rule{0pt}{0pt}`: a rule is never an answer, even one that shows), a phantom of one token
 * (`\phantom4`).
 */
const LENGTH = String.raw`[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:\s*(?:em|ex|pt|mu|cm|mm|in|bp|pc|sp|dd|cc|px|fil+))?`;
// Each optional part starts with a mandatory token, so no two `\s*` meet: linear on any run of spaces.
const LATEX_SPACE = new RegExp(
  [
    String.raw`\\(?:q?quad|enspace|enskip|thinspace|medspace|thickspace|negthinspace|negmedspace|negthickspace|nobreakspace|space|[hv]fill?|hss|strut|mathstrut|relax|nobreak|allowbreak|newline|linebreak|(?:small|med|big)skip|par)(?![a-zA-Z])`,
    String.raw`\\(?:kern|mkern|hskip|mskip|vskip)[\s{]*${LENGTH}\}?(?:\s*(?:plus|minus)\s*${LENGTH})*`,
    String.raw`\\rule\s*(?:\[[^\]]*\]\s*)?\{[^{}]*\}\s*\{[^{}]*\}`,
    String.raw`\\[hv]?phantom\s*(?:\\[a-zA-Z]+|[^\s{\\])`,
    String.raw`\\[,;:!> \\]|~`,
  ].join("|"),
  "g",
);
const LATEX_BLANK_ARG = /\\(?:[hv]?phantom|[hv]space\*?|smash)\s*\{/g;
/**
 * A colour a reader cannot see on a page: white (`\color{white}{42}`, `#fff`, `#ffff`, `#ffffffff`,
 * `[rgb]{1,1,1}`, `[RGB]{255,255,255}`, `[gray]{1}`) or fully transparent (`transparent`, a hex
 * colour whose alpha is 0: `#0000`, `#12345600`).
 */
const INVISIBLE_COLOR = /\\(?:text)?color\s*(?:\[[^\]]*\]\s*)?\{\s*(?:white|transparent|#?fff(?:f|fff|fffff)?|#[\da-f]{3}0|#[\da-f]{6}00|1\s*,\s*1\s*,\s*1|255\s*,\s*255\s*,\s*255|1)\s*\}\s*/gi;

/**
 * True when a box's or an answer line's content shows nothing once typeset: white space,
 * invisible characters (text/invisible.ts), LaTeX spacing, `\phantom{42}`, empty groups
 * (`{}`, `\text{ }`) and math delimiters (`$\,$`). `\boxed{\quad}` is an empty box.
 */
export function showsNothing(content: string): boolean {
  let text = withoutInvisibleColor(stripInvisible(content));
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
 * Text with what an invisible colour paints removed: its argument (`\color{white}{42}`), or the
 * rest of the group when it is a switch (`\color{white} 42`).
 */
function withoutInvisibleColor(text: string): string {
  for (let m = INVISIBLE_COLOR.exec(text); m; m = INVISIBLE_COLOR.exec(text)) {
    const after = m.index + m[0].length;
    const end = text[after] === "{" ? matchingBrace(text, after) : text.length - 1;
    text = text.slice(0, m.index) + text.slice(end === -1 ? text.length : end + 1);
    INVISIBLE_COLOR.lastIndex = m.index;
  }
  INVISIBLE_COLOR.lastIndex = 0;
  return text;
}

/** Quotes, brackets and dashes before a statement: `"I don't know"`, `(unknown)`, `- I am not sure`, `[your answer]`. */
const LEADING_WRAPPERS = /^[\s"'“”‘’«»„(\[{<\-–—*_:]+/u;

/**
 * The content after an answer phrase when it is an answer, not prose about one: something
 * visible with a letter, digit or symbol in it ("Answer: -" and "#### ." state nothing).
 */
function answerContent(content: string): string | undefined {
  const text = content.replace(/^[*_\s]+/, "").trim();
  if (showsNothing(text) || /^[.…!?,;]/.test(text) || NOT_AN_ANSWER.test(text.replace(LEADING_WRAPPERS, "")) || !/[\p{L}\p{N}\p{S}]/u.test(stripInvisible(text))) return undefined;
  return text;
}

/**
 * Words that, opening a box, say there is no answer: `\boxed{\text{I don't know}}`,
 * `\boxed{\text{N/A}}`. Narrower than NOT_AN_ANSWER: "No", "None", "no solution", "undefined"
 * and "cannot be determined" are answers a problem may have, and are boxed as such.
 */
const NO_ANSWER_IN_BOX = /^(?:unknown|unclear|unsure|uncertain|n\/a\b|tbd\b|tba\b|idk\b|todo\b|fixme\b|xxx\b|sorry\b|your\b|placeholder|insert\b|fill\s+in\b|answer\b|no\s+idea|not\s+sure|i\s+(?:do\s+not|don['’]t|am\s+not|cannot|can['’]t|have\s+no|could\s+not|couldn['’]t)\b|i['’]m\s+not\b|unable\b|\?)/i;
/** LaTeX text wrappers, unwrapped before a box is read: `\text{?}` states what `?` states. */
const TEXT_WRAPPER = /\\(?:text|textrm|textbf|textit|textsf|texttt|textnormal|mbox|mathrm|mathbf|mathit|mathsf|mathtt|operatorname|emph)\s*\{([^{}]*)\}/g;
/** An ellipsis stands for an answer left out: `\boxed{\ldots}` states nothing. */
const ELLIPSIS = /\\(?:[lcvd]?dots[a-z]*)(?![a-zA-Z])|…|\.{3}/g;

/**
 * True when a box's content states something: visible, with a letter, digit or symbol once its
 * text is unwrapped and ellipses dropped (`\boxed{?}`, `\boxed{\text{?}}`, `\boxed{\ldots}` state
 * nothing), and not a statement that there is no answer (`\boxed{\text{I don't know}}`).
 */
function boxStates(boxed: string | undefined): boolean {
  if (boxed === undefined || showsNothing(boxed)) return false;
  const text = stripInvisible(withoutInvisibleColor(boxed)).replace(TEXT_WRAPPER, " $1 ").replace(ELLIPSIS, " ").replace(/\$|\\[()[\]]/g, " ");
  if (showsNothing(text) || !/[\p{L}\p{N}\p{S}]/u.test(text)) return false;
  return !NO_ANSWER_IN_BOX.test(text.replace(LEADING_WRAPPERS, ""));
}

/**
 * True when the text has a GSM8K "#### …" line whose content is an answer: a markdown heading
 * ("#### Step 1: think") is not one (math/extract.ts, gsm8kValue).
 */
const gsm8kAnswer = (text: string) =>
  [...text.matchAll(GSM8K)].some((m) => {
    const value = gsm8kValue(m[1]);
    return value !== undefined && answerContent(value) !== undefined;
  });

/**
 * Before "the answer is", what its clause says of it. First the affirming phrases that hold a
 * negation or a doubt ("no doubt", "beyond doubt", "not hard to see", "doesn't matter"), so theirs
 * is not read; then what ends a clause (`. , ; : ! ?`, a line break, "but", "so", "thus", "hence",
 * "therefore"); then the words that deny or doubt what follows them ("not", "don't", "never", "no",
 * "doubt", "unsure", "wonder"). Each alternative starts at a word's edge or a mark and holds only
 * words and single `\s+` between them: one linear scan.
 */
const AFFIRMING = String.raw`\bno\s+(?:doubt|matter)\b|\b(?:without|beyond)\s+(?:a\s+|any\s+)?doubt\b|(?:\bnot|n['’]t)\s+(?:hard|difficult|surprising(?:ly)?|matter)\b`;
const CLAUSE_END = String.raw`[.,;:!?\n]|\b(?:but|so|thus|hence|therefore)\b`;
const DOUBTING = String.raw`\b(?:not|never|cannot|nobody|neither|nor|no|hardly|doubts?|doubted|doubtful|unsure|uncertain|unclear|unlikely|wonder(?:s|ed|ing)?)\b|n['’]t\b`;
const CLAUSE_MARKS = new RegExp(`(${AFFIRMING})|(${CLAUSE_END})|${DOUBTING}`, "gi");

/**
 * The "the answer is …" sentences of a text that state their answer, not those in a clause that
 * denies or doubts it ("I don't think the answer is 7", "I'm not sure the answer is 7"): "I think
 * the answer is 7" and "No, the answer is 7" state it. One pass over the clause marks, in step
 * with the sentences: testing each sentence's prefix again would be quadratic in the text.
 */
export function statedAnswerSentences(text: string): RegExpExecArray[] {
  const marks = [...text.matchAll(CLAUSE_MARKS)];
  const stated: RegExpExecArray[] = [];
  let next = 0;
  let doubted = false;
  for (const m of text.matchAll(ANSWER_SENTENCE)) {
    for (; next < marks.length && marks[next].index + marks[next][0].length <= m.index; next++) {
      const [, affirming, clauseEnd] = marks[next];
      if (clauseEnd !== undefined) doubted = false;
      else if (affirming === undefined) doubted = true;
    }
    if (!doubted) stated.push(m);
  }
  return stated;
}

/** The last answer line or sentence in the text whose content is an answer. */
function answerPhrase(text: string, sentences: boolean): string | undefined {
  const hits = [...text.matchAll(ANSWER_LINE), ...(sentences ? statedAnswerSentences(text) : [])].sort((a, b) => a.index - b.index);
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
    ["final-answer-negated", "'the answer is' inside a sentence that doubts it", "I don't think the answer is 7.", ["any"]],
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
