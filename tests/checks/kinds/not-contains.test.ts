import { describe, expect, it } from "vitest";
import { runCheck } from "../../../src/checks/run.js";

const pass = async (check: Parameters<typeof runCheck>[0], response: string) => (await runCheck(check, { response })).pass;
/** Each letter of the word followed by the mark: "s̲t̲u̲p̲i̲d̲". */
const marked = (word: string, mark: string) => [...word].map((c) => c + mark).join("");

describe("not_contains: a banned word drawn over or under with marks is still the word", () => {
  it.each([
    ["a low line (underlined)", "\u0332"],
    ["a double low line", "\u0333"],
    ["an overline", "\u0305"],
    ["a long stroke (struck out)", "\u0336"],
    ["a long solidus overlay", "\u0338"],
    ["a vertical line overlay", "\u20D2"],
    ["an enclosing circle", "\u20DD"],
    ["an enclosing keycap", "\u20E3"],
  ])("each letter with %s", async (_, mark) => {
    for (const case_sensitive of [false, true]) expect(await pass({ not_contains: "stupid", case_sensitive }, `You are ${marked("stupid", mark)}.`), JSON.stringify(case_sensitive)).toBe(false);
    expect(await pass({ not_contains: "As an AI" }, marked("As an AI", mark))).toBe(false);
  });

  it("a symbol a mark composes with keeps its meaning, and accents still count", async () => {
    // "≠" is "=" with a long solidus overlay to NFKD; composed, it is not an "=".
    expect(await pass({ not_contains: "=" }, "a \u2260 b")).toBe(true);
    expect(await pass({ contains: "\u2260" }, "a = b")).toBe(false);
    expect(await pass({ contains: "\u2260" }, "a =\u0338 b")).toBe(true);
    expect(await pass({ not_contains: "cafe" }, "un caf\u00E9, un cafe\u0301")).toBe(true);
    expect(await pass({ not_contains: "stupid" }, "st\u00FCpid")).toBe(true);
  });
});

describe("not_contains: a banned word split by markup that shows nothing is still the word", () => {
  it.each([
    ["markdown bold inside the word", "You are stu**p**id."],
    ["markdown italic", "You are *stu*pid."],
    ["a code span", "You are stu`p`id."],
    ["a link's text", "You are [stu](https://example.com)pid."],
    ["an HTML comment", "You are stu<!-- -->pid."],
    ["an HTML tag around a letter", "You are stu<b>p</b>id."],
    ["an empty HTML element", "You are stu<span class=\"x\"></span>pid."],
    ["an element a hidden attribute hides", "You are stu<span hidden>x</span>pid."],
    ["an element a <style> rule hides", "<style>.x{display:none}</style>You are stu<span class=\"x\">x</span>pid."],
    ["a decimal character reference", "You are stu&#112;id."],
    ["a hexadecimal character reference", "You are stu&#x70;id."],
    ["a soft hyphen as a named reference", "You are stu&shy;pid."],
    ["a zero-width space as a named reference", "You are stu&ZeroWidthSpace;pid."],
    ["a right-to-left override reversing the word on screen", "You are \u202Ediputs\u202C."],
    ["a right-to-left override running to the line's end", "You are \u202Ediputs\nYes."],
    ["a right-to-left override reversing part of the word", "You are stu\u202Edip\u202C."],
  ])("%s", async (_, response) => {
    for (const case_sensitive of [false, true]) expect(await pass({ not_contains: "stupid", case_sensitive }, response), JSON.stringify(case_sensitive)).toBe(false);
  });

  it("a banned phrase split by markdown bold, or by a link around some of its words", async () => {
    expect(await pass({ not_contains: "As an AI" }, "**As an** AI, I cannot help.")).toBe(false);
    expect(await pass({ not_contains: "As an AI" }, "[As an](https://example.com) AI, I cannot help.")).toBe(false);
  });

  it("markup that shows the characters apart, or shows them as written, keeps them apart", async () => {
    for (const response of ["stu_pid", "stu<br>pid", "stu<p>pid", "stu&amp;pid", "&lt;b&gt;stu&lt;/b&gt;pid", "st&amp;#117;pid", "<!-- stu -->pid"]) {
      expect(await pass({ not_contains: "stupid" }, response), JSON.stringify(response)).toBe(true);
    }
    expect(await pass({ not_contains: "stupid" }, "<!-- stupid -->")).toBe(false);
    expect(await pass({ not_contains: "As an AI" }, "As an engineer, I **would** use a lock.")).toBe(true);
  });

  it("an unclosed comment or tag, or a long run of markup, is read in linear time", async () => {
    for (const unit of ["<!--", "<a ", "[a", "](", "&#1", "**", "\u202E", "<b>"]) {
      expect(await pass({ not_contains: "stupid" }, `${unit.repeat(100_000)}x`), JSON.stringify(unit)).toBe(true);
    }
    // No clock: a reading quadratic in any of these runs (400,000 characters each) would outlast the test's 60 s limit.
  });
});
