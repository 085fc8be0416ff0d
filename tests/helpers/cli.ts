import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { inject } from "vitest";

/** The repository root, for running the CLI from sources. */
export const ROOT = resolve(import.meta.dirname, "..", "..");
const MAIN = join(ROOT, "src", "cli", "main.ts");
/** tsx by file URL: `--import tsx` would be looked up from the child's working folder, which may be a temp folder. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/**
 * The node arguments that start `rubricate`: the built CLI when the run built it (the test file is
 * one of vitest.config.ts's `built` files, see tests/setup/build.ts), else the sources through tsx.
 * One process either way (not the tsx wrapper, which forks): a SIGKILL hits the process doing the work.
 * The built CLI starts in a fraction of the time: tsx compiles the sources in every process.
 */
export function cliEntry(): string[] {
  // Outside a vitest run (bench/ starts servers through these helpers) there is nothing to inject.
  const dist = process.env.VITEST ? inject("rubricateDist") : undefined;
  return dist ? [join(dist, "cli", "main.js")] : ["--import", TSX, MAIN];
}

/** The folders `tempDir` made for the test file running now. */
const madeDirs: string[] = [];

/** A fresh temporary folder, removed with what it holds once its test file has run (tests/setup/temp-dirs.ts). */
export function tempDir(prefix = "rubricate-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/** Removes the folders `tempDir` made; one a test left unremovable (a mount, a lost permission) stays. */
export function removeTempDirs(): void {
  for (const dir of madeDirs.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // left for the operating system's own cleaning of its temporary folder
    }
  }
}

/** Starts `rubricate <args>` in a child process (see `cliEntry`). */
export function spawnCli(args: string[], options: { env?: Record<string, string>; cwd?: string; input?: string } = {}): ChildProcess {
  const child = spawn(process.execPath, [...cliEntry(), ...args], { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, stdio: ["pipe", "pipe", "pipe"] });
  if (options.input !== undefined) child.stdin!.end(options.input);
  else child.stdin!.end();
  return child;
}

/** Runs `rubricate <args>` to completion. */
export function runCli(args: string[], options: Parameters<typeof spawnCli>[1] = {}): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const child = spawnCli(args, options);
  let stdout = "";
  let stderr = "";
  // Decoded as a stream: a character split between two chunks stays whole.
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((done) => child.on("close", (code, signal) => done({ code, signal, stdout, stderr })));
}

/** Writes a judge file pointing at a local test server. */
export function writeJudgeFile(dir: string, url: string, extra: Record<string, unknown> = {}): string {
  const path = join(dir, "judge.yaml");
  const config = { provider: "openai-compatible", base_url: url, model: "judge-model", api_key_env: "RUBRICATE_TEST_KEY", max_concurrency: 4, max_retries: 3, ...extra };
  writeFileSync(path, Object.entries(config).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join("\n"));
  return path;
}

/** Writes samples as JSONL. */
export function writeJsonl(dir: string, name: string, rows: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}
