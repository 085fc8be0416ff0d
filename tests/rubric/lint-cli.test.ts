import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, describe, expect, it, vi } from "vitest";
import { register } from "../../src/cli/commands/lint.js";
import { tempDir } from "../helpers/cli.js";

const dir = tempDir("rubricate-lint-");
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const examples = "    examples:\n      - { response: a, answer: true }\n      - { response: b, answer: false }\n";
const clean = file("clean.yaml", `id: clean\ncriteria:\n  - id: cites\n    question: Does the response cite a source?\n${examples}`);
const warn = file("warn.yaml", `id: warn\ncriteria:\n  - id: good\n    question: Does the response give a good answer?\n${examples}`);
const error = file("error.yaml", `id: error\ncriteria:\n  - id: rate\n    question: Rate the answer from 1 to 5.\n${examples}`);
const invalid = file("invalid.yaml", "id: bad\ncriteria: 3\n");

async function lint(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true));
  vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
  process.exitCode = undefined;
  const program = new Command("rubricate").exitOverride();
  register(program);
  await program.parseAsync(["node", "rubricate", "lint", ...args]);
  vi.restoreAllMocks();
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, out, err };
}

afterEach(() => vi.restoreAllMocks());

describe("rubricate lint", () => {
  it("exits 0 on a clean rubric and 1 on errors", async () => {
    expect((await lint(clean)).code).toBe(0);
    const result = await lint(error);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/rate: error \[not-yes-no\]/);
    expect(result.out).toMatch(/fix: /);
  });

  it("warnings fail only with --strict", async () => {
    expect((await lint(warn)).code).toBe(0);
    expect((await lint("--strict", warn)).code).toBe(1);
  });

  it("--json prints one object per file, and an invalid file is an error", async () => {
    const result = await lint("--json", clean, error, invalid);
    expect(result.code).toBe(1);
    const lines = result.out.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ file: clean, findings: [], counts: { error: 0 } });
    expect(lines[1].findings[0]).toMatchObject({ criterion: "rate", rule: "not-yes-no", severity: "error" });
    expect(lines[2]).toMatchObject({ file: invalid, error: expect.stringMatching(/SCHEMA/) });
  });
});
