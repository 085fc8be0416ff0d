import { spawnSync } from "node:child_process";
import { openSync, closeSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { runChild, runChildRaw } from "../../src/sandbox/process.js";
import { tempDir } from "../helpers/cli.js";

const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const PROCESS = pathToFileURL(join(import.meta.dirname, "../../src/sandbox/process.ts")).href;

describe("runChildRaw", () => {
  it("a command that cannot start says why, apart from one that exits 127", async () => {
    const missing = await runChildRaw({ file: "/nonexistent/tool", args: [], env: {} }, { timeoutMs: 5000 });
    expect(missing).toMatchObject({ exitCode: 127, startError: expect.objectContaining({ code: "ENOENT" }) });
    expect(missing.stderr.toString()).toContain("cannot start /nonexistent/tool");
    const exits127 = await runChildRaw({ file: "/bin/sh", args: ["-c", "exit 127"], env: {} }, { timeoutMs: 5000 });
    expect(exits127.exitCode).toBe(127);
    expect(exits127.startError).toBeUndefined();
  });

  it("keeps the first bytes of each stream and says more came", async () => {
    const r = await runChildRaw({ file: "/bin/sh", args: ["-c", "printf 0123456789; printf abcdefghij >&2"], env: {} }, { timeoutMs: 5000, outputBytes: 4 });
    expect([r.stdout.toString(), r.stderr.toString(), r.truncated]).toEqual(["0123", "abcd", true]);
  });

  it("runChild gives text and no start error field", async () => {
    const r = await runChild({ file: "/nonexistent/tool", args: [], env: {} }, { timeoutMs: 5000 });
    expect(r.exitCode).toBe(127);
    expect("startError" in r).toBe(false);
  });
});

describe("descriptors a launcher left open", () => {
  it("reach no command: each is /dev/null there, so the code a sandbox runs cannot write to the launcher's pipe or file", () => {
    const dir = tempDir("rubricate-stray-fd-");
    const target = join(dir, "launcher-log");
    const fd = openSync(target, "a");
    // The child inherits the file on fd 100 without close-on-exec. (Node marks the descriptors it
    // inherits close-on-exec at start, but only up to the first gap above 15: a launcher's pipe
    // at 251, say, stays open in every child it spawns.)
    const script = `const { runChild } = await import(${JSON.stringify(PROCESS)});
const r = await runChild({ file: "/bin/sh", args: ["-c", "readlink /proc/self/fd/100; echo written > /proc/self/fd/100"], env: {} }, { timeoutMs: 10000 });
process.stdout.write(r.stdout + r.stderr);`;
    const run = spawnSync(process.execPath, ["--import", TSX, "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe", ...Array<"ignore">(97).fill("ignore"), fd], encoding: "utf8", timeout: 60_000 });
    closeSync(fd);
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("/dev/null");
    expect(readFileSync(target, "utf8")).toBe("");
  });
});
