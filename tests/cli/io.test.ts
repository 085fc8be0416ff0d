import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { JsonlWriter, printReport } from "../../src/cli/io.js";

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

describe("JsonlWriter", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("hands lines to standard output as one chunk, in order, 20 ms after the first of them (and at close)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const written: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const writer = new JsonlWriter("-");
    await Promise.all([1, 2].map((n) => writer.write({ n })));
    await new Promise((resolve) => setImmediate(resolve)); // a later event-loop turn: still held
    await writer.write({ n: 3 });
    vi.advanceTimersByTime(19);
    expect(written).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(written).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n']);
    await writer.write({ n: 4 });
    await writer.close(); // flushes what the timer has not, and leaves no timer behind
    expect(written.join("")).toBe('{"n":1}\n{"n":2}\n{"n":3}\n{"n":4}\n');
    expect(vi.getTimerCount()).toBe(0);
  });

  it("writes every line of a large run to the file in order, and an abandoned run's lines to <file>.partial", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rubricate-jsonl-"));
    const lines = Array.from({ length: 3000 }, (_, i) => ({ i, text: "x".repeat(i % 300) })); // over the 64 KB chunk, many times
    const done = new JsonlWriter(join(dir, "done.jsonl"));
    for (const line of lines) await done.write(line);
    await done.close();
    expect(readFileSync(join(dir, "done.jsonl"), "utf8")).toBe(lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    const cut = new JsonlWriter(join(dir, "cut.jsonl"));
    for (const line of lines.slice(0, 5)) await cut.write(line);
    expect(await cut.abandon()).toBe(join(dir, "cut.jsonl.partial"));
    expect(existsSync(join(dir, "cut.jsonl"))).toBe(false);
    expect(readFileSync(join(dir, "cut.jsonl.partial"), "utf8")).toBe(lines.slice(0, 5).map((l) => `${JSON.stringify(l)}\n`).join(""));
  });
});
