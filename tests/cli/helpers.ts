import { ROOT, runCli } from "../helpers/cli.js";
import { runCliInProcess } from "../helpers/cli-in-process.js";

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

/**
 * `cli` inside the test's own process (tests/helpers/cli-in-process.ts), for a test about what the
 * command does rather than about its process: no stdin (a test that pipes samples in keeps `cli`),
 * no signals. Each CLI process costs ~0.4 s of CPU to start; after the first run here the command's
 * modules are loaded.
 */
export function cliInProcess(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  return runCliInProcess(args, { ...options, env: { ...options.env, NO_COLOR: "1", FORCE_COLOR: "0" } });
}

/** The JSON objects of a JSONL text. */
export const jsonLines = (text: string): Record<string, unknown>[] =>
  text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
