import { afterEach, describe, expect, it, vi } from "vitest";
import { Progress } from "../../src/cli/progress.js";

describe("Progress", () => {
  afterEach(() => vi.restoreAllMocks());

  it("the last line printed reports the final count, even when the throttle skipped it (issue 16)", () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const progress = new Progress(undefined, true);
    for (let done = 1; done <= 1000; done++) progress.update(done, `calls ${done}`);
    progress.finish();
    const printed = lines.join("").split(/[\r\n]/).filter((l) => /samples/.test(l));
    expect(printed[0]).toMatch(/\b1 samples/);
    expect(printed.at(-1)).toMatch(/\b1000 samples .*calls 1000/);
  });
});
