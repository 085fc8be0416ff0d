/**
 * Fast non-cryptographic 64-bit hashing (two independent 32-bit lanes) and a compact set of
 * 64-bit hashes in typed arrays: 8 bytes a slot at most 70% full, so a million entries cost ~12–23 MB, not the
 * ~100 MB a `Set<string>` would.
 */

/** murmur3's finaliser: spreads every input bit over the output. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 64-bit hash of a string as two 32-bit halves [hi, lo] (FNV-1a-style lanes with different seeds, murmur-finalised). */
export function hash64(text: string, seed = 0): [number, number] {
  let a = (0x811c9dc5 ^ seed) >>> 0;
  let b = (0x01000193 ^ Math.imul(seed, 0x9e3779b1) ^ 0x5bd1e995) >>> 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return [fmix32(a ^ text.length), fmix32(b + Math.imul(text.length, 0x27d4eb2d))];
}

/** The 16-hex-digit form of a 64-bit hash, for group keys and reports. */
export function hashHex(text: string): string {
  const [hi, lo] = hash64(text);
  return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
}

/**
 * A set of 64-bit hashes (open addressing, linear probing, grows at 70% full). Membership is
 * exact for the hashes; two different texts collide with probability ~n²/2⁶⁵.
 * @example const s = new Hash64Set(); s.add(...hash64("a")); s.has(...hash64("a")) // true
 */
export class Hash64Set {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private mask: number;
  /** Entries held. */
  size = 0;

  constructor(initialCapacity = 1024) {
    let cap = 16;
    while (cap * 0.7 < initialCapacity) cap *= 2;
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.mask = cap - 1;
  }

  /** True when the hash is in the set. */
  has(hi: number, lo: number): boolean {
    lo = (lo | 1) >>> 0; // slot 0/0 means empty; losing one bit of 64 costs nothing that matters
    for (let i = (hi ^ Math.imul(lo, 0x9e3779b1)) & this.mask; ; i = (i + 1) & this.mask) {
      if (this.lo[i] === 0) return false;
      if (this.lo[i] === lo && this.hi[i] === hi >>> 0) return true;
    }
  }

  /** Adds the hash; returns false when it was already there. */
  add(hi: number, lo: number): boolean {
    lo = (lo | 1) >>> 0;
    hi >>>= 0;
    for (let i = (hi ^ Math.imul(lo, 0x9e3779b1)) & this.mask; ; i = (i + 1) & this.mask) {
      if (this.lo[i] === 0) {
        this.hi[i] = hi;
        this.lo[i] = lo;
        if (++this.size * 10 > this.mask * 7) this.grow();
        return true;
      }
      if (this.lo[i] === lo && this.hi[i] === hi) return false;
    }
  }

  /** Bytes held by the tables. */
  get bytes(): number {
    return this.hi.byteLength + this.lo.byteLength;
  }

  private grow(): void {
    const [hi, lo] = [this.hi, this.lo];
    this.hi = new Uint32Array(hi.length * 2);
    this.lo = new Uint32Array(lo.length * 2);
    this.mask = this.hi.length - 1;
    this.size = 0;
    for (let i = 0; i < hi.length; i++) if (lo[i] !== 0) this.add(hi[i], lo[i]);
  }
}
