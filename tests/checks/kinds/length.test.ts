import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { visibleChars } from "../../../src/checks/kinds/length.js";
import { runCheck } from "../../../src/checks/run.js";

const chars = async (response: string, min = 200) => runCheck({ length: { min } }, { response });

describe("length in chars: padding earns nothing", () => {
  it.each([
    ["spaces", " "],
    ["newlines", "\n"],
    ["tabs and no-break spaces", "\t\u00A0"],
    ["zero-width spaces", "\u200B"],
    ["word joiners and Braille blanks", "\u2060\u2800"],
    ["Hangul fillers", "\u3164"],
    ["stacked accents", "\u0301"],
  ])("a two-letter answer padded with 300 %s is two characters under a min", async (_, pad) => {
    expect(await chars(`ok${pad.repeat(300)}`)).toMatchObject({ pass: false, reasoning: "2 chars (allowed 200–∞)" });
    expect(await chars(`${pad.repeat(300)}ok`)).toMatchObject({ pass: false, reasoning: "2 chars (allowed 200–∞)" });
  });

  it("white space between words counts once, however long the run", async () => {
    expect(await chars(`one${" \n\t".repeat(100)}two`, 8)).toMatchObject({ pass: false, reasoning: "7 chars (allowed 8–∞)" });
  });

  it("padding at either end never changes the count, whatever the text", () => {
    const pad = fc.array(fc.constantFrom(" ", "\n", "\t", "\u00A0", "\u200B", "\u2060", "\u00AD", "\u2800", "\u3164", "\u0301", "\u0308"), { maxLength: 40 }).map((cs) => cs.join(""));
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 30 }), pad, pad, (text, before, after) => visibleChars(`${before}${text}${after}`) === visibleChars(text)));
  });
});

describe("length in chars: honest text counts as a reader sees it", () => {
  it("letters, digits and punctuation one each; an accent is part of its letter, composed or not; an emoji is one", () => {
    expect(visibleChars("Paris, 2024.")).toBe(12);
    expect(visibleChars("café")).toBe(4);
    expect(visibleChars("cafe\u0301")).toBe(4);
    expect(visibleChars("😀😀")).toBe(2);
    expect(visibleChars("Москва")).toBe(6);
  });

  it("a trailing newline no longer counts against a max", async () => {
    expect(await runCheck({ length: { max: 5 } }, { response: "12345\n" })).toMatchObject({ pass: true, reasoning: "5 chars (allowed 0–5)" });
  });
});
