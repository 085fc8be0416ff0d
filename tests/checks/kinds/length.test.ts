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

describe("length: markup a reader does not see meets no min", () => {
  const words = (response: string, bounds: { min?: number; max?: number }) => runCheck({ length: { ...bounds, unit: "words" } }, { response });
  it.each([
    ["an HTML comment", "Yes. <!-- one two three four five six seven eight -->"],
    ["a link's address", "Yes. [see](https://example.com/one-two-three-four-five-six-seven-eight)"],
    ["an image's address", "Yes. ![](one-two-three-four-five-six-seven-eight.png)"],
    ["tags", "Yes. <b></b><i></i><u></u><em></em><span></span><div></div><p></p><s></s>"],
    ["character references", "Yes. &#49;&#50;&#51;&#52;&#53;&#54;&#55;&#56;"],
    ["a hidden element", "Yes. <span hidden>one two three four five six seven eight</span>"],
    ["an element a <style> rule hides", "Yes. <style>.pad { display: none }</style><span class=\"pad\">one two three four five six seven eight</span>"],
    ["an element a <style> rule in @media hides by its id", "<style>@media screen { #more { visibility: hidden } }</style>Yes. <p id=more>one two three four five six seven eight</p>"],
  ])("words padded in %s do not count under a min", async (_, response) => {
    expect(await words(response, { min: 5 })).toMatchObject({ pass: false, reasoning: expect.stringMatching(/ as a page shows it \(allowed 5–∞\)$/) });
  });

  it("a min in characters likewise: 'ok' and a comment is two characters", async () => {
    expect(await chars(`ok<!--${"x".repeat(300)}-->`)).toMatchObject({ pass: false, reasoning: expect.stringMatching(/^\d+ chars as written, 2 as a page shows it/) });
  });

  it("a min in characters likewise: 'ok' and an element a <style> rule hides is two characters", async () => {
    expect(await chars(`ok<style>.x{opacity:0}</style><i class=x>${"x".repeat(300)}</i>`)).toMatchObject({ pass: false, reasoning: expect.stringMatching(/^\d+ chars as written, 2 as a page shows it/) });
  });

  it("a <style> rule that does not hide keeps the words it styles", async () => {
    expect(await words("<style>.x { color: red } .y { display: none }</style>Yes. <span class=x>one two three four five</span>", { min: 5 })).toMatchObject({ pass: true });
  });

  it("a max still counts the text as written: markup does not hide words from it", async () => {
    expect(await words("one two three <!-- four five six -->", { max: 3 })).toMatchObject({ pass: false });
    expect(await words("one **two** three", { max: 3 })).toMatchObject({ pass: true, reasoning: "3 words (allowed 0–3)" });
  });

  it("honest markdown keeps its words: emphasis, a link's text, headings and lists count", async () => {
    const response = "# Result\n\n- The **capital** of France is [Paris](https://en.wikipedia.org/wiki/Paris).\n- It has `2.1` million people.";
    // Result, The, capital, of, France, is, Paris, It, has, 2.1, million, people.
    expect(await words(response, { min: 12 })).toMatchObject({ pass: true });
    expect(await words(response, { min: 13 })).toMatchObject({ pass: false });
  });
});
