import { afterEach, describe, expect, it, vi } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { countLines, formatDuration, Progress } from "../../src/cli/progress.js";
import { tempDir } from "../helpers/cli.js";

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

  it("computes a function's extra text only for the lines it prints, and never when disabled (-q)", () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const t = 60_000; // the clock stands still: the first update prints, the throttle holds the rest
    let computed = 0;
    const extra = () => `calls ${++computed}`;
    const progress = new Progress(undefined, true, { now: () => t });
    for (let done = 1; done <= 1000; done++) progress.update(done, extra);
    progress.finish(); // the skipped last count
    expect(computed).toBe(2);
    expect(lines.join("")).toMatch(/\b1000 samples .*calls 2/);
    const quiet = new Progress(undefined, false);
    for (let done = 1; done <= 1000; done++) quiet.update(done, extra);
    quiet.finish();
    expect(computed).toBe(2);
  });

  it("shows the total and an ETA from this run's rate (a resumed run's earlier samples do not count as speed)", () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    let t = 0;
    const progress = new Progress(undefined, true, { already: 50, now: () => t });
    progress.setTotal(200);
    t = 10_000;
    progress.update(60); // 10 samples in 10 s: 1/s, 140 to go
    progress.finish();
    const printed = lines.join("").split(/[\r\n]/).filter((l) => /samples/.test(l));
    expect(printed.at(-1)).toMatch(/\b60\/200 samples {2}1\.0\/s {2}ETA 2m20s/);
  });

  it("formats durations and counts a file's lines, a last line without a newline included", async () => {
    expect([formatDuration(45), formatDuration(185), formatDuration(7620)]).toEqual(["45s", "3m05s", "2h07m"]);
    const dir = tempDir("rubricate-progress-");
    writeFileSync(join(dir, "a.jsonl"), "{}\n{}\n{}");
    writeFileSync(join(dir, "b.jsonl"), "{}\n{}\n");
    expect(await countLines(join(dir, "a.jsonl"))).toBe(3);
    expect(await countLines(join(dir, "b.jsonl"))).toBe(2);
    expect(await countLines(join(dir, "missing.jsonl"))).toBeUndefined();
  });
});
