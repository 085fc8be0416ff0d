import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { escapeMarkdownCell, markdownTable, mdHeading, mdJoin, mdList } from "../../src/report/markdown.js";
import { formatInterval, formatNumber, formatPercent } from "../../src/report/format.js";

describe("markdownTable", () => {
  it("writes a header, an alignment rule and escaped rows", () => {
    const md = markdownTable([{ a: "x|y\nz", n: 2.5 }, { a: "*b*", n: null }], [
      { label: "a", value: "a" },
      { label: "n", value: "n", numeric: true },
    ]);
    expect(md).toBe(["| a | n |", "| --- | ---: |", "| x\\|y z | 2.500 |", "| \\*b\\* | — |"].join("\n"));
  });
  it("keeps one line per row and the column count, whatever the text (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), (cells) => {
        const md = markdownTable(cells.map((c) => ({ c })), [{ label: "c", value: "c" }, { label: "d", value: () => 1 }]);
        const lines = md.split("\n");
        expect(lines).toHaveLength(cells.length + 2);
        for (const l of lines) expect(l.replace(/\\\\/g, "").replace(/\\\|/g, "").split("|")).toHaveLength(4);
      }),
    );
  });
});

describe("markdown helpers", () => {
  it("headings, lists and joins", () => {
    expect(mdHeading("A #1", 3)).toBe("### A \\#1");
    expect(mdList(["- x", "y"])).toBe("- \\- x\n- y");
    expect(mdJoin(["a", "", null, "b"])).toBe("a\n\nb\n");
    expect(escapeMarkdownCell("a\r\nb")).toBe("a b");
  });
  it("formats numbers, percentages and intervals", () => {
    expect(formatNumber(0.12345)).toBe("0.123");
    expect(formatNumber(null)).toBe("—");
    expect(formatNumber(NaN)).toBe("—");
    expect(formatPercent(0.5)).toBe("50.0%");
    expect(formatInterval(0.7, 0.6, 0.8, 2)).toBe("0.70 [0.60, 0.80]");
    expect(formatInterval(0.7, null, 0.8, 2)).toBe("0.70");
  });
});
