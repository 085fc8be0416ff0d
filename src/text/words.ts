/**
 * Words as a word limit counts them: runs of letters and digits, with any other character a
 * break. Counting only runs between white space let a policy write "one/two/three", "one-two-three"
 * or "one_two_three" as a single word under a `max`; here each is three, as IFEval's `\w+` count
 * has them (less its underscore, a word character to `\w`).
 */
import { INVISIBLE_CLASS } from "./invisible.js";

/** Han, Hiragana and Katakana: written without spaces, so each character is a word (as CJK ROUGE implementations and word processors count). */
export const CJK_CLASS = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}`;

// A word starts at a letter or digit (a combining mark alone is no word) and runs on over letters,
// marks and digits; invisible letters (the Hangul fillers) and CJK characters end it.
const OTHER = `(?![${CJK_CLASS}${INVISIBLE_CLASS}])`;
const WORD = new RegExp(`[${CJK_CLASS}]|${OTHER}[\\p{L}\\p{N}](?:${OTHER}[\\p{L}\\p{M}\\p{N}])*`, "gu");

/**
 * A separator inside a number (1,000,000 · 3.14): part of it, not a break between two words. Only
 * between runs of digits that no letter touches: "word1.2word" stays two words.
 */
const IN_NUMBER = /(?<=(?:^|[^\p{L}\p{M}\p{N}])\p{N}+)[.,](?=\p{N}+(?:$|[^\p{L}\p{M}\p{N}]))/gu;

/**
 * The words of a text: `well-known` is two, `don't` two, `3.14` one, `東京タワー` five; invisible
 * characters and punctuation separate words and are none.
 * @example countWords("state-of-the-art, 1,000 times") // 6
 */
export function countWords(text: string): number {
  let count = 0;
  for (const _word of text.replace(IN_NUMBER, "").matchAll(WORD)) count++;
  return count;
}
