/**
 * Where the final answer sits in a worked solution. The formats are the ones math datasets and
 * their graders use: MATH's `\boxed{…}`, "The final answer is …" (Minerva / lm-eval prompts),
 * GSM8K's "#### 72", and "Answer: …" lines; failing those, the last formula or number.
 */

/** How the answer is found: `auto` tries every format in the order above; `none` takes the whole text. */
export type AnswerExtraction = "auto" | "boxed" | "none";

/** The argument of the last `\boxed{…}` or `\fbox{…}` (braces matched), or undefined. */
export function lastBoxed(text: string): string | undefined {
  // From the end, at most a few tries: each unclosed "\boxed{" costs a scan to the end of the text.
  let from = text.length;
  for (let tries = 0; tries < 4; tries++) {
    const at = Math.max(text.lastIndexOf("\\boxed", from), text.lastIndexOf("\\fbox", from));
    if (at === -1) return undefined;
    const start = at + (text.startsWith("\\boxed", at) ? 6 : 5);
    const open = start + (/^\s*/.exec(text.slice(start, start + 16))?.[0].length ?? 0);
    if (text[open] === "{") {
      const end = matchingBrace(text, open);
      if (end !== -1) return text.slice(open + 1, end);
    } else {
      // `\boxed 5` (no braces): the next token.
      const bare = /^[^\s$]+/.exec(text.slice(open, open + 200));
      if (bare && text[start] !== "{") return bare[0];
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

const FINAL_ANSWER = /(?:final answer|the answer)\s*(?:is|:)\s*:?\s*([^\n]+)/gi;
const ANSWER_LINE = /^\s*(?:\*\*)?answer(?:\*\*)?\s*[:：](?:\*\*)?\s*(.+)$/gim;
const GSM8K = /####\s*([^\n]+)/g;
const INLINE_MATH = /\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\]|\\\(([\s\S]+?)\\\)|\$([^$\n]+?)\$/g;
const NUMBER = /[-−]?(?:\d{1,3}(?:[,\s]\d{3})+|\d+)(?:[.,]\d+)?(?:\s*\/\s*\d+)?%?/g;

/**
 * The final answer of a solution, as written (not yet normalised).
 * @example extractAnswer("so $x = \\boxed{\\frac{3}{4}}$.") // "\\frac{3}{4}"
 */
export function extractAnswer(text: string, mode: AnswerExtraction = "auto"): string | undefined {
  if (mode === "none") return text.trim();
  // The answer is at the end; reading only the tail bounds the work on very long outputs.
  if (text.length > TAIL_CHARS) text = text.slice(-TAIL_CHARS);
  const boxed = lastBoxed(text);
  if (boxed !== undefined) return boxed.trim();
  if (mode === "boxed") return undefined;
  const phrase = lastMatch(text, FINAL_ANSWER) ?? lastMatch(text, GSM8K) ?? lastMatch(text, ANSWER_LINE);
  if (phrase !== undefined) return trimSentence(innermostPhrase(phrase));
  const math = lastMatch(text, INLINE_MATH);
  if (math !== undefined) return math.trim();
  const trimmed = text.trim();
  // A short answer is the answer (a reference like "\frac{3}{4}" or "(1, 2]").
  if (trimmed.length <= 80 && (stripLatexWords(trimmed).match(/\b[a-z]{2,}\b/gi) ?? []).length < 3) return trimmed;
  const numbers = text.match(NUMBER);
  return numbers ? numbers[numbers.length - 1].trim() : undefined;
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
  // A sentence ends at ". " followed by a capital letter, outside math.
  const end = /\.\s+(?=[A-Z])/.exec(s.replace(/\$[^$]*\$/g, (m) => "x".repeat(m.length)));
  if (end) s = s.slice(0, end.index);
  s = s.replace(/[.;,!]+\s*$/, "").trim();
  const math = /^\$+([\s\S]*?)\$+$/.exec(s) ?? /^\\\(([\s\S]*?)\\\)$/.exec(s) ?? /^\\\[([\s\S]*?)\\\]$/.exec(s);
  return (math ? math[1] : s).trim();
}

/** Text with LaTeX commands and their arguments' braces removed, to tell prose from a formula. */
function stripLatexWords(text: string): string {
  return text.replace(/\\[a-zA-Z]+/g, " ").replace(/[{}]/g, " ");
}
