/**
 * `final_answer`: the response states a final answer in a form a grader reads: `\\boxed{…}`,
 * an "Answer: …" line, or GSM8K's "#### n".
 *
 * rubric:  check: { final_answer: { format: boxed } }
 */
import * as z from "zod";
import { stripInvisible } from "../../text/invisible.js";
import { extractAnswer, GSM8K, gsm8kValue, lastBoxedAt, matchingBrace } from "../math/extract.js";
import { defineCheck } from "../kind.js";
import { undisguisedOnce } from "../memo.js";

export const FinalAnswerSpec = z.strictObject({
  format: z.enum(["any", "boxed", "line", "gsm8k"]).optional().describe("any (default): \\boxed{…}, a 'Final answer: …' line or '#### …'; boxed; line; gsm8k ('#### n')"),
});
export type FinalAnswerSpec = z.infer<typeof FinalAnswerSpec>;

/**
 * "Answer: …" / "Final answer is …" at the start of a line: a label when a colon follows the word
 * (group 1 holds the joiner, group 2 the content), a sentence when "is" does.
 */
const ANSWER_LINE = /^\s*(?:\*\*)?(?:the\s+)?(?:final\s+answer|answer)(?:\*\*)?(\s+is\b|\s*[:：])(?:\*\*)?[ \t]*(.*)$/gim;
/**
 * "the (final) answer is" in a sentence. The match is the phrase alone: its content runs to the
 * next such phrase or the line's end (statements), so each phrase of a line is read ("I don't think
 * the answer is 8. The answer is 7." states 7), and the line is read once.
 */
const ANSWER_SENTENCE = /\bthe\s+(?:final\s+)?answer\s+is\b\s*:?[ \t]*/gi;

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
 * negation, a doubt or an "if" ("no doubt", "beyond doubt", "not hard to see", "doesn't matter",
 * "if I'm not mistaken"), so theirs is not read; then what ends a clause (`. , ; : ! ?`, "but",
 * "so", "thus", "hence", "therefore"); then a line break, which ends the clause only where it ends
 * a sentence (clauseEndsAt); then the words that deny, doubt or suppose what follows them ("not",
 * "don't", "never", "no", "doubt", "unsure", "wonder", "if", "suppose", "assuming", "whether"). Each
 * alternative starts at a word's edge, a mark or a line break and holds only words and single
 * `\s+` between them: one linear scan.
 */
const AFFIRMING = String.raw`\bno\s+(?:doubt|matter)\b|\b(?:without|beyond)\s+(?:a\s+|any\s+)?doubt\b|(?:\bnot|n['’]t)\s+(?:hard|difficult|surprising(?:ly)?|matter)\b|\b(?:if|unless)\s+(?:i['’]m|i\s+am)\s+(?:not\s+)?mistaken\b`;
const CLAUSE_END = String.raw`[.,;:!?]|\b(?:but|so|thus|hence|therefore)\b`;
const DOUBTING = String.raw`\b(?:not|never|cannot|nobody|neither|nor|no|hardly|doubts?|doubted|doubtful|unsure|uncertain|unclear|unlikely|wonder(?:s|ed|ing)?|if|unless|whether|suppos(?:e|es|ed|ing)|assum(?:e|es|ed|ing)|hypothetically)\b|n['’]t\b`;
const CLAUSE_MARKS = new RegExp(`(${AFFIRMING})|(${CLAUSE_END})|(\\n)|${DOUBTING}`, "gi");

/**
 * After a line break, what ends the sentence before it: a blank line (or the text's end), or a line
 * that opens a block of its own (a list item, a heading, a quote, a table row, a fence, display
 * math). Otherwise the break is a soft one, which a page shows as a space: "I don't think\nthe
 * answer is 7" is one sentence. Sticky, from the break: each line's start is read once.
 */
const BLANK_OR_BLOCK = /[^\S\n]*(?:\n|$|[-*+][^\S\n]|\d{1,9}[.)][^\S\n]|#{1,6}(?=\s|$)|>|\||`{3}|~{3}|\$\$|\\\[)/y;
/** A line that is a block of its own: a heading (from the line's start, sticky). */
const HEADING = /[^\S\n]*#{1,6}(?=\s|$)/y;
/** The end of a line that closes display math or a table row (`$$`, `\]`, `|`): read on the line's last characters only. */
const BLOCK_END = /(?:\$\$|\\\]|\|)[^\S\n]*$/;

