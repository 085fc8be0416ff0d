import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { isMainThread, parentPort, Worker, workerData, type WorkerOptions } from "node:worker_threads";
import { parse as parseYaml } from "yaml";
import { tsxLoaderURL } from "../config/tsx-loader.js";
import { RubricateError } from "../errors.js";
import { removeSpillsOfThisProcess } from "../engine/batch/spill.js";
import { EXIT } from "./run.js";

/**
 * Long batch runs go on in a worker thread whose heap is capped. Why: V8 lets the old generation
 * grow far past what is live before it collects (node's default limit is ~4 GB), so a batch run
 * of a million requests peaked near 300 MB of which ~25 MB was live data. The limit cannot be
 * moved inside a running isolate (`v8.setFlagsFromString` does not), but a worker gets its own.
 *
 * A cap that turns out too small ends the worker, not the process, and the run goes again with a
 * larger one. That costs no paid call twice: batch mode requires a persistent cache (every answer
 * is a row there) and keeps its jobs in the job store, so the next attempt collects what the last
 * one submitted and reads what it collected. Only an attempt that already wrote result lines to
 * stdout is not repeated (they would be written twice); it fails with the command to go on.
 */

let cliEntry: URL | undefined;

/** Names the CLI's entry file, so a command can run itself again in a worker (main.ts calls it). */
export function setCliEntry(url: string): void {
  cliEntry = new URL(url);
}

/** Default old-generation cap (MB) of a batch worker; `RUBRICATE_BATCH_HEAP_MB` sets another. */
export const DEFAULT_BATCH_HEAP_MB = 128;

/** The caps tried in turn: the chosen one, four times it, then node's default (undefined). */
export function heapCaps(env: NodeJS.ProcessEnv = process.env): (number | undefined)[] {
  const text = env.RUBRICATE_BATCH_HEAP_MB;
  if (text === undefined || text === "") return [DEFAULT_BATCH_HEAP_MB, DEFAULT_BATCH_HEAP_MB * 4, undefined];
  const mb = Number(text);
  if (text === "0" || text === "off") return [undefined];
  if (!Number.isInteger(mb) || mb < 1) throw new RubricateError("BAD_INPUT", `RUBRICATE_BATCH_HEAP_MB must be a whole number of megabytes, or off (got "${text}")`);
  return [mb, mb * 4, undefined];
}

/**
 * Whether a `score` command line asks for batch mode, read cheaply before any command module is
 * loaded (they would stay in the waiting thread's memory): `--batch`, or `mode: batch` in the judge
 * file `--judge` names or, without it, the one the rubric's `judge:` names. Only files are read
 * (the packaged judges are not batch judges) and nothing is validated here; a case this misses
 * (a judge inherited through `extends`) is still moved to a worker by the command, with its
 * modules loaded.
 */
export function asksForBatch(args: string[], cwd = process.cwd()): boolean {
  if (args.includes("--batch")) return true;
  const judgeAt = args.findIndex((a) => a === "--judge" || a === "-j");
  const inline = args.find((a) => a.startsWith("--judge="))?.slice("--judge=".length);
  const rubric = args.slice(1).find((a) => !a.startsWith("-"));
  const judge = inline ?? (judgeAt >= 0 ? args[judgeAt + 1] : rubric === undefined ? undefined : fieldOf(resolve(cwd, rubric), "judge"));
  return typeof judge === "string" && fieldOf(resolve(cwd, judge), "mode") === "batch";
}

