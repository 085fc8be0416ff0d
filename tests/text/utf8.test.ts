/** Where bytes stop being UTF-8 (src/text/utf8.ts), checked against node's own validator. */
import { isUtf8 } from "node:buffer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeUtf8, firstInvalidByte } from "../../src/text/utf8.js";

describe("firstInvalidByte", () => {
  it("is -1 exactly for what node calls UTF-8; else every byte before it is UTF-8 and no sequence starts at it", () => {
    // Bytes drawn near the boundaries of the encoding: leads, continuations, overlong and surrogate starts.
    const byte = fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0x9f, 0xa0, 0x8f, 0x90));
    const text = fc.string({ unit: "grapheme" }).map((s) => [...Buffer.from(s)]);
    fc.assert(
      fc.property(fc.array(fc.oneof(byte.map((b) => [b]), text)), (parts) => {
        const bytes = Buffer.from(parts.flat());
        const at = firstInvalidByte(bytes);
        expect(at === -1).toBe(isUtf8(bytes));
        if (at >= 0) {
          expect(isUtf8(bytes.subarray(0, at))).toBe(true);
          // Nothing from `at` on decodes: every prefix from there that ends before the next byte is invalid.
          for (let end = at + 1; end <= Math.min(at + 4, bytes.length); end++) expect(isUtf8(bytes.subarray(at, end))).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("decodeUtf8", () => {
  it("gives the text of UTF-8, U+FFFD written as such included, and the line and column of a first invalid byte", () => {
    expect(decodeUtf8(Buffer.from("a\uFFFDb"))).toEqual({ text: "a\uFFFDb" });
    expect(decodeUtf8(Buffer.from([0x61, 0x0a, 0xc3, 0xa9, 0xe9, 0x0a]))).toEqual({ bad: { line: 2, col: 2, byte: 0xe9 } });
    // Overlong "/" and an encoded surrogate: node's decoder made U+FFFD of them too.
    expect(decodeUtf8(Buffer.from([0xc0, 0xaf]))).toEqual({ bad: { line: 1, col: 1, byte: 0xc0 } });
    expect(decodeUtf8(Buffer.from([0x78, 0xed, 0xa0, 0x80]))).toEqual({ bad: { line: 1, col: 2, byte: 0xed } });
  });
});
