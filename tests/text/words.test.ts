import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countWords, numbersJoined } from "../../src/text/words.js";

const word = fc.stringMatching(/^[a-zA-Zéß0-9]{1,8}$/).filter((w) => !/^\d+$/.test(w));
const joiner = fc.constantFrom(" ", "\n", "/", "-", "_", ".", "'", "|", "…", "\u200B", "\u2060", "\u3164", " \u0301 ", " . ");

describe("countWords", () => {
  it("n words joined by any separator, white space, punctuation or invisible, are n words", () => {
    fc.assert(fc.property(fc.array(word, { minLength: 1, maxLength: 20 }), joiner, (words, join) => countWords(words.join(join)) === words.length));
  });

  it("separators alone are no words", () => {
    fc.assert(fc.property(fc.array(joiner, { maxLength: 30 }), (pads) => countWords(pads.join("")) === 0));
  });

  it("a number is one word, its separators included; each Chinese or Japanese character one", () => {
    expect(countWords("1,000,000 and 3.14")).toBe(3);
    expect(countWords("word1.2word1.2word")).toBe(3);
    expect(countWords("v1.2, (3,5) 7.")).toBe(4);
    expect(countWords("東京タワーは2024年")).toBe(8);
    expect(countWords("서울은 크다")).toBe(2);
  });
});

describe("countWords on a long response: linear time", () => {
  it("a long run of digits before a separator is read once, not from each of its digits (a million digits, \".1a\": 441 s)", () => {
    expect(countWords(`${"1".repeat(600_000)}.1a`)).toBe(2);
    expect(countWords(`${"1".repeat(300)}.`.repeat(300))).toBe(1);
    expect(countWords(`${"1,".repeat(1_000_000)}1`)).toBe(1);
    // No clock: the lookbehind at every digit took 441 s on a million digits (~160 s on these 600,000), past the test's 60 s limit.
  });

  it("joins numbers as the separator-by-separator rule it replaced, on random texts (digits of other scripts and astral ones too)", () => {
    // The rule as a lookbehind: a separator joins two runs of digits that no letter, mark or digit touches.
    const IN_NUMBER = /(?<=(?:^|[^\p{L}\p{M}\p{N}])\p{N}+)[.,](?=\p{N}+(?:$|[^\p{L}\p{M}\p{N}]))/gu;
    const piece = fc.constantFrom("1", "22", "\u0663", "\u{1D7D9}", "\u00B2", "a", "\u00E9", "\u0301", ".", ",", " ", "-", "\u6771");
    fc.assert(fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => numbersJoined(pieces.join("")) === pieces.join("").replace(IN_NUMBER, "")), { numRuns: 5000 });
  });
});
