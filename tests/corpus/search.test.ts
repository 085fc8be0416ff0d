import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildIndex, loadIndex, saveIndex, search } from "../../src/corpus/search.js";
import { detectLanguage, termsOf } from "../../src/corpus/language.js";
import type { Chunk } from "../../src/corpus/types.js";
import { tempDir } from "../helpers/cli.js";

const chunk = (id: string, text: string, title = id.split("#")[0]): Chunk => ({ id, doc: id.split("#")[0], title, text });

const CHUNKS: Chunk[] = [
  chunk("expenses.md#0", "The daily meal allowance on business trips is 60 euros. Approval is needed above 500 euros.", "Expense policy"),
  chunk("reisen.md#0", "Für Hotelübernachtungen werden bis zu 120 Euro pro Nacht erstattet.", "Reisekosten"),
  chunk("batteries.md#0", "Each battery lasts 12 hours. Batteries are replaced every two years.", "Battery care"),
  chunk("greek.md#0", "Η άδεια διαρκεί είκοσι πέντε ημέρες.", "Άδεια"),
  chunk("filler.md#0", "The team meets on Monday. The team plans the week. The team writes notes.", "Team"),
  chunk("filler.md#1", "The team meets on Tuesday. The office has a garden.", "Team"),
];
const index = buildIndex(CHUNKS);
const ids = (q: string, k = 5) => search(index, q, k).map((h) => h.id);

const work = tempDir("corpus-search-");

describe("terms", () => {
  it("stem English and German words, fold case, keep numbers, drop stop words of either language", () => {
    // A word's terms are its stems in every language: two forms of a word share the stem of their language.
    const shared = (a: string, b: string) => termsOf(a).filter((t) => termsOf(b).includes(t));
    expect(shared("Batteries", "battery")).toEqual(["batteri"]);
    expect(shared("Hotelübernachtung", "Hotelübernachtungen")).toEqual(["hotelubernacht"]);
    expect(termsOf("60")).toEqual(["60"]);
    expect([...termsOf("the"), ...termsOf("und"), ...termsOf("x")]).toEqual([]);
  });

  it("detect English and German by their function words, and neither in a text without them", () => {
    expect(detectLanguage("The allowance is paid with the salary of the month after the trip.")).toBe("en");
    expect(detectLanguage("Die Erstattung erfolgt mit dem Gehalt, wenn die Belege vorliegen und geprüft sind.")).toBe("de");
    expect(detectLanguage("Η άδεια διαρκεί είκοσι πέντε ημέρες.")).toBeUndefined();
  });
});

describe("search", () => {
  it("finds a passage through another form of its words, in English and German, and in other scripts", () => {
    expect(ids("How long do the batteries last?")[0]).toBe("batteries.md#0");
    expect(ids("Was wird für eine Hotelübernachtung erstattet?")[0]).toBe("reisen.md#0");
    expect(ids("άδεια ημέρες")[0]).toBe("greek.md#0");
  });

  it("ranks by BM25: a rare word outweighs a word every chunk repeats", () => {
    // "team" is in two chunks many times; "garden" in one, once: the garden chunk comes first.
    expect(ids("team garden")).toEqual(["filler.md#1", "filler.md#0"]);
  });

  it("returns at most k hits with the best-matching sentence as snippet; none for stop words or unknown words", () => {
    const [hit] = search(index, "meal allowance", 1);
    expect(hit).toMatchObject({ id: "expenses.md#0", doc: "expenses.md", title: "Expense policy", snippet: "The daily meal allowance on business trips is 60 euros." });
    expect(hit.score).toBeGreaterThan(0);
    expect(search(index, "approval", 1)[0].snippet).toBe("Approval is needed above 500 euros.");
    expect(ids("the of and", 5)).toEqual([]);
    expect(ids("zzzz qqqq")).toEqual([]);
    expect(ids("team", 1)).toHaveLength(1);
    expect(() => search(index, "team", 0)).toThrow("k must be a positive integer, got 0");
  });

  it("reads only the first 64 distinct words of a query (a policy writes it; each word costs a pass over the index)", () => {
    const padding = Array.from({ length: 63 }, (_, i) => `w${i}`).join(" ");
    expect(ids(`${padding} team team garden`, 2)).toEqual(["filler.md#0", "filler.md#1"]);
    expect(ids(`${padding} garden team`, 2)).toEqual(["filler.md#1"]);
    expect(ids(Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(" ") + " garden")).toEqual([]);
  });

  it("refuses two chunks with one id", () => {
    expect(() => buildIndex([CHUNKS[0], CHUNKS[0]])).toThrow('chunk id "expenses.md#0" occurs twice');
  });
});

describe("saveIndex / loadIndex", () => {
  it("a loaded index holds the same chunks and hash and answers like the one saved", async () => {
    const file = join(work, "index.json");
    await saveIndex(index, file);
    const loaded = await loadIndex(file);
    expect(loaded.chunks).toEqual(CHUNKS);
    expect(loaded.hash).toBe(index.hash);
    for (const q of ["batteries", "Hotelübernachtung", "team garden", "meal allowance"]) expect(search(loaded, q, 3)).toEqual(search(index, q, 3));
  });

  it("the hash changes with any chunk's text", () => {
    expect(buildIndex([{ ...CHUNKS[0], text: `${CHUNKS[0].text}!` }, ...CHUNKS.slice(1)]).hash).not.toBe(index.hash);
  });

  it("a missing file, a file that is not JSON, not an index, or of another version is an error naming it", async () => {
    await expect(loadIndex(join(work, "none.json"))).rejects.toThrow(`${join(work, "none.json")}: no such search index`);
    const bad = join(work, "bad.json");
    writeFileSync(bad, "{not json");
    await expect(loadIndex(bad)).rejects.toThrow(`${bad}:1:2: invalid JSON: Expected property name or '}' (a search index: rebuild it)`);
    writeFileSync(bad, JSON.stringify({ chunks: [] }));
    await expect(loadIndex(bad)).rejects.toThrow(`${bad}: not a search index (no "format": "rubricate-search-index")`);
    const good = join(work, "good.json");
    await saveIndex(index, good);
    const saved = JSON.parse(readFileSync(good, "utf8")) as Record<string, unknown>;
    writeFileSync(bad, JSON.stringify({ ...saved, version: 99 }));
    await expect(loadIndex(bad)).rejects.toThrow(`${bad}: search index version 99, this rubricate reads version 1; rebuild it`);
  });
});