/** True when the line break at `at` (its line starting at `lineStart`) ends a sentence. */
function clauseEndsAt(text: string, at: number, lineStart: number): boolean {
  BLANK_OR_BLOCK.lastIndex = at + 1;
  HEADING.lastIndex = lineStart;
  return BLANK_OR_BLOCK.test(text) || HEADING.test(text) || BLOCK_END.test(text.slice(Math.max(lineStart, at - 64), at));
}

/**
 * Where sentences end, for telling a question: `. ! ?` before white space or the text's end, or a
 * line break ("The answer is 7\nIs that right?" states 7; "Could it be that the answer is 7?"
 * asks it).
 */
const SENTENCE_END = /[.!?](?=\s|$)|\n/g;

/** An answer statement: where its phrase starts and ends, and its content. */
interface Statement {
  index: number;
  end: number;
  content: string;
}

/**
 * The answer statements of a text that its clauses leave standing, and whether its last box (when
 * given) is doubted. A statement is a "the answer is" sentence, or an "Answer is …" line; it
 * stands unless its clause denies, doubts or supposes it before the phrase ("I don't think the
 * answer is 7", "If the answer is 7, …"; the clause may reach across a soft line break) or its
 * sentence is a question ("Could it be that the answer is 7?"). A label line ("Answer: 7") is no
 * sentence and always stands. A box is doubted when it sits in the clause of a doubted statement
 * ("I don't think the answer is \boxed{7}") or its sentence is a question ("Is the answer
 * \boxed{7}?"). One pass over the clause marks, in step with the statements and the box: testing
 * each statement's prefix again would be quadratic in the text.
 */
function readStatements(text: string, box?: { start: number; end: number }, cut = false): { sentences: Statement[]; lines: Statement[]; boxDoubted: boolean } {
  type Event = { at: number; end: number; content: string; kind: "sentence" | "line" | "label" | "box" };
  const events: Event[] = [];
  // A phrase's content ends at the next phrase or the line's end; the line's end is looked for
  // again only past the last one found, and each content is cut once: a line of phrases is read once.
  const phrases = [...text.matchAll(ANSWER_SENTENCE)];
  let lineEnd = -1;
  phrases.forEach((m, i) => {
    const end = m.index + m[0].length;
    if (lineEnd < end) {
      lineEnd = text.indexOf("\n", end);
      if (lineEnd === -1) lineEnd = text.length;
    }
    events.push({ at: m.index, end, content: text.slice(end, Math.max(end, Math.min(lineEnd, phrases[i + 1]?.index ?? lineEnd))), kind: "sentence" });
  });
  for (const m of text.matchAll(ANSWER_LINE)) {
    const at = m.index + /^\s*/.exec(m[0])![0].length;
    events.push({ at, end: m.index + m[0].length - m[2].length, content: m[2], kind: /[:：]/.test(m[1]) ? "label" : "line" });
  }
  if (box) events.push({ at: box.start, end: box.end, content: "", kind: "box" });
  events.sort((a, b) => a.at - b.at);

  const ends = [...text.matchAll(SENTENCE_END)];
  const asks = (from: number) => {
    let [lo, hi] = [0, ends.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid].index < from) lo = mid + 1;
      else hi = mid;
    }
    return lo < ends.length && ends[lo][0] === "?";
  };

  const marks = [...text.matchAll(CLAUSE_MARKS)];
  const result = { sentences: [] as Statement[], lines: [] as Statement[], boxDoubted: false };
  let next = 0;
  let skipUntil = 0;
  let lineStart = 0;
  // A tail cut from a longer text may start inside a doubted clause: its first clause states nothing.
  let doubted = cut;
  let answerDoubted = false;
  for (const event of events) {
    for (; next < marks.length && marks[next].index + marks[next][0].length <= event.at; next++) {
      const [, affirming, clauseEnd, newline] = marks[next];
      const at = marks[next].index;
      if (newline !== undefined) {
        const ends = clauseEndsAt(text, at, lineStart);
        lineStart = at + 1;
        if (!ends) continue;
      }
      // A mark inside an answer's phrase ("the answer is:") ends no clause.
      if (at < skipUntil) continue;
      if (clauseEnd !== undefined || newline !== undefined) [doubted, answerDoubted] = [false, false];
      else if (affirming === undefined) doubted = true;
    }
    if (event.kind === "box") {
      result.boxDoubted = answerDoubted || asks(event.end);
      continue;
    }
    skipUntil = Math.max(skipUntil, event.end);
    const statement = { index: event.at, end: event.end, content: event.content };
    if (event.kind === "label") {
      // A label opens a statement of its own, whatever the line before it says.
      [doubted, answerDoubted] = [false, false];
      result.lines.push(statement);
      continue;
    }
    const stands = !doubted && !asks(event.end);
    if (!stands) answerDoubted = true;
    else (event.kind === "sentence" ? result.sentences : result.lines).push(statement);
  }
  return result;
}

