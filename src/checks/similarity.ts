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

/** Words per block in ROUGE-L: longer texts are compared block by block (see inBlocks; the LCS table is words × words). */
export const ROUGE_MAX_TOKENS = 4000;
/** Characters (UTF-16 units) per block in the edit distance. */
export const LEVENSHTEIN_MAX_CHARS = 20_000;
/** Blocks measured per text; past them, nothing more matches (20,000 words, 100,000 characters: ~0.4 s at most, and only against a reference that long). */
export const MAX_BLOCKS = 5;

/**
 * `measure` summed over the two sequences' aligned blocks: block i of each is [i·size, (i+1)·size).
 * Past MAX_BLOCKS, `beyond` stands in for it. A sum over aligned blocks bounds the measure of the
 * whole on the side that never rewards: a common subsequence of each pair of blocks is one of the
 * whole texts, and so is an alignment. The texts were cut to one block before, so a response that
 * was the reference's first block and anything after (or nothing) scored 1.
 */
function inBlocks<S extends { length: number; slice(start: number, end: number): S }>(a: S, b: S, size: number, measure: (x: S, y: S) => number, beyond: (x: S, y: S) => number): number {
  let total = 0;
  const blocks = Math.ceil(Math.max(a.length, b.length) / size);
  for (let i = 0; i < blocks; i++) {
    const [x, y] = [a.slice(i * size, (i + 1) * size), b.slice(i * size, (i + 1) * size)];
    total += i < MAX_BLOCKS ? measure(x, y) : beyond(x, y);
  }
  return total;
}

/**
 * 1 − Levenshtein distance / length of the longer text; 1 for two empty texts. Texts past
 * LEVENSHTEIN_MAX_CHARS are compared block by block, which can only overstate the distance.
 */
export function editSimilarity(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  const edits = inBlocks(a, b, LEVENSHTEIN_MAX_CHARS, distance, (x, y) => Math.max(x.length, y.length));
  return 1 - Math.min(edits, longer) / longer;
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
  return text.normalize("NFKC").toLowerCase().match(TOKEN) ?? [];
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
 * ROUGE-L F-measure of a candidate against a reference (rouge-score's `rougeL`). Texts past
 * ROUGE_MAX_TOKENS words are compared block by block, which can only understate the LCS.
 * @example rougeL("the cat sat on the mat", "the cat was on the mat") // 0.833…
 */
export function rougeL(candidate: string, reference: string): number {
  const c = rougeTokens(candidate);
  const r = rougeTokens(reference);
  const lcs = inBlocks(c, r, ROUGE_MAX_TOKENS, lcsLength, () => 0);
  if (lcs === 0) return 0;
  const precision = lcs / c.length;
  const recall = lcs / r.length;
  return (2 * precision * recall) / (precision + recall);
}
