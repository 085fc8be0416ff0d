import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkKindsTable, withCheckKindsTable } from "../../src/checks/docs.js";
import { CHECK_KINDS } from "../../src/checks/kinds.js";

describe("the check kinds table in docs/writing-rubrics.md", () => {
  it("is the table generated from the kinds (never stale)", () => {
    const doc = readFileSync("docs/writing-rubrics.md", "utf8");
    expect(doc, "docs/writing-rubrics.md is stale: run `npm run docs:checks`").toBe(withCheckKindsTable(doc));
  });

  it("has one row per kind, with its summary", () => {
    const table = checkKindsTable();
    for (const kind of CHECK_KINDS) expect(table).toContain(`| \`${kind.key}\` | ${kind.summary.replace(/</g, "&lt;")} |`);
    expect(table.split("\n")).toHaveLength(CHECK_KINDS.length + 2);
  });

  it("refuses a document without the markers instead of writing nowhere", () => {
    expect(() => withCheckKindsTable("# no table here")).toThrow(/markers are missing/);
  });
});
