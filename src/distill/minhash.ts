/**
 * Near-duplicate detection: character n-gram MinHash signatures, banded for locality-sensitive
 * hashing. Two texts whose shingle sets have Jaccard similarity s share at least one band with
 * probability 1 − (1 − s^r)^b; (b, r) are chosen so that curve crosses 1/2 near the threshold.
 */
import { RubricateError } from "../errors.js";
import { fmix32, Hash64Set, hash64 } from "./hash.js";

/** How near-duplicates are found. */
export interface NearDupOptions {
  /** Jaccard similarity of shingle sets from which texts count as near-duplicates (default 0.8). */
  threshold?: number;
  /** Characters per shingle (default 5). */
  ngram?: number;
  /** Hash functions in a signature (default 64); more is sharper and slower. */
  permutations?: number;
}

/** The banding (b bands of r rows) whose S-curve 1 − (1 − s^r)^b is nearest the threshold at its midpoint. */
export function lshParams(threshold: number, permutations: number): { bands: number; rows: number } {
  if (!(threshold > 0 && threshold < 1)) throw new RubricateError("BAD_INPUT", `the near-duplicate threshold must be between 0 and 1 (exclusive), not ${threshold}`);
  let best = { bands: 1, rows: permutations, error: Infinity };
  for (let rows = 1; rows <= permutations; rows++) {
    const bands = Math.floor(permutations / rows);
    // The similarity at which a pair is found with probability 1/2.
    const midpoint = (1 - 0.5 ** (1 / bands)) ** (1 / rows);
    const error = Math.abs(midpoint - threshold);
    if (error < best.error) best = { bands, rows, error };
  }
  return { bands: best.bands, rows: best.rows };
}

/** Lower-cased, white space collapsed: formatting alone never makes two texts different. */
export function normalizeForDedup(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

/** Odd multipliers and offsets of the k hash functions (fixed: signatures must agree across runs). */
const MULTIPLIERS: Uint32Array = new Uint32Array(1024);
const OFFSETS: Uint32Array = new Uint32Array(1024);
for (let i = 0; i < 1024; i++) {
  MULTIPLIERS[i] = (fmix32(i * 2 + 1) | 1) >>> 0;
  OFFSETS[i] = fmix32(i * 2 + 0x5bd1e995);
}

/**
 * The MinHash signature of a text's character n-grams (normalised first). Each shingle is hashed
 * once (murmur-finalised FNV-1a); hash function i is then a·h + b mod 2³² with its own odd a and b,
 * one multiply-add per function in the hot loop.
 */
export function minhashSignature(text: string, ngram: number, permutations: number): Uint32Array {
  if (permutations > MULTIPLIERS.length) throw new RubricateError("BAD_INPUT", `at most ${MULTIPLIERS.length} permutations`);
  const sig = new Uint32Array(permutations).fill(0xffffffff);
  const norm = normalizeForDedup(text);
  const last = Math.max(0, norm.length - ngram);
  for (let start = 0; start <= last; start++) {
    // The shingle's hash without slicing a substring (this loop is the hot path).
    let a = 0x811c9dc5;
    const end = Math.min(norm.length, start + ngram);
    for (let j = start; j < end; j++) a = Math.imul(a ^ norm.charCodeAt(j), 0x01000193);
    const h = fmix32(a);
    for (let i = 0; i < permutations; i++) {
      const v = (Math.imul(h, MULTIPLIERS[i]) + OFFSETS[i]) >>> 0;
      if (v < sig[i]) sig[i] = v;
    }
  }
  return sig;
}

/** The estimated Jaccard similarity of two signatures (share of equal slots). */
export function signatureSimilarity(a: Uint32Array, b: Uint32Array): number {
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return same / a.length;
}

/**
 * An LSH index over kept texts: `seen(text)` says whether a near-duplicate was added before,
 * `add(text)` records one. Memory is one 64-bit hash per band per kept text (~16 bytes × bands
 * at half load), never the texts or signatures themselves.
 * @example const idx = new NearDupIndex({ threshold: 0.8 }); if (!idx.check(text)) keep(text)
 */
export class NearDupIndex {
  readonly bands: number;
  readonly rows: number;
  readonly ngram: number;
  readonly permutations: number;
  private readonly table = new Hash64Set(1 << 14);

  constructor(options: NearDupOptions = {}) {
    this.ngram = options.ngram ?? 5;
    this.permutations = options.permutations ?? 64;
    if (!Number.isInteger(this.ngram) || this.ngram < 1) throw new RubricateError("BAD_INPUT", `ngram must be a positive integer, not ${this.ngram}`);
    const { bands, rows } = lshParams(options.threshold ?? 0.8, this.permutations);
    this.bands = bands;
    this.rows = rows;
  }

  /** The band keys of a text: one 64-bit hash per band, the band's index mixed in. */
  private bandKeys(text: string): [number, number][] {
    const sig = minhashSignature(text, this.ngram, this.bands * this.rows);
    const keys: [number, number][] = [];
    for (let band = 0; band < this.bands; band++) {
      let a = fmix32(band + 0x3c6ef372);
      let b = fmix32(band ^ 0xa54ff53a);
      for (let r = 0; r < this.rows; r++) {
        const v = sig[band * this.rows + r];
        a = fmix32(a ^ v) + 0x6a09e667;
        b = fmix32((b + v) ^ 0x510e527f);
      }
      keys.push([a >>> 0, b >>> 0]);
    }
    return keys;
  }

  /** True when a text sharing a band with this one was added; otherwise adds it and returns false. */
  check(text: string): boolean {
    const keys = this.bandKeys(text);
    if (keys.some(([hi, lo]) => this.table.has(hi, lo))) return true;
    for (const [hi, lo] of keys) this.table.add(hi, lo);
    return false;
  }

  /** Bytes held by the index. */
  get bytes(): number {
    return this.table.bytes;
  }
}

/** Exact duplicates: a 64-bit hash per kept text. */
export class ExactDupIndex {
  private readonly table = new Hash64Set(1 << 14);

  /** True when this exact text was added; otherwise adds it and returns false. */
  check(text: string): boolean {
    const [hi, lo] = hash64(text);
    return !this.table.add(hi, lo);
  }

  get bytes(): number {
    return this.table.bytes;
  }
}
