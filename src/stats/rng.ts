/**
 * The one seeded PRNG (mulberry32). Its whole state is one uint32, so a run can be saved and
 * resumed and draw exactly the same numbers as an uninterrupted run.
 */
export class Rng {
  private s: number;

  constructor(seed: number) {
    this.s = seed >>> 0;
  }

  /** The state to save; `Rng.fromState(state)` continues the same stream. */
  get state(): number {
    return this.s;
  }

  /** Continues a stream from a saved state. */
  static fromState(state: number): Rng {
    return new Rng(state);
  }

  /** A float in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** A uniformly chosen element. */
  choice<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** An element chosen with probability proportional to its weight (uniform when all weights are 0). */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    const total = weights.reduce((a, b) => a + Math.max(0, b), 0);
    if (!(total > 0)) return this.choice(items);
    let r = this.next() * total;
    for (let i = 0; i < items.length; i++) {
      r -= Math.max(0, weights[i]);
      if (r < 0) return items[i];
    }
    return items[items.length - 1];
  }

  /** Fisher–Yates shuffle in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }

  /** `k` distinct elements, in draw order. */
  sample<T>(items: readonly T[], k: number): T[] {
    const copy = items.slice();
    const n = Math.min(k, copy.length);
    for (let i = 0; i < n; i++) {
      const j = i + this.int(copy.length - i);
      [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy.slice(0, n);
  }
}

/**
 * A seeded random function over `Rng`: same seed, same stream, on every machine. The seed is
 * mixed with the golden-ratio constant so small seeds (0, 1, 2…) start far apart.
 * @example const random = seededRandom(42); random() // the same first number every time
 */
export function seededRandom(seed: number): () => number {
  const rng = new Rng((Math.floor(seed) >>> 0) ^ 0x9e3779b9);
  return () => rng.next();
}
