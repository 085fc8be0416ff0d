import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { JsonlWriter, printReport, refuseUnwritableOutputs, writeOutputFile } from "../../src/cli/io.js";
import { ROOT, tempDir } from "../helpers/cli.js";

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
    const dir = tempDir("rubricate-jsonl-");
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

describe("refuseUnwritableOutputs", () => {
  afterEach(() => vi.restoreAllMocks());
  const dir = tempDir("rubricate-outputs-");

  /** The one line a refusal prints, or "" when the outputs are accepted. */
  function refusal(outputs: Record<string, string | undefined>, reads: Parameters<typeof refuseUnwritableOutputs>[1] = {}): string {
    let said = "";
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => ((said += String(chunk)), true));
    try {
      refuseUnwritableOutputs(outputs, reads);
    } catch (e) {
      expect((e as { exitCode?: number }).exitCode).toBe(2);
    }
    return said;
  }

  it("accepts a new file (its missing folders included), an existing file, stdout and options not given", () => {
    writeFileSync(join(dir, "old.json"), "{}\n");
    expect(refusal({ "--report": join(dir, "new", "deeper", "r.html"), "--json": join(dir, "old.json"), "--markdown": "-", "--summary-json": undefined, "-o": "/dev/null" })).toBe("");
  });

  it("refuses an output over a file the command reads, through a link or a relative path too, naming both (exit 2)", () => {
    const samples = join(dir, "samples.jsonl");
    writeFileSync(samples, "{}\n");
    symlinkSync(samples, join(dir, "link.jsonl"));
    expect(refusal({ "--summary-json": samples }, { "the samples file": samples })).toBe(
      `rubricate: --summary-json ${samples} is also the samples file (${samples}), which this command reads: writing it would replace that file; write to another file\n`,
    );
    expect(refusal({ "--report": join(dir, "link.jsonl") }, { "the samples file": samples })).toContain("is also the samples file");
    expect(refusal({ "--json": join(dir, "new", "..", "samples.jsonl") }, { "the samples file": samples })).toContain("is also the samples file");
    // A cache not made yet is still the cache: the run creates it, then the output would replace it.
    expect(refusal({ "-o": join(dir, "fresh.db") }, { "--cache": join(dir, ".", "fresh.db") })).toContain(`-o ${join(dir, "fresh.db")} is also --cache`);
    // Every file of a repeatable option counts.
    expect(refusal({ "--json": samples }, { "--verdicts": [join(dir, "other.jsonl"), samples] })).toContain("is also --verdicts");
  });

  it("refuses two outputs on one file, and accepts ones that name no file (stdout, devices, no cache, a URL)", () => {
    const out = join(dir, "out.jsonl");
    expect(refusal({ "-o": out, "--summary-json": out })).toBe(
      `rubricate: --summary-json ${out} is also -o (${out}), another output of this command: writing it would replace that file; write to another file\n`,
    );
    expect(refusal({ "-o": "-", "--json": "-", "--report": "/dev/null", "--markdown": "/dev/null" }, { "the samples file": "-", "--cache": false, "--judge": undefined, "--queue": "redis://127.0.0.1:6379/0" })).toBe("");
    expect(refusal({ "-o": join(dir, "a.jsonl") }, { "the samples file": join(dir, "b.jsonl"), "--cache": null })).toBe("");
  });

  it("refuses a folder, and a path under a file, naming the option (exit 2)", () => {
    expect(refusal({ "--summary-json": dir })).toBe(`rubricate: --summary-json ${dir}: it is a folder; the run would fail only after its work is done (and paid for)\n`);
    const file = join(dir, "a-file.txt");
    writeFileSync(file, "x\n");
    expect(refusal({ "--report": join(file, "sub", "r.html") })).toBe(`rubricate: --report ${join(file, "sub", "r.html")}: ${file} is not a folder; the run would fail only after its work is done (and paid for)\n`);
  });

  // Root may write anywhere: as root, the permission cases run as nobody in a child process.
  it("refuses a folder this user cannot write to, and accepts a read-only file in a folder it can write (replaced by a rename, as -o does)", () => {
    const shared = tempDir("rubricate-outputs-perm-");
    chmodSync(shared, 0o777);
    const locked = join(shared, "locked");
    mkdirSync(locked);
    chmodSync(locked, 0o555);
    const readOnly = join(shared, "old.json");
    writeFileSync(readOnly, "{}\n");
    chmodSync(readOnly, 0o444);
    const script = `import { refuseUnwritableOutputs, writeOutputFile } from ${JSON.stringify(join(ROOT, "src", "cli", "io.ts"))};
      const said = (o) => { try { refuseUnwritableOutputs(o); return ""; } catch (e) { return String(e.message); } };
      const out = { locked: said({ "--report": ${JSON.stringify(join(locked, "r.html"))} }), readOnly: said({ "--json": ${JSON.stringify(readOnly)} }) };
      writeOutputFile(${JSON.stringify(readOnly)}, "{\\"new\\": 1}\\n");
      console.log(JSON.stringify(out));`;
    const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const result = JSON.parse(execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8", env: { ...process.env, HOME: shared }, ...user }));
    expect(result.locked).toContain(`cannot create files in ${locked}`);
    expect(result.readOnly).toBe("");
    expect(readFileSync(readOnly, "utf8")).toBe('{"new": 1}\n');
    expect(existsSync(`${readOnly}.partial`)).toBe(false);
  }, 60_000);

  it("writeOutputFile creates the folders it accepted", () => {
    const path = join(dir, "made", "for", "it.md");
    writeOutputFile(path, "# done\n");
    expect(readFileSync(path, "utf8")).toBe("# done\n");
    expect(existsSync(join(dir, "made"))).toBe(true);
  });
});
