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

/** Runs of letters, marks and digits joined by single separators ("1,000,000", "v1.2", "word1.2word"). */
const JOINED_RUNS = /[\p{L}\p{M}\p{N}]+(?:[.,][\p{L}\p{M}\p{N}]+)*/gu;
const SEPARATOR = /([.,])/;
const DIGITS = /^\p{N}+$/u;

/**
 * The text without the separators inside numbers (1,000,000 · 3.14): part of a number, not a break
 * between two words. Only a separator between two runs of digits that no letter or mark touches:
 * "word1.2word" stays two words. Each run is read once: a lookbehind for the digits before each
 * separator was tried at every position, so a million digits before ".1a" took 441 s.
 * @example numbersJoined("1,000,000 and v1.2") // "1000000 and v1.2"
 */
export function numbersJoined(text: string): string {
  return text.replace(JOINED_RUNS, (runs) => {
    // [run, separator, run, …]: a separator goes when the runs on both sides are digits only.
    const parts = runs.split(SEPARATOR);
    let out = parts[0];
    for (let i = 1; i < parts.length; i += 2) out += (DIGITS.test(parts[i - 1]) && DIGITS.test(parts[i + 1]) ? "" : parts[i]) + parts[i + 1];
    return out;
  });
}

/**
 * The words of a text: `well-known` is two, `don't` two, `3.14` one, `東京タワー` five; invisible
 * characters and punctuation separate words and are none.
 * @example countWords("state-of-the-art, 1,000 times") // 6
 */
export function countWords(text: string): number {
  let count = 0;
  for (const _word of numbersJoined(text).matchAll(WORD)) count++;
  return count;
}
