import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { csvRecords, parseCsv } from "../../src/calibrate/csv.js";
import { isRubricateError } from "../../src/errors.js";

describe("parseCsv (RFC 4180)", () => {
  it("reads quoted fields with commas, doubled quotes and newlines, CRLF and LF", () => {
    expect(parseCsv('a,b\r\n"x,1","say ""hi"""\n"two\nlines",\n')).toEqual([["a", "b"], ["x,1", 'say "hi"'], ["two\nlines", ""]]);
  });
  it("drops a BOM, keeps a last line without newline, skips blank lines", () => {
    expect(parseCsv("\uFEFFa,b\n\n1,2")).toEqual([["a", "b"], ["1", "2"]]);
  });
  it("an unterminated quote is BAD_INPUT naming its line", () => {
    try {
      parseCsv('a\n"open', "l.csv");
      expect.unreachable();
    } catch (e) {
      expect(isRubricateError(e, "BAD_INPUT")).toBe(true);
      expect((e as Error).message).toContain("l.csv:2");
    }
  });
  it("round-trips any fields written with RFC 4180 quoting (property)", () => {
    const field = fc.string({ unit: fc.constantFrom("a", ",", '"', "\n", "\r\n", " ", "é") });
    fc.assert(
      fc.property(fc.array(fc.array(field, { minLength: 2, maxLength: 4 }), { minLength: 1, maxLength: 5 }), (rows) => {
        const text = rows.map((r) => r.map((f) => `"${f.replace(/"/g, '""')}"`).join(",")).join("\r\n");
        expect(parseCsv(text)).toEqual(rows);
      }),
    );
  });
});

describe("csvRecords", () => {
  it("keys rows by the header and rejects ragged rows", () => {
    expect(csvRecords("id,label\ns1,yes\n")).toEqual([{ record: { id: "s1", label: "yes" }, row: 2 }]);
    expect(() => csvRecords("id,label\ns1\n")).toThrow(/row 2 has 1 fields/);
  });
  it("a ragged row names the file and line it ends on, past a quoted field that spans lines", () => {
    expect(() => csvRecords('id,label\n"s\n1",yes\ns2\n', "l.csv")).toThrow(/l\.csv:4/);
  });
  // The record kept the last column's value: "no" here, read as the label.
  it("a header that names a column twice is BAD_INPUT at the header's line", () => {
    expect(() => csvRecords("\nid,label,label\ns1,yes,no\n", "l.csv")).toThrow(/^l\.csv:2: the CSV header names the column "label" twice$/);
  });
});
