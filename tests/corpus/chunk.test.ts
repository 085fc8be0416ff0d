import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunkDocument, chunkDocuments } from "../../src/corpus/chunk.js";
import type { SourceDocument } from "../../src/corpus/types.js";

const doc = (text: string, id = "policy.md"): SourceDocument => ({ id, title: "Travel policy", text, lang: "en" });

const POLICY = [
  "# Travel policy",
  "",
  "## Meals",
  "",
  "The daily meal allowance is 60 euros.",
  "",
  "Alcohol is never reimbursed.",
  "",
  "## Hotels",
  "",
  "Hotels up to 120 euros a night are booked through the portal.",
].join("\n");

describe("chunkDocument", () => {
  it("cuts at headings: one chunk per section, the title's heading joined to the first section, titled by document and section", () => {
    expect(chunkDocument(doc(POLICY))).toEqual([
      { id: "policy.md#0", doc: "policy.md", title: "Travel policy › Meals", text: "# Travel policy\n\n## Meals\n\nThe daily meal allowance is 60 euros.\n\nAlcohol is never reimbursed.", lang: "en" },
      { id: "policy.md#1", doc: "policy.md", title: "Travel policy › Hotels", text: "## Hotels\n\nHotels up to 120 euros a night are booked through the portal.", lang: "en" },
    ]);
  });

  it("packs a long section's paragraphs up to the cap, cuts a long paragraph at sentence ends, and a long word anywhere", () => {
    const para = (n: number) => `Sentence ${n} of the paragraph.`;
    const text = ["## Long", Array.from({ length: 6 }, (_, i) => para(i)).join(" "), "x".repeat(70)].join("\n\n");
    const chunks = chunkDocument(doc(text), { maxChars: 60 });
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(60);
    expect(chunks.map((c) => c.text)).toEqual([
      "## Long",
      "Sentence 0 of the paragraph. Sentence 1 of the paragraph.",
      "Sentence 2 of the paragraph. Sentence 3 of the paragraph.",
      "Sentence 4 of the paragraph. Sentence 5 of the paragraph.",
      "x".repeat(60),
      "x".repeat(10),
    ]);
    expect(() => chunkDocument(doc(text), { maxChars: 0 })).toThrow("maxChars must be a positive integer, got 0");
  });

  it("a document without headings is cut by paragraphs; an empty one gives no chunk", () => {
    expect(chunkDocument(doc("First paragraph.\n\nSecond paragraph."), { maxChars: 20 }).map((c) => [c.id, c.title, c.text])).toEqual([
      ["policy.md#0", "Travel policy", "First paragraph."],
      ["policy.md#1", "Travel policy", "Second paragraph."],
    ]);
    expect(chunkDocument(doc("  \n\n "))).toEqual([]);
  });

  // Tasks cite chunk ids: they must survive anything but a change to the document's own text.
  const texts = fc.array(fc.oneof(fc.lorem({ maxCount: 40, mode: "sentences" }), fc.constantFrom("# Title", "## Section", "### Sub")), { minLength: 1, maxLength: 12 }).map((parts) => parts.join("\n\n"));

  it("ids and texts are the same on every run, and whatever other documents are chunked with it", () => {
    fc.assert(
      fc.property(texts, texts, fc.integer({ min: 20, max: 400 }), (a, b, maxChars) => {
        const alone = chunkDocument(doc(a), { maxChars });
        expect(chunkDocument(doc(a), { maxChars })).toEqual(alone);
        const together = chunkDocuments([doc(b, "other.md"), doc(a)], { maxChars });
        expect(together.filter((c) => c.doc === "policy.md")).toEqual(alone);
        expect(new Set(together.map((c) => c.id)).size).toBe(together.length);
      }),
    );
  });

  it("every chunk is within the cap, and every word of the document is in its chunks in order", () => {
    fc.assert(
      fc.property(texts, fc.integer({ min: 20, max: 400 }), (text, maxChars) => {
        const chunks = chunkDocument(doc(text), { maxChars });
        for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(maxChars);
        expect(chunks.flatMap((c) => c.text.split(/\s+/)).filter(Boolean)).toEqual(text.split(/\s+/).filter(Boolean));
      }),
    );
  });

  it("editing a later section leaves the earlier chunks as they were", () => {
    fc.assert(
      fc.property(texts, texts, (head, tail) => {
        const before = chunkDocument(doc(`${head}\n\n## Last\n\nOld text.`), { maxChars: 200 });
        const after = chunkDocument(doc(`${head}\n\n## Last\n\n${tail}`), { maxChars: 200 });
        const kept = before.length - 1;
        expect(after.slice(0, kept)).toEqual(before.slice(0, kept));
      }),
    );
  });
});
