/**
 * Where the final answer sits in a worked solution. The formats are the ones math datasets and
 * their graders use: MATH's `\boxed{…}`, "The final answer is …" (Minerva / lm-eval prompts),
 * GSM8K's "#### 72", and "Answer: …" lines; failing those, the last formula or number.
 */

/** How the answer is found: `auto` tries every format in the order above; `none` takes the whole text. */
export type AnswerExtraction = "auto" | "boxed" | "none";

/** The argument of the last `\boxed{…}` or `\fbox{…}` (braces matched), or undefined. */
export function lastBoxed(text: string): string | undefined {
  return lastBoxedAt(text)?.content;
}

/** The last `\boxed{…}` or `\fbox{…}` (see lastBoxed): its argument, and where the box starts and ends in the text. */
export function lastBoxedAt(text: string): { content: string; start: number; end: number } | undefined {
  // From the end, at most a few tries: each unclosed "\boxed{" costs a scan to the end of the text.
  let from = text.length;
  for (let tries = 0; tries < 4; tries++) {
    const at = Math.max(text.lastIndexOf("\\boxed", from), text.lastIndexOf("\\fbox", from));
    if (at === -1) return undefined;
    const start = at + (text.startsWith("\\boxed", at) ? 6 : 5);
    const open = start + (/^\s*/.exec(text.slice(start, start + 16))?.[0].length ?? 0);
    if (text[open] === "{") {
      const end = matchingBrace(text, open);
      if (end !== -1) return { content: text.slice(open + 1, end), start: at, end: end + 1 };
    } else {
      // `\boxed 5` (no braces): the next token.
      const bare = /^[^\s$]+/.exec(text.slice(open, open + 200));
      if (bare && text[start] !== "{") return { content: bare[0], start: at, end: open + bare[0].length };
    }
    from = at - 1;
    if (from < 0) return undefined;
  }
  return undefined;
}

/** The index of the `}` closing the `{` at `open`, or -1. */
export function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

/** Characters read from the end of a response. */
export const TAIL_CHARS = 8000;

const FINAL_ANSWER = /(?:final answer|the answer)(?:\*\*|__)?\s*(?:is|:)\s*:?\s*([^\n]+)/gi;
const ANSWER_LINE = /^\s*(?:\*\*)?answer(?:\*\*)?\s*[:：](?:\*\*)?\s*(.+)$/gim;
/**
 * GSM8K's "#### 72": a `####` opening a line (its content on that line or the next), not a
 * `#####` nor a `####` inside a line. Whether the content is an answer: gsm8kValue.
 */
export const GSM8K = /^[ \t]*####(?!#)[ \t]*(?:\r?\n[ \t]*)?([^\n]*)$/gm;
/**
 * How an answer after `####` starts: a number, a sign, math (`$`, `\`, a bracket), or a lone
 * letter ("x = 5", "B"), never a word: "#### Step 1: Read the problem" is a markdown heading.
 */
