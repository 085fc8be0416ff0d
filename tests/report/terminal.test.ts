import { describe, expect, it } from "vitest";
import { markdownTable, mdHeading, mdJoin } from "../../src/report/markdown.js";
import { terminalText } from "../../src/report/terminal.js";

describe("terminalText", () => {
  it("prints a markdown table as aligned columns without escapes", () => {
    const md = markdownTable(
      [
        { check: "0 < 5", note: "a|b", n: 3 },
        { check: "x_y *z*", note: "", n: 120 },
      ],
      [
        { label: "check", value: "check" },
        { label: "note", value: "note" },
        { label: "n", value: "n", numeric: true },
      ],
    );
    expect(md).toContain("0 \\< 5");
    expect(terminalText(md).split("\n")).toEqual([
      "check    note    n", //
      "-------  ----  ---",
      "0 < 5    a|b     3",
      "x_y *z*        120",
    ]);
  });

  it("headings and prose lose their markup escapes; plain text passes through", () => {
    const md = mdJoin([mdHeading("Results: 1 < 2"), "reward \\< 0.5 for *every* row"]);
    expect(terminalText(md)).toBe("Results: 1 < 2\n\nreward < 0.5 for *every* row\n");
    expect(terminalText("no markup here")).toBe("no markup here");
  });
});
