/**
 * A response's reasoning apart from its answer. Reasoning models write `<think>…</think>` before
 * the answer; chat templates of Qwen3 and DeepSeek-R1 put the opening tag in the prompt, so the
 * output may hold only the closing one. Providers may instead return the reasoning separately
 * (`reasoning_content`), in which case the response is already the answer.
 */

export interface SplitResponse {
  /** The text after the reasoning: what checks and judge questions grade by default. */
  answer: string;
  /** The reasoning blocks' contents, joined by blank lines. */
  reasoning: string;
  /** A reasoning block opened and never closed: the response has no answer (a format failure). */
  unclosed: boolean;
}

/** Reasoning tags recognised: <think> (DeepSeek-R1, Qwen3 and most open reasoning models) and <thinking>. */
const OPEN = /<(think|thinking)>/gi;

/**
 * Splits `<think>…</think>` blocks from the answer.
 * @example splitReasoning("<think>2+2</think>4") // { answer: "4", reasoning: "2+2", unclosed: false }
 */
export function splitReasoning(text: string): SplitResponse {
  if (!/<\/?(?:think|thinking)>/i.test(text)) return { answer: text, reasoning: "", unclosed: false };
  const reasoning: string[] = [];
  let answer = "";
  let rest = text;
  // Output that starts inside the block (the opening tag was in the prompt): up to the first closing tag is reasoning.
  const firstOpen = rest.search(OPEN);
  const firstClose = rest.search(/<\/(?:think|thinking)>/i);
  if (firstClose !== -1 && (firstOpen === -1 || firstClose < firstOpen)) {
    const close = /<\/(?:think|thinking)>/i.exec(rest)!;
    reasoning.push(rest.slice(0, close.index).trim());
    rest = rest.slice(close.index + close[0].length);
  }
  for (;;) {
    OPEN.lastIndex = 0;
    const open = OPEN.exec(rest);
    if (!open) {
      answer += rest;
      break;
    }
    answer += rest.slice(0, open.index);
    const after = rest.slice(open.index + open[0].length);
    const close = matchingClose(after, open[1]);
    if (!close) {
      reasoning.push(after.trim());
      return { answer: answer.trim(), reasoning: reasoning.filter(Boolean).join("\n\n"), unclosed: true };
    }
    reasoning.push(after.slice(0, close.index).trim());
    rest = after.slice(close.index + close.length);
  }
  // A closing tag left in the answer means the text before it was written inside a block (a
  // stray or mismatched closer): it is reasoning, so an answer planted before it does not count.
  const stray = lastMatch(answer, CLOSE);
  if (stray) {
    reasoning.push(answer.slice(0, stray.index).trim());
    answer = answer.slice(stray.index + stray[0].length);
  }
  return { answer: answer.trim(), reasoning: reasoning.filter(Boolean).join("\n\n"), unclosed: false };
}

const CLOSE = /<\/(?:think|thinking)>/gi;

/**
 * The last match of a global pattern, in one pass: a search for a match with no other after it
 * (`(?![\s\S]*…)`) read the rest of the text from each, so 100,000 stray closing tags took 11 s.
 */
function lastMatch(text: string, pattern: RegExp): RegExpExecArray | undefined {
  let last: RegExpExecArray | undefined;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) last = m;
  return last;
}

/**
 * The closing tag that ends a block opened just before `text`, counting blocks of the same tag
 * nested inside it: `<think>a<think>b</think>c</think>` is one block, so "c" is still reasoning.
 */
function matchingClose(text: string, tag: string): { index: number; length: number } | undefined {
  const tags = new RegExp(`<(/?)${tag}>`, "gi");
  let depth = 1;
  for (let m = tags.exec(text); m; m = tags.exec(text)) {
    depth += m[1] ? -1 : 1;
    if (depth === 0) return { index: m.index, length: m[0].length };
  }
  return undefined;
}
