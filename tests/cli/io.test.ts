import { afterEach, describe, expect, it, vi } from "vitest";
import { printReport } from "../../src/cli/io.js";

describe("printReport", () => {
  afterEach(() => vi.restoreAllMocks());

  it("a terminal gets plain columns without escapes; a pipe gets the markdown", () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const md = "| check | n |\n| --- | ---: |\n| 0 \\< 5 | 3 |\n";
    printReport(md, true);
    printReport(md, false);
    expect(written[0]).toBe("check  n\n-----  -\n0 < 5  3\n");
    expect(written[1]).toBe(md);
  });
});