/** A top-level field of a YAML file, or undefined when the path is no small YAML file (it may be an option's value, a samples file). */
function fieldOf(path: string, field: string): unknown {
  try {
    if (!/\.ya?ml$/i.test(path)) return undefined;
    const stat = statSync(path);
    if (!stat.isFile() || stat.size > 1024 * 1024) return undefined;
    const value: unknown = parseYaml(readFileSync(path, "utf8"));
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[field] : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the user already set a heap limit for this process (node flag or NODE_OPTIONS): then it is theirs to keep. */
function heapLimitChosen(): boolean {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
  return flags.some((f) => /^--max[-_]old[-_]space[-_]size/.test(f));
}

/**
 * Runs this same CLI command in a heap-capped worker and resolves to its exit code; resolves to
 * undefined when the command should simply go on here: already in a worker, a heap limit the user
 * chose, `RUBRICATE_BATCH_HEAP_MB=off`, or the CLI is not what is running (library use).
 */
export async function runInCappedWorker(what: string, log: (line: string) => void): Promise<number | undefined> {
  if (!isMainThread || cliEntry === undefined || heapLimitChosen()) return undefined;
  const caps = heapCaps();
  if (caps[0] === undefined) return undefined;
  for (const [attempt, cap] of caps.entries()) {
    const outcome = await attemptIn(cliEntry, cap);
    if (outcome.kind === "exit") return outcome.code;
    // The dead attempt ran no cleanup: its deferred-request files (up to a batch file each) go now.
    removeSpillsOfThisProcess();
    const next = caps[attempt + 1];
    const heap = cap === undefined ? "node's default heap" : `${cap} MB heap`;
    if (outcome.wroteStdout || attempt === caps.length - 1) {
      const again = outcome.wroteStdout ? "run it again with -o <file>" : "run it again";
      process.stderr.write(`rubricate: the ${what} ran out of its ${heap}; every answer it collected is in the cache: ${again}${cap === undefined ? "" : ` (or with RUBRICATE_BATCH_HEAP_MB=${cap * 4})`}\n`);
      return EXIT.failure;
    }
    log(`the ${what} ran out of its ${heap}; going on with ${next === undefined ? "node's default heap" : `${next} MB`} (answers already collected are in the cache; submitted jobs are collected, not resubmitted)`);
  }
  return EXIT.failure; // not reached: the last attempt returns above
}

/** A worker running the CLI's entry file. */
function workerRunning(entry: URL, options: WorkerOptions): Worker {
  if (!entry.pathname.endsWith(".ts")) return new Worker(entry, options);
  // Run from the sources (`tsx src/cli/main.ts`, the CLI tests): a worker does not inherit the
  // main thread's tsx loader, so it registers its own before it loads the entry.
  const api = tsxLoaderURL(entry);
  return new Worker(`import(${JSON.stringify(api)}).then((tsx) => tsx.register()).then(() => import(${JSON.stringify(entry.href)}))`, { ...options, eval: true });
}

type Outcome = { kind: "exit"; code: number } | { kind: "out-of-memory"; wroteStdout: boolean };

async function attemptIn(entry: URL, cap: number | undefined): Promise<Outcome> {
  const worker = workerRunning(entry, {
    argv: process.argv.slice(2),
    stdout: true,
    workerData: { stderrIsTTY: Boolean(process.stderr.isTTY) },
    ...(cap === undefined ? {} : { resourceLimits: { maxOldGenerationSizeMb: cap } }),
  });
  let wroteStdout = false;
  worker.stdout.once("data", () => (wroteStdout = true));
  worker.stdout.pipe(process.stdout, { end: false });
  // Signals reach only the main thread: pass them on, so the worker's Ctrl-C handling (finish a
  // create, keep results so far; exit at once on the second) runs as it would in the process.
  const forward = (name: NodeJS.Signals) => worker.postMessage({ signal: name });
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  let outOfMemory = false;
  let failure: unknown;
  worker.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "ERR_WORKER_OUT_OF_MEMORY") outOfMemory = true;
    else failure = e;
  });
  try {
    const code = await new Promise<number>((resolve) => worker.once("exit", resolve));
    if (outOfMemory) return { kind: "out-of-memory", wroteStdout };
    if (failure !== undefined) throw failure;
    return { kind: "exit", code };
  } finally {
    process.off("SIGINT", forward);
    process.off("SIGTERM", forward);
  }
}

/**
 * In a worker this CLI started: turns the signals the main thread passes on into process events,
 * and keeps the progress bar when stderr is a terminal (a worker's stderr is a pipe to the main thread).
 */
export function setUpCliWorker(): void {
  if (isMainThread || parentPort === null) return;
  if ((workerData as { stderrIsTTY?: boolean } | null)?.stderrIsTTY) Object.defineProperty(process.stderr, "isTTY", { value: true });
  parentPort.on("message", (message: { signal?: NodeJS.Signals }) => {
    if (message.signal !== "SIGINT" && message.signal !== "SIGTERM") return;
    // No handler yet (start-up, a hook stuck before the run's own Ctrl-C handling): what a process
    // does with a signal it does not handle, end, instead of leaving the signal unheard.
    if (process.listenerCount(message.signal) === 0) process.exit(EXIT.interrupted);
    process.emit(message.signal, message.signal);
  });
  // The port must not keep the worker alive once its command is done.
  parentPort.unref();
}
