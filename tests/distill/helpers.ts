/** Shared helpers of the distillation tests: the CLI, rows, and file readers. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, spawnCli } from "../helpers/cli.js";

/** Starts `rubricate <args>` in a child process. */
export const spawnDistill = (args: string[], options: { env?: Record<string, string> } = {}) => spawnCli(args, options);

/** Runs `rubricate <args>` to completion. */
export const runDistillCli = (args: string[], options: { env?: Record<string, string> } = {}) => runCli(args, options);

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
