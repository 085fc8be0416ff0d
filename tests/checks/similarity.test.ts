import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runCheck } from "../../src/checks/run.js";
import { editSimilarity, lcsLength, LEVENSHTEIN_MAX_CHARS, ROUGE_MAX_TOKENS, rougeL, rougeTokens } from "../../src/checks/similarity.js";

describe("ROUGE-L as rouge-score computes rougeL", () => {
  it("the rouge-score README example: P 0.625, R 0.556, F 0.588", () => {
    // scorer.score(target, prediction) with target "The quick brown fox jumps over the lazy dog".
    expect(rougeL("The quick brown dog jumps on the log.", "The quick brown fox jumps over the lazy dog")).toBeCloseTo(0.5882352941, 9);
  });
  it("tokenises like rouge-score: lower-case, non-alphanumerics separate", () => {
    expect(rougeTokens("Hello, World! It's 2024.")).toEqual(["hello", "world", "it", "s", "2024"]);
  });
  it("edge cases: identical 1, disjoint or empty 0", () => {
    expect(rougeL("a b c", "a b c")).toBe(1);
    expect(rougeL("a b c", "d e f")).toBe(0);
    expect(rougeL("", "a")).toBe(0);
    expect(lcsLength(["a", "b", "c", "d"], ["b", "d"])).toBe(2);
  });
});

describe("ROUGE-L in every script (issue 28)", () => {
  it("keeps letters and numbers of every script, accents inside words, and splits CJK by character", () => {
    expect(rougeTokens("Столица — Москва; café naïve ÉTÉ")).toEqual(["столица", "москва", "café", "naïve", "été"]);
    expect(rougeTokens("cafe\u0301 ﬁne")).toEqual(["café", "fine"]); // NFKC: a combining accent joins its letter, the ﬁ ligature is fi
    expect(rougeTokens("東京タワーは2024年")).toEqual(["東", "京", "タ", "ワ", "ー", "は", "2024", "年"]);
  });
  it("a Japanese reference is not reduced to its digits, and a correct Cyrillic answer is not zero", () => {
    expect(rougeL("2024", "2024年に東京で開催された")).toBeLessThan(0.2); // rouge-score: 1.0 (only "2024" survives)
    expect(rougeL("Столица России — Москва", "Столица России: Москва.")).toBe(1); // rouge-score: 0 (no token at all)
    expect(rougeL("Столица России — Париж", "Столица России: Москва.")).toBeCloseTo(2 / 3, 9);
  });
});

describe("what ROUGE-L does not see (why it must not be a reward on its own)", () => {
  const reference = "Paris is the capital of France";
  it("a negated reference scores near 1: the measure counts words, not meaning", () => {
    expect(rougeL("Paris is not the capital of France", reference)).toBeCloseTo(12 / 13, 9);
  });
  it("stop words stuffed around the reference's words in any order still score", () => {
    const stuffed = "the capital of the France is the Paris the of the";
    expect(rougeL(stuffed, reference)).toBeCloseTo(8 / 17, 9);
    expect(rougeL("the of the is the of the", reference)).toBeGreaterThan(0.3); // no content word at all
  });
  it("a paraphrase with other words scores low though it is right", () => {
    expect(rougeL("France's seat of government is located in Paris", reference)).toBeLessThan(0.3);
  });
});

describe("edit similarity", () => {
  it("is 1 − distance / longer length", () => {
    expect(editSimilarity("kitten", "sitting")).toBeCloseTo(1 - 3 / 7, 12);
    expect(editSimilarity("", "")).toBe(1);
    expect(editSimilarity("abc", "")).toBe(0);
  });
});

describe("the similarity check", () => {
  it("passes at the threshold, normalises case and spaces by default, and can give partial credit", async () => {
    const sample = { response: "  Paris  is the CAPITAL of France ", reference: "Paris is the capital of France" };
    expect(await runCheck({ similarity: { reference: "{{reference}}", min: 1 } }, sample)).toMatchObject({ pass: true });
    expect((await runCheck({ similarity: { reference: "{{reference}}", min: 1, normalize: false } }, sample)).pass).toBe(false);
    const rouge = await runCheck({ similarity: { reference: "The quick brown fox jumps over the lazy dog", metric: "rouge-l", min: 0.5, partial: true } }, { response: "The quick brown dog jumps on the log." });
    expect(rouge.pass).toBe(true);
    expect(rouge.score).toBeCloseTo(0.588, 3);
    expect(rouge.reasoning).toBe("rouge-l similarity 0.588 (needs 0.5)");
  });

  it("a sample whose reference is empty is the data's error (MISSING_INPUT), not one an empty response matches", async () => {
    for (const reference of ["", "  \n"]) {
      await expect(runCheck({ similarity: { reference: "{{reference}}", min: 0.9 } }, { response: "", reference })).rejects.toMatchObject({ code: "MISSING_INPUT" });
      await expect(runCheck({ similarity: { reference: "{{reference}}", metric: "rouge-l", min: 0.9 } }, { response: "", reference })).rejects.toMatchObject({ code: "MISSING_INPUT" });
    }
  });
});