const GSM8K_ANSWER_START = /^(?:[-−+±.]?\d|[-−+±$\\([{|√π∞€£¥]|[A-Za-z](?![A-Za-z])(?!\s+[A-Za-z]{2}))/u;
const INLINE_MATH = /\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\]|\\\(([^\n]+?)\\\)|\$((?:\\.|[^$\n\\])+?)\$/g;
const NUMBER = /[-−]?(?:\d{1,3}(?:[,\s]\d{3})+|\d+)(?:[.,]\d+)?(?:\s*\/\s*\d+)?%?/g;

/**
 * The final answer of a solution, as written (not yet normalised). Several boxes count as one
 * answer when only connectives separate them ("\boxed{1} and \boxed{2}"): see boxedAnswer.
 * @example extractAnswer("so $x = \\boxed{\\frac{3}{4}}$.") // "\\frac{3}{4}"
 */
export function extractAnswer(text: string, mode: AnswerExtraction = "auto"): string | undefined {
  if (mode === "none") return text.trim();
  // The answer is at the end; reading only the tail bounds the work on very long outputs.
  if (text.length > TAIL_CHARS) text = text.slice(-TAIL_CHARS);
  const boxed = boxedAnswer(text);
  if (mode === "boxed") return boxed?.answer.trim();
  const phrase = lastPhrase(text);
  // A box, unless a "final answer" phrase comes after it (boxed steps, then "The final answer is $10,455$").
  if (boxed !== undefined && (phrase === undefined || phrase.index < boxed.end)) return boxed.answer.trim();
  if (phrase !== undefined) return trimSentence(innermostPhrase(phrase.value));
  const trimmed = text.trim();
  // A short formula is the answer ("\frac{3}{4}", "(1, 2]", "W(x)=1 or W(x)=-1").
  if (trimmed.length <= 80 && !/\$|\\\(|\\\[/.test(trimmed) && proseWords(trimmed) === 0) return trimmed;
  // Otherwise the last formula, or a number written after it ("… $x = 2$, an increase of 100%.").
  const math = lastMatchAt(text, INLINE_MATH);
  const number = lastMatchAt(text, NUMBER);
  if (math && (!number || number.index < math.end)) return math.value.trim();
  if (number) return number.value.trim();
  return trimmed.length <= 80 && proseWords(trimmed) < 3 ? trimmed : undefined;
}

/**
 * The last answer phrase by position, of "the (final) answer is …", "Answer: …" and GSM8K's
 * "#### n": the answer a solution ends on, whichever way it is written. A `####` heading
 * ("#### Step 2: Multiply") is not one, so it can neither hide a later "Answer:" nor be read.
 */
function lastPhrase(text: string): { value: string; index: number; end: number } | undefined {
  const phrases = [lastMatchAt(text, FINAL_ANSWER), lastGsm8k(text), lastMatchAt(text, ANSWER_LINE)];
  return phrases.reduce((last, p) => (p !== undefined && (last === undefined || p.index > last.index) ? p : last), undefined);
}

/** The content of a "#### …" line when it is an answer (it starts like one, after any `**`), else undefined. */
export function gsm8kValue(content: string): string | undefined {
  const value = stripEmphasis(content);
  return GSM8K_ANSWER_START.test(value) ? value : undefined;
}

/** The last "#### …" line whose content is an answer. */
function lastGsm8k(text: string): { value: string; index: number; end: number } | undefined {
  let last: { value: string; index: number; end: number } | undefined;
  for (const m of text.matchAll(GSM8K)) {
    const value = gsm8kValue(m[1]);
    if (value !== undefined) last = { value, index: m.index, end: m.index + m[0].length };
  }
  return last;
}

/** "**3**", "__3__", "** **3**" → "3": markdown emphasis around an answer is not part of it. */
function stripEmphasis(text: string): string {
  return text.replace(/^(?:\s|\*+|_{2,})+/, "").replace(/(?:\s|\*+|_{2,})+$/, "");
}

/** Words of prose (two letters or more, outside LaTeX commands and \text{}), "and"/"or" aside. */
function proseWords(text: string): number {
  return (stripLatexWords(text.replace(/\\(?:text|begin|end|mathrm|operatorname|textbf|mathbf)\s*\{[^{}]*\}/g, " ").replace(/\b(?:and|or)\b/g, " ")).match(/\b[a-z]{2,}\b/gi) ?? []).length;
}

/** The first non-empty group of the last match of a global regex, with where the match starts and ends. */
function lastMatchAt(text: string, re: RegExp): { value: string; index: number; end: number } | undefined {
  let last: { value: string; index: number; end: number } | undefined;
  for (const m of text.matchAll(re)) last = { value: m.slice(1).find((g) => g !== undefined) ?? m[0], index: m.index, end: m.index + m[0].length };
  return last;
}

/**
 * The answer of a reference: its boxes or "#### n" when it is a worked solution; otherwise, when
 * short and not prose, the whole of it ("$21,16$ or $11$", "$125$ miles", "x_1 = …, \quad x_2 = …");
 * otherwise what a response's answer would be ("We have $x = 3$, so $y = 5$." → "y = 5").
 */
export function extractReference(text: string): string {
  const boxed = boxedAnswer(text);
  if (boxed !== undefined) return boxed.answer.trim();
  const gsm8k = lastGsm8k(text);
  if (gsm8k !== undefined) return trimSentence(gsm8k.value);
  const trimmed = text.trim();
  if (trimmed.length <= 300 && proseWords(trimmed) < 3 && !/(?:final answer|the answer)\s*(?:is|:)/i.test(trimmed)) return trimmed;
  return extractAnswer(text, "auto") ?? trimmed;
}

/** Words that, between two boxes, mean the later box revises the earlier rather than joins it. */
const REVISION = /^(?:then|but|wait|no|not|actually|instead|hence|therefore|thus|so|first|second|finally|final|correct|wrong|answer|is|was|are|check|again|got|get|gives|becomes|equals|hmm|recheck|mistake|oops|sorry|also|should|be|it|we|i)$/i;
const MAX_BOXES = 16;

/**
 * The last box, joined with the boxes before it when only connectives, punctuation or a short
 * label stand between them ("\boxed{1}, \boxed{2} and \boxed{3}", "\boxed{(2, 2)} \quad \text{and}
 * \quad \boxed{(6, 2)}", "y_1 = \boxed{…} and y_2 = \boxed{…}"): the boxes then form the whole
 * answer, joined with ";". A box after prose ("first \boxed{1}, then \boxed{2}") stands alone.
 */
export function boxedAnswer(text: string): { answer: string; end: number } | undefined {
  const boxes = lastBoxes(text, MAX_BOXES);
  if (boxes.length === 0) return undefined;
  const end = boxes[boxes.length - 1].end;
  let first = boxes.length - 1;
  while (first > 0 && isGlue(text.slice(boxes[first - 1].end + 1, boxes[first].start))) first--;
  if (first === boxes.length - 1) return { answer: boxes[first].content, end };
  const answer = boxes
    .slice(first)
    .map((b, i) => {
      // "y_1 = \boxed{…}": the label names the box in a system of answers.
      const before = i === 0 ? text.slice(Math.max(0, b.start - 40), b.start) : text.slice(Math.max(boxes[first + i - 1].end + 1, b.start - 40), b.start);
      const label = LABEL.exec(before.replace(/\$|\\[()[\]]/g, " "));
      return label ? `${label[1]} = ${b.content}` : b.content;
    })
    .join(" ; ");
  return { answer, end };
}

const LABEL = /(?:^|[\s(])([A-Za-z](?:_\{?\w+\}?)?|\([A-Za-z](?:\s*,\s*[A-Za-z])+\))\s*=\s*$/;

/** Between two boxes: at most four short words, none of them a revision ("then", "but", "wait"). */
function isGlue(between: string): boolean {
  if (between.length > 200) return false;
  const words = between
    .replace(/\$|\\[()[\]]/g, " ")
    .replace(LABEL, " ")
    .replace(/\\text\s*\{([^{}]*)\}/g, " $1 ")
    .replace(/\\q?quad|\\[,;:! ]|\\[()[\]]|\$|~/g, " ")
    .replace(/[,;.:()+\\]/g, " ")
    .trim()
    .split(/\s+/)
    .filter((w) => w !== "");
  return words.length <= 4 && words.every((w) => /^[A-Za-z]+$/.test(w) && !REVISION.test(w));
}

interface Box {
  start: number;
  end: number;
  content: string;
}

/** Up to `limit` last boxes, in order of position. */
function lastBoxes(text: string, limit: number): Box[] {
  const boxes: Box[] = [];
  let from = text.length;
  for (let tries = 0; tries < limit + 4 && boxes.length < limit && from >= 0; tries++) {
    const at = Math.max(text.lastIndexOf("\\boxed", from), text.lastIndexOf("\\fbox", from));
    if (at === -1) break;
    const box = boxAt(text, at);
    if (box && (boxes.length === 0 || box.end < boxes[0].start)) boxes.unshift(box);
    from = at - 1;
  }
  return boxes;
}

/** The box starting at `at` ("\boxed{…}", "\fbox{…}", "\boxed 5"), braces matched, or undefined. */
function boxAt(text: string, at: number): Box | undefined {
  const start = at + (text.startsWith("\\boxed", at) ? 6 : 5);
  const open = start + (/^\s*/.exec(text.slice(start, start + 16))?.[0].length ?? 0);
  if (text[open] === "{") {
    const end = matchingBrace(text, open);
    return end === -1 ? undefined : { start: at, end, content: text.slice(open + 1, end) };
  }
  // `\boxed 5` (no braces): the next token.
  const bare = /^[^\s$]+/.exec(text.slice(open, open + 200));
  return bare && text[start] !== "{" ? { start: at, end: open + bare[0].length - 1, content: bare[0] } : undefined;
}

/** "Final Answer: The final answer is $7$" → "$7$": the phrase after the last "answer is" in it. */
function innermostPhrase(phrase: string): string {
  for (let depth = 0; depth < 5; depth++) {
    const inner = lastMatch(phrase, FINAL_ANSWER);
    if (inner === undefined || inner === phrase) break;
    phrase = inner;
  }
  return phrase;
}

/** The first non-empty capture group of the last match of a global regex. */
function lastMatch(text: string, re: RegExp): string | undefined {
  let last: string | undefined;
  for (const m of text.matchAll(re)) last = m.slice(1).find((g) => g !== undefined);
  return last;
}

/** "$28\%$. I hope it is correct." → "$28\%$": the answer phrase up to the end of its sentence. */
function trimSentence(phrase: string): string {
  let s = phrase.trim();
  // A sentence ends at ". " followed by anything but a digit, outside math.
  const end = /\.\s+(?=[^\d\s])/.exec(s.replace(/\$[^$]*\$/g, (m) => "x".repeat(m.length)));
  if (end) s = s.slice(0, end.index);
  s = cutAside(stripEmphasis(s));
  s = stripEmphasis(s.replace(/[.;,!]+\s*$/, "")).replace(/^\\?"([\s\S]*?)\\?"$/, "$1").trim();
  // "The largest $n$ is 34": a sentence naming the answer gives it after its last "is".
  const named = /^(?:the|our|my|a|an)\s[\s\S]*\sis\s+([\s\S]+)$/i.exec(s.replace(/\$[^$]*\$/g, (m) => "x".repeat(m.length)));
  if (named) s = s.slice(s.length - named[1].length).trim();
  // "Jane started growing Sphere 3 hours ago": prose around exactly one number gives that number,
  // unless the prose doubts or denies it ("not 3", "maybe 3", "3, which is wrong").
  const numbers = s.match(NUMBER);
  if (proseWords(s) >= 2 && numbers?.length === 1 && !/\$|\\[A-Za-z]/.test(s) && !DOUBT.test(s)) s = numbers[0];
  const math = /^\$+([\s\S]*?)\$+$/.exec(s) ?? /^\\\(([\s\S]*?)\\\)$/.exec(s) ?? /^\\\[([\s\S]*?)\\\]$/.exec(s);
  return (math ? math[1] : s).trim();
}

/**
 * Where an aside after the answer starts: a parenthesis opening with a word ("3 (since 1 + 2 =
 * 3)"; "\frac{1}{2} (1 + \sqrt{5})" is one formula), ", which", " because", " since".
 */
const ASIDE = /\s\((?=\s*[A-Za-z]{2,}\b)|,\s*which\b|\s+because\b|\s+since\b/i;
/** Words that doubt or deny an answer in the prose around it ("3 (or maybe 4)", "3, which is wrong"). */
const DOUBT = /\b(?:not|no|never|isn't|maybe|perhaps|unclear|unsure|either|or|probably|possibly|might|except|than|wrong|incorrect|false|mistaken?|guess|alternatively|also|instead|approximately|roughly|estimated?)\b/i;

/**
 * "3, which is the number of apples after 2 days" → "3": the answer without an aside explaining
 * it, outside math. An aside that doubts or denies the answer stays, so the hedge is read.
 */
function cutAside(s: string): string {
  const aside = ASIDE.exec(s.replace(/\$[^$]*\$/g, (m) => "x".repeat(m.length)));
  if (!aside || aside.index === 0 || DOUBT.test(s.slice(aside.index))) return s;
  return s.slice(0, aside.index).trim();
}

/** Text with LaTeX commands and their arguments' braces removed, to tell prose from a formula. */
function stripLatexWords(text: string): string {
  return text.replace(/\\[a-zA-Z]+/g, " ").replace(/[{}]/g, " ");
}
