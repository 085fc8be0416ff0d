import { describe, expect, it } from "vitest";
import { runChild, runChildRaw } from "../../src/sandbox/process.js";

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