describe("properties", () => {
  it("both measures are symmetric, in [0, 1], and 1 on identical texts", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.string({ maxLength: 80 }), (a, b) => {
        for (const f of [editSimilarity, rougeL]) {
          const x = f(a, b);
          expect(x).toBeGreaterThanOrEqual(0);
          expect(x).toBeLessThanOrEqual(1);
          expect(f(b, a)).toBeCloseTo(x, 12);
        }
        expect(editSimilarity(a, a)).toBe(1);
        if (rougeTokens(a).length > 0) expect(rougeL(a, a)).toBe(1);
      }),
    );
  });
});

describe("similarity under attack (held)", () => {
  it("the reference pasted twice, or again in a comment, does not reach a strict threshold", async () => {
    const rouge = { similarity: { reference: "Paris is the capital of France", metric: "rouge-l" as const, min: 0.8 } };
    expect((await runCheck(rouge, { response: "Paris is the capital of France. Paris is the capital of France." })).pass).toBe(false);
    const lev = { similarity: { reference: "def add(a, b): return a + b", min: 0.8 } };
    expect((await runCheck(lev, { response: "def add(a, b): return a + b  # def add(a, b): return a + b" })).pass).toBe(false);
  });
});

describe("similarity reads what a page shows", () => {
  const reference = "Paris is the capital of France and its largest city";
  it("the reference hidden in an HTML comment or a hidden element beside a non-answer does not pass (both metrics)", async () => {
    for (const metric of ["levenshtein", "rouge-l"] as const) {
      const check = { similarity: { reference: "{{reference}}", metric, min: 0.5 } };
      for (const response of [`I am not sure. <!-- ${reference} -->`, `I am not sure.<span hidden>${reference}</span>`, `I am not sure.<div style="display:none">${reference}</div>`]) {
        const verdict = await runCheck(check, { response, reference });
        expect(verdict.pass, `${metric}: ${response}`).toBe(false);
        expect(verdict.reasoning).toMatch(/as a page shows the response/);
      }
    }
  });

  it("an honest answer still passes, with or without markup on either side", async () => {
    for (const metric of ["levenshtein", "rouge-l"] as const) {
      const check = { similarity: { reference: "{{reference}}", metric, min: 0.9 } };
      expect((await runCheck(check, { response: reference, reference })).pass).toBe(true);
      expect((await runCheck(check, { response: "**Paris** is the capital of France and its largest city", reference })).pass).toBe(true);
      expect((await runCheck(check, { response: reference, reference: "**Paris** is the capital of France and its largest city" })).pass).toBe(true);
      expect((await runCheck(check, { response: `${reference} <!-- checked twice -->`, reference })).pass).toBe(true);
    }
    expect((await runCheck({ similarity: { reference: "{{reference}}", min: 1 } }, { response: reference, reference })).reasoning).toBe("levenshtein similarity 1.000 (needs 1)");
  });
});

describe("similarity of texts past the cut (ROUGE_MAX_TOKENS words, LEVENSHTEIN_MAX_CHARS characters)", () => {
  const words = (from: number, n: number) => Array.from({ length: n }, (_, i) => `w${from + i}`).join(" ");
  const reference = words(0, 2 * ROUGE_MAX_TOKENS);

  it("half of a long reference, or the reference's first words and anything after, is not the reference (both were cut to the same words: 1.0)", async () => {
    expect(rougeL(words(0, ROUGE_MAX_TOKENS), reference)).toBeCloseTo(2 / 3, 9);
    expect(rougeL(`${words(0, ROUGE_MAX_TOKENS)} ${"junk ".repeat(20_000)}`, words(0, ROUGE_MAX_TOKENS))).toBeLessThan(0.3);
    const check = { similarity: { reference: "{{reference}}", metric: "rouge-l" as const, min: 0.9 } };
    expect((await runCheck(check, { response: words(0, ROUGE_MAX_TOKENS), reference })).pass).toBe(false);
    const chars = "abcdefghij".repeat((2 * LEVENSHTEIN_MAX_CHARS) / 10);
    expect(editSimilarity(chars.slice(0, LEVENSHTEIN_MAX_CHARS), chars)).toBeCloseTo(0.5, 9);
    expect(editSimilarity(`${chars}${"z".repeat(3 * LEVENSHTEIN_MAX_CHARS)}`, chars)).toBeCloseTo(0.4, 9);
    expect((await runCheck({ similarity: { reference: "{{reference}}", min: 0.9 } }, { response: chars.slice(0, LEVENSHTEIN_MAX_CHARS), reference: chars })).pass).toBe(false);
  });

  it("a long response equal to a long reference, or nearly, still scores near 1, in bounded time", () => {
    expect(rougeL(reference, reference)).toBe(1);
    expect(rougeL(`an extra start ${reference}`, reference)).toBeGreaterThan(0.99);
    const chars = "abcdefghij".repeat((3 * LEVENSHTEIN_MAX_CHARS) / 10);
    expect(editSimilarity(chars, chars)).toBe(1);
    expect(editSimilarity(`x${chars}`, chars)).toBeGreaterThan(0.99);
    expect(rougeL("w ".repeat(1_000_000), reference)).toBe(0);
    // No clock: without the block bound, a million words against the reference would outlast the test's 60 s limit.
  });
});
