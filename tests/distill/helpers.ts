/** Shared helpers of the distillation tests: a CLI runner with distill registered, rows, and file readers. */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/cli.js";

const ENTRY = join(ROOT, "tests", "distill", "cli-entry.ts");

/** Starts `rubricate <args>` (distill registered) in a child process. */
export function spawnDistill(args: string[], options: { env?: Record<string, string> } = {}): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", ENTRY, ...args], { cwd: ROOT, env: { ...process.env, ...options.env }, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin!.end();
  return child;
}

/** Runs `rubricate <args>` to completion. */
export function runDistillCli(args: string[], options: { env?: Record<string, string> } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnDistill(args, options);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  return new Promise((done) => child.on("close", (code) => done({ code, stdout, stderr })));
}

/** The JSON lines of a file. */
export const readLines = (path: string): Record<string, any>[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** A scored chat row: one user turn, one assistant answer. */
export function chatRow(group: string, answer: string, reward: number | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { task_id: group, messages: [{ role: "user", content: `Question ${group}?` }, { role: "assistant", content: answer }], reward, verdicts: [], ...extra };
}

import { runDistill } from "../../src/distill/run.js";
import type { ExportFormat, FilterOptions } from "../../src/distill/types.js";
import { tempDir } from "../helpers/cli.js";

/** Distills rows in memory into a temp file; returns the exported lines and the report. */
export async function distillRows(rows: Record<string, unknown>[], filters: FilterOptions = {}, format: ExportFormat = "openai", extra: { withMetadata?: boolean } = {}) {
  const output = join(tempDir("rubricate-distill-"), "out.jsonl");
  const result = await runDistill({ input: rows, output, filters, format, withMetadata: extra.withMetadata ?? true });
  return { lines: readLines(output), report: result.report, output };
}

/** The answers (last assistant content) of exported SFT lines. */
export const answers = (lines: Record<string, any>[]): string[] => lines.map((l) => l.messages.at(-1).content);
