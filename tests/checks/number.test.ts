/** Numbers as a reader reads them: digits of any script are digits. */
import { describe, expect, it } from "vitest";
import { extractNumber } from "../../src/checks/number.js";
import { runCheck } from "../../src/checks/run.js";

describe("digits of other scripts", () => {
  it.each([
    ["The answer is ٤٢", 42], // Arabic-Indic
    ["The answer is ۴۲", 42], // Persian
    ["उत्तर ४२ है", 42], // Devanagari
    ["答えは４２です", 42], // full-width
    ["\\boxed{𝟒𝟐}", 42], // mathematical bold
    ["\\boxed{١٬٠٢٤}", 1024], // with the Arabic thousands separator
    ["so ٣٫٥", 3.5], // and decimal separator
  ])("%j reads as %d", (text, value) => {
    expect(extractNumber(text, undefined)).toBe(value);
  });

  it("every decimal digit Unicode has reads as its value", () => {
    for (let code = 0x80; code < 0x110000; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const digit = String.fromCodePoint(code);
      if (!/\p{Nd}/u.test(digit)) continue;
      const nfkc = digit.normalize("NFKC");
      // Where Unicode itself maps a digit to ASCII (full-width, mathematical), the two agree.
      if (/^[0-9]$/.test(nfkc)) expect(extractNumber(`x ${digit}`, undefined), digit).toBe(Number(nfkc));
    }
    expect([..."٠١٢٣٤٥٦٧٨٩"].map((d) => extractNumber(d, undefined))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect([..."०१२३४५६७८९"].map((d) => extractNumber(d, undefined))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("a number check passes a right answer in another script's digits, and fails a wrong one", async () => {
    expect((await runCheck({ number: { expected: 42 } }, { response: "الجواب هو ٤٢" })).pass).toBe(true);
    expect((await runCheck({ number: { expected: 42 } }, { response: "الجواب هو ٤٣" })).pass).toBe(false);
    expect((await runCheck({ number: { expected: 1024 } }, { response: "Answer: １０２４" })).pass).toBe(true);
  });

  it("superscripts and fractions a reader does not read as digits stay as they were: 10² is not 102", () => {
    expect(extractNumber("10²", undefined)).toBe(10);
    expect(extractNumber("½", undefined)).toBeUndefined();
  });
});

describe("thousands grouped by a no-break or thin space (SI, French)", () => {
  it.each([
    ["La réponse est 1\u00A0000", 1000],
    ["La réponse est 1\u202F000,5", 1000.5],
    ["12\u2009345\u2009678 m", 12345678],
    ["\\boxed{1\u202F024}", 1024],
    // Grouped before a fraction is read (text/numerals.ts, shared with math): it was not a number.
    ["\\boxed{\\frac{1\u00A0000}{4}}", 250],
  ])("%j reads as %d", (text, value) => {
    expect(extractNumber(text, undefined)).toBe(value);
  });

  it("a plain space separates two numbers in prose, and a group of other than three digits is not thousands", () => {
    expect(extractNumber("between 1 and 000", "last")).toBe(0);
    expect(extractNumber("1\u00A000", "last")).toBe(0);
  });

  it("in a box, thousands grouped by plain spaces are one number, as math mode typesets them (and as `math` reads them)", async () => {
    expect(extractNumber("\\boxed{1 000}", undefined)).toBe(1000);
    expect(extractNumber("\\boxed{12 345 678}", undefined)).toBe(12345678);
    expect(extractNumber("\\boxed{-1 000.5}", undefined)).toBe(-1000.5);
    expect((await runCheck({ number: { expected: 1000 } }, { response: "The total is \\boxed{1 000}." })).pass).toBe(true);
    // Not thousands: still two numbers in one box, a hedge.
    expect(extractNumber("\\boxed{3 5}", undefined)).toBeNaN();
    expect(extractNumber("\\boxed{1 00}", undefined)).toBeNaN();
    expect(extractNumber("\\boxed{1 0000}", undefined)).toBeNaN();
    expect(extractNumber("\\boxed{1000 000}", undefined)).toBeNaN();
  });
});

describe("an operation on a number is the number it makes", () => {
  it.each([
    ["\\boxed{5^3}", 125],
    ["\\boxed{2^{10}}", 1024],
    ["\\boxed{10^{-3}}", 0.001],
    ["\\boxed{-2^2}", -4], // the sign applies to the power
    ["\\boxed{\\sqrt{144}}", 12],
    ["\\boxed{\\sqrt{5}}", Math.sqrt(5)],
    ["\\boxed{5!}", 120],
    ["The answer is 5^3.", 125],
    // Degrees, units and subscripts are no operation: the number is the one written.
    ["\\boxed{30^\\circ}", 30],
    ["\\boxed{30^{\\circ}}", 30],
    ["\\boxed{25 m^{2}}", 25],
    ["\\boxed{5\\text{ cm}^3}", 5],
    ["The area is 25 m^2", 25],
    ["So x_1 = 7", 7],
    ["\\boxed{1.5 \\times 10^{3}}", 1500],
  ])("%j reads as %d", (text, value) => {
    expect(extractNumber(text, undefined)).toBe(value);
  });

  it("a power is written out exactly, so a whole number past 2^53 keeps its digits", async () => {
    expect(await runCheck({ number: { expected: "{{answer}}" } }, { response: "\\boxed{2^{64}}", answer: "18446744073709551616" })).toMatchObject({ pass: true });
    expect(await runCheck({ tool_calls: { answer_uses: "calculator" } }, { response: "The answer is 2^{64}.", tool_calls: [{ name: "calculator", arguments: "{}", result: "18446744073709551617" }] })).toMatchObject({ pass: false });
  });

  it("a number with an operation on it is not that number: a wrong answer does not pass as the right one", async () => {
    // Each was read as the 5 it is written with, and passed a check expecting 5.
    for (const response of ["\\boxed{5^3}", "\\boxed{\\sqrt{5}}", "\\boxed{5!}", "\\boxed{\\log 5}", "\\boxed{\\sin 5}", "\\boxed{(5)^2}", "\\boxed{5^{x}}"]) {
      expect(await runCheck({ number: { expected: 5 } }, { response }), response).toMatchObject({ pass: false });
    }
    // An operation it cannot carry out, or a power too long to write, is not one number.
    for (const response of ["\\boxed{\\log 8}", "\\boxed{9^{99999999}}", "\\boxed{200!}"]) {
      expect(await runCheck({ number: { expected: 8 } }, { response }), response).toMatchObject({ pass: false, reasoning: expect.stringMatching(/^the boxed answer is not one number/) });
    }
  });
});