/**
 * The "the answer is …" sentences of a text that state their answer, not those in a clause that
 * denies, doubts or supposes it ("I don't think the answer is 7", "I'm not sure the answer is 7",
 * "If the answer is 7, …"), nor those in a question: "I think the answer is 7" and "No, the answer
 * is 7" state it. See readStatements.
 */
export function statedAnswerSentences(text: string): Statement[] {
  return readStatements(text).sentences;
}

/** What a text's tail states, read once: its statements (readStatements), and its last box unless that sits in a doubted statement or a question. */
interface Stated {
  read: ReturnType<typeof readStatements>;
  box: string | undefined;
}

function statedIn(text: string, cut: boolean): Stated {
  const box = lastBoxedAt(text);
  const read = readStatements(text, box, cut);
  return { read, box: box === undefined || read.boxDoubted ? undefined : box.content };
}

/** The last answer line (or, with `sentences`, sentence) whose content is an answer. */
function answerPhrase({ read }: Stated, sentences: boolean): string | undefined {
  const hits = [...read.lines, ...(sentences ? read.sentences : [])].sort((a, b) => a.index - b.index);
  return hits.map((m) => answerContent(m.content)).filter((c) => c !== undefined).at(-1);
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
    ["final-answer-negated-box", "a \\boxed{} answer inside a sentence that doubts it", "I don't think the answer is \\boxed{7}.", ["any", "boxed"]],
    ["final-answer-negated-line-break", "a doubt that reaches 'the answer is' across a line break in its sentence", "I don't think\nthe answer is 7.", ["any", "line"]],
    ["final-answer-conditional", "'the answer is' supposed in a condition, not stated", "If the answer is 7, then the sum is 10.", ["any"]],
    ["final-answer-question", "'the answer is' asked in a question, not stated", "Could it be that the answer is 7?", ["any"]],
    ["final-answer-hidden-box", "a \\boxed{} answer inside an element a page hides, beside prose that states none", "I could not solve it.<span hidden>So the result is \\boxed{7}.</span>", ["any", "boxed"]],
    ["final-answer-hidden-gsm8k", "a '####' line inside an HTML comment, beside prose that states none", "I could not solve it.\n<!--\n#### 7\n-->", ["any", "gsm8k"]],
    ["final-answer-hidden-line", "an 'Answer:' line inside an element a page hides, beside prose that states none", "I could not solve it.\n<div style=\"display:none\">\nAnswer: 7\n</div>", ["any", "line"]],
  ].map(([id, description, response, formats]) => ({
    id: id as string,
    description: description as string,
    build: (spec: FinalAnswerSpec) => ((formats as string[]).includes(spec.format ?? "any") ? { response: response as string } : undefined),
  })),
  run(spec, { text, memo }) {
    const format = spec.format ?? "any";
    // The answer a reader gets (text/markup.ts): one inside an HTML comment or a hidden element is
    // no stated answer, and `Answer&#58; 7` shows "Answer: 7".
    const page = undisguisedOnce(text, memo);
    const tail = page.slice(-8000);
    const cut = tail.length < page.length;
    // Read on first need, once for the box and the phrases (a gsm8k line needs neither).
    let read: Stated | undefined;
    const stated = () => (read ??= statedIn(tail, cut));
    const found =
      format === "boxed" ? (boxStates(stated().box) ? "\\boxed{…}" : undefined)
      : format === "gsm8k" ? (gsm8kAnswer(tail) ? "#### line" : undefined)
      : format === "line" ? (answerPhrase(stated(), false) !== undefined ? "answer line" : undefined)
      : boxStates(stated().box) ? "\\boxed{…}" : gsm8kAnswer(tail) ? "#### line" : answerPhrase(stated(), true) !== undefined ? "answer line" : undefined;
    if (!found) return { pass: false, reasoning: `no final answer in the ${format === "any" ? "expected" : format} form` };
    const answer = format === "any" || format === "boxed" ? extractAnswer(tail, format === "boxed" ? "boxed" : "auto") : undefined;
    return { pass: true, reasoning: `final answer given (${found}${answer ? `: ${JSON.stringify(answer.slice(0, 60))}` : ""})` };
  },
});
