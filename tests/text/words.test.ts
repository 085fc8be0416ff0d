import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countWords } from "../../src/text/words.js";

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
