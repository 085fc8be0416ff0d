/**
 * What the `tests` kind declares without running anything: its settings and where test code is
 * set to run. The harness that runs it (check.ts: the referee, the runners, the sandbox) loads on
 * a check's first run, so a program whose rubrics have no `tests` check never loads it.
 */
import * as z from "zod";
import type { CodeRunner } from "./runner.js";

export const TestsSpec = z.strictObject({
  language: z.enum(["python", "javascript", "typescript"]),
  tests: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
    .describe("The tests: a list of test scripts (each one test), one script, or a {{variable}} holding either (a JSON list is read as a list)"),
  entry_point: z.string().min(1).optional().describe("HumanEval: the function the tests' check(candidate) receives"),
  reward: z.enum(["all", "share"]).optional().describe("all (default): pass only when every test passes; share: earn the share of tests passed"),
  timeout_ms: z.number().int().positive().max(600_000).optional().describe("Wall-clock limit for the whole run (default 10000)"),
  test_timeout_ms: z.number().int().positive().max(600_000).optional().describe("Limit per test (default 3000)"),
  memory_mb: z.number().int().min(32).max(65_536).optional().describe("Memory limit (default 512)"),
});
export type TestsSpec = z.infer<typeof TestsSpec>;

/** The variable that opts in to running response code without a sandbox (the CLI's --unsafe-no-sandbox sets it). */
export const UNSAFE_NO_SANDBOX_ENV = "RUBRICATE_UNSAFE_NO_SANDBOX";

// Response code is untrusted: it runs in the bubblewrap sandbox unless the caller chose otherwise.
let runner: CodeRunner | undefined;

/**
 * Sets where test code runs: another sandbox runtime (`sandboxCodeRunner`), or — an explicit
 * choice to trust the code — `childProcessRunner()`; undefined restores the default (bubblewrap,
 * or a plain child process when RUBRICATE_UNSAFE_NO_SANDBOX=1). Returns the previous one.
 */
export function setCodeRunner(next: CodeRunner | undefined): CodeRunner | undefined {
  const previous = runner;
  runner = next;
  return previous;
}

/** The runner set with `setCodeRunner`, if any (check.ts falls back to the default). */
export function chosenCodeRunner(): CodeRunner | undefined {
  return runner;
}

/**
 * From now on, runs `tests` code in a plain child process with resource limits and no isolation
 * (the CLI's --unsafe-no-sandbox): an explicit choice to trust the code. The runners load here,
 * not with this module, so a start-up that never runs code does not load the sandbox.
 */
export async function runCodeUnsandboxed(): Promise<void> {
  const { childProcessRunner } = await import("./runner.js");
  setCodeRunner(childProcessRunner());
}
