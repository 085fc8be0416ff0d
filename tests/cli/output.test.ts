/**
 * Where `-o` writes (issue 16, items 10 and 18): a regular file or nothing is replaced atomically
 * through `<file>.partial`; a special file (/dev/null, a FIFO, /dev/stdout) is written directly,
 * never renamed over; a symlink is followed; an impossible path is a one-line error, not a hang
 * or a stack trace.
 */
import { execFileSync, spawn } from "node:child_process";
import { closeSync, createReadStream, existsSync, lstatSync, mkdtempSync, openSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { runCli, tempDir } from "../helpers/cli.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, jsonLines, ROOT } from "./helpers.js";
import { cliEntry } from "../helpers/cli.js";

const RUBRIC = "rubrics/structured-output.yaml";
const SAMPLES = "examples/quickstart/samples.jsonl";
const dir = tempDir("rubricate-output-");
const sampleCount = readFileSync(SAMPLES, "utf8").split("\n").filter((l) => l.trim()).length;

describe("score -o", () => {
  it("/dev/null stays the null device", async () => {
    const r = await cli(["score", RUBRIC, SAMPLES, "-o", "/dev/null", "-q"]);
    expect(r.code).toBe(0);
    expect(statSync("/dev/null").isCharacterDevice()).toBe(true);
    expect(existsSync("/dev/null.partial")).toBe(false);
  });

  it("a symlink stays a symlink and its target gets the results", async () => {
    const target = join(dir, "real.jsonl");
    writeFileSync(target, "old\n");
    const link = join(dir, "link.jsonl");
    symlinkSync(target, link);
    const r = await cli(["score", RUBRIC, SAMPLES, "-o", link, "-q"]);
    expect(r.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(jsonLines(readFileSync(target, "utf8"))).toHaveLength(sampleCount);
  });

  it("a FIFO is written through (a reader gets the lines) and stays a FIFO", async () => {
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    let got = "";
    const reading = new Promise<void>((done) => {
      const s = createReadStream(fifo, { encoding: "utf8" });
      s.on("data", (d) => (got += d));
      s.on("end", () => done());
    });
    const r = await cli(["score", RUBRIC, SAMPLES, "-o", fifo, "-q"]);
    await reading;
    expect(r.code).toBe(0);
    expect(jsonLines(got)).toHaveLength(sampleCount);
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it("/dev/stdout writes to standard output", async () => {
    const r = await cli(["score", RUBRIC, SAMPLES, "-o", "/dev/stdout", "-q"]);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)).toHaveLength(sampleCount);
  });

  // A run that spun under /proc would end at the test timeout (60 s, vitest.config.ts), not here.
  it("a path that cannot exist is a one-line WRITE_FAILED at once (no spinning under /proc, no stack)", async () => {
    const r = await cli(["score", RUBRIC, SAMPLES, "-o", "/proc/nope/x", "-q"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^rubricate: WRITE_FAILED: cannot write \/proc\/nope\/x: /);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("an unwritable --summary-json after the work is a one-line error, and the results are kept", async () => {
    const out = join(dir, "kept.jsonl");
    const r = await cli(["score", RUBRIC, SAMPLES, "-o", out, "-q", "--summary-json", join(out, "summary.json")]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(jsonLines(readFileSync(out, "utf8"))).toHaveLength(sampleCount);
  });
});

/** Mounts a tmpfs of `kb` KiB (root only): a real full disk; undefined when mounting is not allowed here. */
function smallDisk(kb: number): { path: string; unmount(): void } | undefined {
  const path = mkdtempSync(join(tmpdir(), "rubricate-full-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${kb}k`, "tmpfs", path], { stdio: "ignore" });
  } catch {
    rmSync(path, { recursive: true, force: true });
    return undefined;
  }
  return { path, unmount: () => (execFileSync("umount", [path]), rmSync(path, { recursive: true, force: true })) };
}

describe("score -o on a full disk", () => {
  // Enough samples that the results cannot fit in what is left of the disk.
  const many = join(dir, "many.jsonl");
  writeFileSync(many, Array.from({ length: 400 }, (_, i) => JSON.stringify({ id: i, response: `{"answer": "${"x".repeat(40)}"}` })).join("\n") + "\n");

  it("a size-capped tmpfs that fills up: exit 1, one WRITE_FAILED line naming the file, the previous file kept", async (ctx) => {
    const disk = smallDisk(64);
    if (!disk) return ctx.skip("mounting a tmpfs needs root");
    try {
      const out = join(disk.path, "out.jsonl");
      writeFileSync(out, '{"previous": true}\n');
      writeFileSync(join(disk.path, "filler"), Buffer.alloc(44 * 1024));
      const r = await cli(["score", RUBRIC, many, "-o", out, "-q"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^rubricate: WRITE_FAILED: cannot write .*out\.jsonl: ENOSPC/m);
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(readFileSync(out, "utf8")).toBe('{"previous": true}\n');
    } finally {
      disk.unmount();
    }
  });

  it("a full disk reported only when the data is flushed (fsync: NFS, quotas, thin volumes): exit 1, the previous file kept, not replaced by an empty one", async () => {
    const out = join(dir, "synced.jsonl");
    writeFileSync(out, '{"previous": true}\n');
    const inject = pathToFileURL(join(import.meta.dirname, "fixtures", "fsync-enospc.mjs")).href;
    const r = await runCli(["score", RUBRIC, SAMPLES, "-o", out, "-q"], { env: { NODE_OPTIONS: `--import=${inject}` } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^rubricate: WRITE_FAILED: cannot write .*synced\.jsonl: ENOSPC no space left on device, fsync$/m);
    expect(readFileSync(out, "utf8")).toBe('{"previous": true}\n');
  });

  it("`score > /dev/full`: one line, no stack trace, exit 1", async () => {
    const full = openSync("/dev/full", "w");
    const child = spawn(process.execPath, [...cliEntry(), "score", RUBRIC, many, "-q"], { cwd: ROOT, stdio: ["ignore", full, "pipe"] });
    closeSync(full);
    let stderr = "";
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const code = await new Promise<number | null>((r) => child.on("close", (c) => r(c)));
    expect(code).toBe(1);
    expect(stderr).toBe("rubricate: WRITE_FAILED: cannot write standard output: ENOSPC no space left on device, write\n");
  });
});

describe("a closed pipe", () => {
  it("`rubricate draft --help | true` exits quietly: no EPIPE stack trace", async () => {
    for (let i = 0; i < 3; i++) {
      const stderr = await new Promise<string>((done) => {
        const child = spawn("sh", ["-c", `"${process.execPath}" ${cliEntry().join(" ")} draft --help | true`], { cwd: ROOT });
        let err = "";
        child.stderr.on("data", (d) => (err += d));
        child.on("close", () => done(err));
      });
      expect(stderr).toBe("");
    }
  });
});
