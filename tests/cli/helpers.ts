import { ROOT, runCli } from "../helpers/cli.js";

export { ROOT };

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `rubricate …` from the sources in the project root, without colour (the one CLI runner, tests/helpers/cli.ts). */
export function cli(args: string[], options: { input?: string; cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  const run = runCli(args, { ...options, input: options.input ?? "", env: { ...options.env, NO_COLOR: "1", FORCE_COLOR: "0" } });
  return run.then(({ code, stdout, stderr }) => ({ code, stdout, stderr }));
}

/** The JSON objects of a JSONL text. */
export const jsonLines = (text: string): Record<string, unknown>[] =>
  text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
