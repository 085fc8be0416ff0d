import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCliInProcess } from "./cli-in-process.js";
import { tempDir } from "./cli.js";

const dir = () => realpathSync(tempDir("rubricate-in-process-"));

describe("runCliInProcess", () => {
  it("gives a command's exit code and its two streams apart: a bad rubric is exit 1 with file:line:col on stderr, nothing on stdout", async () => {
    const cwd = dir();
    writeFileSync(join(cwd, "bad.yaml"), "id: x\ncriteria:\n  - id: [\n");
    const r = await runCliInProcess(["validate", "bad.yaml"], { cwd });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad\.yaml:\d+:\d+/);
    expect(r.stdout).toBe("");
  });

  it("a usage error is exit 2, a good run exit 0 with its output on stdout", async () => {
    const usage = await runCliInProcess(["validate", "--no-such-option"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--no-such-option");
    const version = await runCliInProcess(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("runs in the folder and with the environment given, and restores this process's after (also after a failure)", async () => {
    const cwd = dir();
    const before = { cwd: process.cwd(), exitCode: process.exitCode, key: process.env.RUBRICATE_IN_PROCESS_TEST };
    writeFileSync(join(cwd, "ok.yaml"), "id: ok\ncriteria:\n  - { id: a, check: { contains: x }, points: 1 }\n");
    const found = await runCliInProcess(["validate", "ok.yaml"], { cwd, env: { RUBRICATE_IN_PROCESS_TEST: "set" } });
    expect(found.code, found.stderr).toBe(0);
    await runCliInProcess(["validate", "missing.yaml"], { cwd, env: { RUBRICATE_IN_PROCESS_TEST: "set" } });
    expect({ cwd: process.cwd(), exitCode: process.exitCode, key: process.env.RUBRICATE_IN_PROCESS_TEST }).toEqual(before);
  });

  it("runs started together one after the other: each sees its own folder and gets its own output", async () => {
    const [a, b] = [dir(), dir()];
    writeFileSync(join(a, "r.yaml"), "id: a\ncriteria:\n  - { id: a, check: { contains: x }, points: 1 }\n");
    writeFileSync(join(b, "r.yaml"), "id: b\ncriteria:\n  - id: [\n");
    const [ra, rb] = await Promise.all([runCliInProcess(["validate", "r.yaml"], { cwd: a }), runCliInProcess(["validate", "r.yaml"], { cwd: b })]);
    expect([ra.code, rb.code]).toEqual([0, 1]);
    expect(ra.stderr).toBe("");
    expect(rb.stderr).toMatch(/r\.yaml:\d+:\d+/);
  });
});
