import { describe, expect, it } from "vitest";
import { Hash64Set, hash64 } from "../../src/distill/hash.js";
import { ExactDupIndex, lshParams, minhashSignature, NearDupIndex, signatureSimilarity } from "../../src/distill/minhash.js";
import { seededRandom } from "../../src/stats/rng.js";

/** The exact Jaccard similarity of two texts' character n-gram sets. */
function jaccard(a: string, b: string, n = 5): number {
  const grams = (t: string) => new Set(Array.from({ length: Math.max(1, t.length - n + 1) }, (_, i) => t.slice(i, i + n)));
  const [x, y] = [grams(a.toLowerCase()), grams(b.toLowerCase())];
  let inter = 0;
  for (const g of x) if (y.has(g)) inter++;
  return inter / (x.size + y.size - inter);
}

const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango".split(" ");
function text(random: () => number, words = 40): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
}

describe("MinHash", () => {
  it("signature agreement estimates Jaccard similarity (within 0.15 over 128 hashes)", () => {
    const random = seededRandom(7);
    for (let i = 0; i < 20; i++) {
      const a = text(random);
      const words = a.split(" ");
      for (let k = 0; k < i; k++) words[Math.floor(random() * words.length)] = WORDS[Math.floor(random() * WORDS.length)];
      const b = words.join(" ");
      const estimate = signatureSimilarity(minhashSignature(a, 5, 128), minhashSignature(b, 5, 128));
      expect(Math.abs(estimate - jaccard(a, b))).toBeLessThan(0.15);
    }
  });

  it("banding puts the S-curve's midpoint near the threshold", () => {
    for (const t of [0.5, 0.7, 0.8, 0.9]) {
      const { bands, rows } = lshParams(t, 64);
      expect(bands * rows).toBeLessThanOrEqual(64);
      expect(Math.abs((1 - 0.5 ** (1 / bands)) ** (1 / rows) - t)).toBeLessThan(0.05);
    }
    expect(() => lshParams(1, 64)).toThrow(/threshold/);
  });

  it("finds copies well above the threshold and passes texts well below it", () => {
    const random = seededRandom(3);
    const index = new NearDupIndex({ threshold: 0.8 });
    let falseAlarms = 0;
    let caught = 0;
    const word = () => Array.from({ length: 6 }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join("");
    for (let i = 0; i < 200; i++) {
      const original = Array.from({ length: 60 }, word).join(" ");
      if (index.check(original)) falseAlarms++; // unrelated random texts: similarity near 0
      const words = original.split(" ");
      words[10] = "zulu"; // one word in sixty: similarity ~0.95
      if (index.check(words.join(" "))) caught++;
    }
    expect(falseAlarms).toBe(0);
    expect(caught).toBeGreaterThanOrEqual(195);
  });

  it("the threshold is configurable: a loose one catches what a strict one lets through", () => {
    const a = "The quick brown fox jumps over the lazy dog near the quiet river bank today.";
    const b = "The quick brown fox leaps over the lazy cat near the quiet river bank today.";
    const sim = jaccard(a, b);
    expect(sim).toBeGreaterThan(0.4);
    expect(sim).toBeLessThan(0.7);
    const loose = new NearDupIndex({ threshold: 0.3 });
    loose.check(a);
    expect(loose.check(b)).toBe(true);
    const strict = new NearDupIndex({ threshold: 0.95 });
    strict.check(a);
    expect(strict.check(b)).toBe(false);
  });

  it("exact dedup: same text only", () => {
    const index = new ExactDupIndex();
    expect(index.check("a")).toBe(false);
    expect(index.check("a")).toBe(true);
    expect(index.check("a ")).toBe(false);
  });
});

describe("Hash64Set", () => {
  it("holds 200k hashes through growth, with no false members", () => {
    const set = new Hash64Set(16);
    for (let i = 0; i < 200_000; i++) expect(set.add(...hash64(`k${i}`))).toBe(true);
    expect(set.size).toBe(200_000);
    for (let i = 0; i < 200_000; i += 997) expect(set.has(...hash64(`k${i}`))).toBe(true);
    for (let i = 0; i < 20_000; i++) expect(set.has(...hash64(`other${i}`))).toBe(false);
    expect(set.add(...hash64("k5"))).toBe(false);
  });
});
