/**
 * `similarity`: the response is close enough to a reference text. Two measures: normalised edit
 * distance (characters; fastest-levenshtein) for short answers where spelling matters, and
 * ROUGE-L (longest common subsequence of words) for longer texts, computed as Google's
 * rouge-score package computes `rougeL` (F-measure of LCS precision and recall) but with a
 * tokeniser for every script: rouge-score keeps only [a-z0-9], so a Japanese reference reduces
 * to its digits and a Cyrillic answer to nothing.
 *
 * Both measures are lexical: they count shared characters or words, not meaning. A negated
 * reference ("Paris is not the capital") scores near 1 and stuffing the reference's words in
 * any order scores well, so a similarity check must not be a reward on its own (lint
 * `lexical-only-reward`): pair it with a correctness check or a judge question.
 */
import { distance } from "fastest-levenshtein";
import { CJK_CLASS } from "../text/words.js";

/** Most words per text in ROUGE-L; beyond, the texts are cut (the LCS table is words × words). */
export const ROUGE_MAX_TOKENS = 4000;
/** Most characters per text in the edit distance. */
export const LEVENSHTEIN_MAX_CHARS = 20_000;

/** 1 − Levenshtein distance / length of the longer text; 1 for two empty texts. */
export function editSimilarity(a: string, b: string): number {
  const x = [...a.slice(0, LEVENSHTEIN_MAX_CHARS)].join("");
  const y = [...b.slice(0, LEVENSHTEIN_MAX_CHARS)].join("");
  const longer = Math.max(x.length, y.length);
  return longer === 0 ? 1 : 1 - distance(x, y) / longer;
}

// Han, Hiragana and Katakana characters are each a token, as CJK ROUGE implementations have them.
const CJK = CJK_CLASS;
const TOKEN = new RegExp(`[${CJK}]|(?:(?![${CJK}])[\\p{L}\\p{M}\\p{N}])+`, "gu");

/**
 * Words for ROUGE-L: NFKC, lower-cased, runs of letters, combining marks and digits of any script
 * (so "café" and "naïve" stay whole and "Москва" is a word), each CJK character a token;
 * anything else separates. On ASCII text this is rouge-score's default tokenizer.
 */
export function rougeTokens(text: string): string[] {
  return (text.normalize("NFKC").toLowerCase().match(TOKEN) ?? []).slice(0, ROUGE_MAX_TOKENS);
}

/** Length of the longest common subsequence of two token lists (two rolling rows). */
export function lcsLength(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  let previous = new Uint32Array(b.length + 1);
  let current = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    const token = a[i - 1];
    for (let j = 1; j <= b.length; j++) current[j] = token === b[j - 1] ? previous[j - 1] + 1 : Math.max(previous[j], current[j - 1]);
    [previous, current] = [current, previous];
  }
  return previous[b.length];
}

/**
 * ROUGE-L F-measure of a candidate against a reference (rouge-score's `rougeL`).
 * @example rougeL("the cat sat on the mat", "the cat was on the mat") // 0.833…
 */
export function rougeL(candidate: string, reference: string): number {
  const c = rougeTokens(candidate);
  const r = rougeTokens(reference);
  const lcs = lcsLength(c, r);
  if (lcs === 0) return 0;
  const precision = lcs / c.length;
  const recall = lcs / r.length;
  return (2 * precision * recall) / (precision + recall);
}
