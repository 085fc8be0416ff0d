/** Numbers in ASCII (src/text/numerals.ts): the one reading `number`, `math` and `tool_calls` share. */
import { describe, expect, it } from "vitest";
import { asciiNumerals } from "../../src/text/numerals.js";

describe("asciiNumerals", () => {
  it.each([
    ["٤٢", "42"], // Arabic-Indic
    ["۴۲", "42"], // Persian
    ["४२", "42"], // Devanagari
    ["４２", "42"], // full-width
    ["𝟒𝟐", "42"], // mathematical bold, outside the BMP
    ["٣٫٥", "3.5"], // the Arabic decimal separator
    ["١٬٠٢٤", "1,024"], // the Arabic thousands separator
    ["1\u00A0000", "1000"], // a no-break space
    ["12\u2009345\u202F678,5", "12345678,5"], // thin and narrow no-break spaces
    ["\\boxed{\\frac{١\u00A0٠٠٠}{٢}}", "\\boxed{\\frac{1000}{2}}"],
  ])("%j is %j", (text, ascii) => {
    expect(asciiNumerals(text)).toBe(ascii);
  });

  it("every decimal digit Unicode has is its value, the value NFKC gives where NFKC maps it to ASCII", () => {
    for (let code = 0x80; code < 0x110000; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const digit = String.fromCodePoint(code);
      if (!/\p{Nd}/u.test(digit)) continue;
      expect(asciiNumerals(digit), digit).toMatch(/^[0-9]$/);
      const nfkc = digit.normalize("NFKC");
      if (/^[0-9]$/.test(nfkc)) expect(asciiNumerals(digit), digit).toBe(nfkc);
    }
    expect(asciiNumerals("٠١٢٣٤٥٦٧٨٩ ०१२३४५६७८९")).toBe("0123456789 0123456789");
  });

  it("leaves the rest as written: a plain space, a group of other than three digits, superscripts, letters", () => {
    expect(asciiNumerals("1 000")).toBe("1 000");
    expect(asciiNumerals("1\u00A000 and 1\u00A00000")).toBe("1\u00A000 and 1\u00A00000");
    expect(asciiNumerals("10² ½ x\u00A0000")).toBe("10² ½ x\u00A0000");
  });

  it("reads a million characters of digits and no-break spaces in one pass", () => {
    // No clock: a scan that tried every start in the run (n² = 10^12 steps) would outlast the test's 60 s limit.
    const grouped = "1\u00A0".repeat(500_000);
    expect(asciiNumerals(grouped)).toBe(grouped);
    expect(asciiNumerals(`${"٤".repeat(500_000)}\u00A0٠٠٠`)).toBe(`${"4".repeat(500_000)}000`);
  });
});
