import { accessSync, closeSync, constants, createWriteStream, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, realpathSync, renameSync, statSync, writeFileSync, type WriteStream } from "node:fs";
import { basename, dirname, join, parse, resolve } from "node:path";
import { type BadLine, badLineError, jsonlEntries } from "../config/jsonl.js";
import { RubricateError } from "../errors.js";
import { terminalText } from "../report/terminal.js";
import { usageError } from "./run.js";

export { BadLines, type BadLine } from "../config/jsonl.js";

/**
 * Reads JSON lines from a file or "-" (stdin), one object at a time. Without `onBadLine` a bad
 * line is an error naming the file and line; with it, each bad line is handed over and skipped.
 */
export async function* readJsonl(path: string, options: { onBadLine?: (bad: BadLine) => void } = {}): AsyncGenerator<Record<string, unknown>> {
  for await (const entry of jsonlEntries(path)) {
    if ("bad" in entry) {
      if (!options.onBadLine) throw badLineError(entry.bad);
      options.onBadLine(entry.bad);
      continue;
    }
    yield entry.value;
  }
}

/** A failed write as the error users see: the path and the reason, no stack. */
export function writeError(path: string, e: unknown): RubricateError {
  const err = e as NodeJS.ErrnoException;
  return new RubricateError("WRITE_FAILED", `cannot write ${path}: ${err.code ? `${err.code} ` : ""}${err.message?.replace(/^\w+: /, "") ?? String(e)}`, { cause: e });
}

/**
 * Creates the folders above `path` one at a time (`mkdirSync(…, { recursive: true })` loops
 * forever under /proc, where mkdir answers ENOENT), as a WRITE_FAILED error when it cannot.
 */
export function ensureParentDir(path: string): void {
  const missing: string[] = [];
  let dir = dirname(path);
  const root = parse(dir).root;
  while (dir !== root && !existsSync(dir)) {
    missing.unshift(dir);
    dir = dirname(dir);
  }
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new RubricateError("WRITE_FAILED", `cannot write ${path}: ${dir} is not a folder`);
  for (const d of missing) {
    try {
      mkdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw writeError(path, e);
    }
  }
}

/**
 * Refuses, before any work and so before any paid call, an output file the run could not write
 * at its end, or should not: a path that is a folder, one under something that is not a folder,
 * one in a folder this user cannot write to, one that names a file the command reads (`reads`),
 * or one that another of its outputs names. The last two would replace, at the end of the run, a
 * file the user still needs: `score s.jsonl --summary-json s.jsonl` left the samples file holding
 * the summary, `--cache c.db -o c.db` a cache of paid answers holding JSONL, `probe r.yaml …
 * --json r.yaml` a hand-written rubric holding JSON. Folders that do not exist yet are fine:
 * `writeOutputFile` and `JsonlWriter` create them. Exit 2, naming the options.
 * @param outputs each output option (as its flag, e.g. "--report") and its path; "-" (stdout) and unset ones are skipped
 * @param reads each file the command reads (as the user names it: "the samples", "--cache") and its path; unset, false, "-" and URLs are skipped
 * @example refuseUnwritableOutputs({ "-o": flags.output, "--summary-json": flags.summaryJson }, { "the samples file": samplesPath })
 */
export function refuseUnwritableOutputs(outputs: Record<string, string | undefined>, reads: Record<string, ReadPaths> = {}): void {
  const read = Object.entries(reads).flatMap(([name, paths]) => [paths].flat().flatMap((path) => (typeof path === "string" ? [[name, path] as const] : [])));
  const written: (readonly [string, string])[] = [];
  for (const [option, path] of Object.entries(outputs)) {
    if (path === undefined || path === "-") continue;
    const clash = read.find(([, other]) => samePlace(path, other)) ?? written.find(([, other]) => samePlace(path, other));
    if (clash) {
      const role = read.includes(clash) ? "which this command reads" : "another output of this command";
      throw usageError(`${option} ${path} is also ${clash[0]} (${clash[1]}), ${role}: writing it would replace that file; write to another file`);
    }
    written.push([option, path]);
    const why = unwritableBecause(path);
    if (why) throw usageError(`${option} ${path}: ${why}; the run would fail only after its work is done (and paid for)`);
  }
}

/** The file or files an input option names (a list for a repeatable option); unset, false (`--no-cache`) and null are none. */
export type ReadPaths = string | false | null | undefined | readonly (string | undefined)[];

/** `path` when something is there, else undefined: a `--judge` may name a packaged judge (`openai-small`) and an environment a package, not a file. */
export function existingFile(path: string | undefined): string | undefined {
  return path !== undefined && existsSync(path) ? path : undefined;
}

/**
 * Whether two paths name the same file once links and relative parts are resolved, the file
 * existing or not. Standard streams and devices (`-`, /dev/…, /proc/…) and URLs (a redis://
 * cache) name no file here: two outputs may both go to /dev/null.
 */
function samePlace(a: string, b: string): boolean {
  const names = (p: string) => p !== "-" && p !== "" && !/^\/(dev|proc)\//.test(p) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(p);
  return names(a) && names(b) && canonicalPath(a) === canonicalPath(b);
}

/** The real path of `path`, or, when it does not exist yet, the real path of its nearest existing folder joined with the rest. */
function canonicalPath(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = dirname(absolute);
    return parent === absolute ? absolute : join(canonicalPath(parent), basename(absolute));
  }
}

/**
 * Why a file could not be written at `path`, or undefined when it can (as far as the file system
 * tells before trying). A regular file is replaced by a rename (`outputTarget`): its folder must
 * take new entries, whatever the file's own mode; a device or FIFO is written through.
 */
function unwritableBecause(path: string): string | undefined {
  let target: ReturnType<typeof outputTarget>;
  try {
    target = outputTarget(path);
  } catch {
    return "it is a folder";
  }
  if ("direct" in target && existsSync(target.direct)) return canAccess(target.direct, constants.W_OK) ? undefined : "it is not writable";
  // The nearest existing folder above it must take new entries (the rest are created).
  let dir = dirname(resolve("direct" in target ? target.direct : target.replace));
  while (!existsSync(dir)) dir = dirname(dir);
  if (!statSync(dir).isDirectory()) return `${dir} is not a folder`;
  return canAccess(dir, constants.W_OK | constants.X_OK) ? undefined : `cannot create files in ${dir}`;
}

function canAccess(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes a finished output file (a report, a summary, a JSON result) as -o does: its folders
 * created, a regular file replaced whole by a rename (a crash leaves the previous one), a device
 * or FIFO written through (`outputTarget`).
 */
export function writeOutputFile(path: string, text: string): void {
  ensureParentDir(path);
  const target = outputTarget(path);
  if ("direct" in target) return writeFileSync(target.direct, text);
  writeFileSync(target.tmp, text);
  renameSync(target.tmp, target.replace);
}

/**
 * Refuses an output that is one of the command's inputs (\`score s.jsonl -o s.jsonl\`): the finished
 * run would replace the file it read with its results, and the input would be gone. Exit 2.
 */
export function refuseOutputOverInput(output: string | undefined, inputs: readonly (string | undefined)[]): void {
  if (!output) return;
  const input = inputs.find((i) => i !== undefined && samePlace(output, i));
  if (input !== undefined) throw usageError(`-o ${output} is the input ${input}: its results would replace it; write them to another file`);
}

/**
 * Where a finished output goes. A regular file (or nothing) is replaced atomically: written to
 * `<file>.partial`, renamed over it at the end. A symlink is followed to its target. Anything
 * else (`/dev/null`, `/dev/stdout`, a FIFO, a device) is written directly: renaming over it would
 * replace the device node with a regular file.
 */
export function outputTarget(path: string): { direct: string } | { replace: string; tmp: string } {
  // /dev/stdout, /dev/fd/N, /proc/self/fd/N name whatever the descriptor is: always written through.
  if (/^\/(dev|proc)\//.test(path)) return { direct: path };
  let target = path;
  let link = false;
  try {
    link = lstatSync(path).isSymbolicLink();
  } catch {
    // nothing there yet
  }
  if (link) {
    try {
      target = realpathSync(path);
    } catch {
      return { direct: path }; // a dangling link: written through, creating its target
    }
  }
  let stats;
  try {
    stats = statSync(target);
  } catch {
    return { replace: target, tmp: `${target}.partial` };
  }
  if (stats.isFile()) return { replace: target, tmp: `${target}.partial` };
  if (stats.isDirectory()) throw new RubricateError("WRITE_FAILED", `cannot write ${path}: it is a folder`);
  return { direct: target };
}

/** Pending output is handed to the stream once it reaches this many characters, without waiting for the timer. */
const FLUSH_CHARS = 64 * 1024;

/**
 * Pending output waits at most this long for more lines. Each hand-over is a write on libuv's
 * thread pool: one per event-loop turn was ~750 writes for 2,000 results at concurrency 64, a
 * measurable part of the main thread's time (BENCHMARKS.md); 20 ms is unnoticeable to a reader.
 */
const FLUSH_DELAY_MS = 20;

/** Names of standard output (opening them fails when it is a socket, as under a process manager). */
const STDOUT_NAMES = new Set(["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]);

/**
 * A JSONL writer to a file or stdout. A regular file is written to a temporary name and renamed
 * on `close`, so a crash or a failed run (`abandon`) never replaces a previous complete file; a
 * special file is written directly. Write errors become WRITE_FAILED errors, never an unhandled
 * stream error.
 */
export class JsonlWriter {
  private readonly stream: WriteStream | NodeJS.WriteStream;
  private readonly tmp?: string;
  private readonly final?: string;
  private failure?: RubricateError;
  /** Lines not yet handed to the stream: written together within `FLUSH_DELAY_MS` (see `write`). */
  private pending = "";
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(private readonly path: string | undefined, options: { append?: boolean } = {}) {
    if (!path || path === "-" || STDOUT_NAMES.has(path)) {
      this.stream = process.stdout;
      return;
    }
    ensureParentDir(path);
    const target = outputTarget(path);
    if (options.append) {
      this.stream = createWriteStream(path, { flags: "a" });
    } else if ("direct" in target) {
      this.stream = createWriteStream(target.direct, { flags: "w" });
    } else {
      this.tmp = target.tmp;
      this.final = target.replace;
      // Fail now, before any work, when the folder cannot take the file.
      try {
        closeSync(openSync(this.tmp, "w"));
      } catch (e) {
        throw writeError(path, e);
      }
      this.stream = createWriteStream(this.tmp);
    }
    this.stream.on("error", (e) => {
      this.failure ??= writeError(path, e);
    });
  }

  /**
   * Writes one line; resolves when the stream can take more (backpressure); rejects with
   * WRITE_FAILED. Lines reach the stream together, at most `FLUSH_DELAY_MS` after the first of
   * them (or at 64 KB): a stream write per line, or even per event-loop turn, was a measurable
   * part of a run's CPU, and a reader of the output still gets each line right after it is scored.
   */
  async write(value: unknown): Promise<void> {
    if (this.failure) throw this.failure;
    this.pending += `${JSON.stringify(value)}\n`;
    if (this.pending.length >= FLUSH_CHARS || (this.stream as WriteStream).writableNeedDrain) await this.flush();
    else this.flushTimer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
    if (this.failure) throw this.failure;
  }

  /** Hands the pending lines to the stream, and waits when it asks for a pause (backpressure). */
  private async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pending === "" || this.failure) return;
    const chunk = this.pending;
    this.pending = "";
    if (this.stream.write(chunk)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.stream.off("drain", done);
        this.stream.off("error", done);
        resolve();
      };
      this.stream.once("drain", done);
      this.stream.once("error", done);
    });
  }

  /** Finishes the file (renaming it into place). */
  async close(): Promise<void> {
    await this.flush();
    if (this.stream === process.stdout) return;
    await this.end();
    if (this.failure) throw this.failure;
    if (this.tmp) {
      try {
        // On disk before it replaces anything: some file systems (NFS, quotas, thin volumes) report
        // a full disk only here, and a rename of unsynced data can leave an empty file after a crash.
        syncToDisk(this.tmp);
        renameSync(this.tmp, this.final!);
      } catch (e) {
        throw writeError(this.path!, e);
      }
      syncFolder(dirname(this.final!));
    }
  }

  /** Ends a failed or interrupted run: what was written stays in `<file>.partial`, a previous file is left as it was. */
  async abandon(): Promise<string | undefined> {
    await this.flush();
    if (this.stream === process.stdout) return undefined;
    await this.end().catch(() => undefined);
    return this.tmp;
  }

  private end(): Promise<void> {
    const stream = this.stream as WriteStream;
    if (stream.destroyed || stream.writableFinished) return Promise.resolve();
    return new Promise<void>((resolve) => {
      stream.once("error", () => resolve());
      stream.end(() => resolve());
    });
  }
}

/** fsync of a written file: the error a full disk saves for last (ENOSPC, EIO) is raised here, not lost. */
function syncToDisk(path: string): void {
  const fd = openSync(path, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** fsync of a folder, so a rename into it survives a crash; best effort (some file systems refuse it). */
function syncFolder(path: string): void {
  try {
    const fd = openSync(path, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* not every file system syncs folders; the file itself is on disk */
  }
}

/**
 * Writes a markdown report to stdout: as plain text (aligned columns, no escapes) on a terminal,
 * as markdown when piped (`>> $GITHUB_STEP_SUMMARY`, a file, another program).
 */
export function printReport(markdown: string, tty = Boolean(process.stdout.isTTY)): void {
  process.stdout.write(tty ? terminalText(markdown) : markdown);
}

/**
 * `--json <file>` in every command: the command's full result as JSON, to the file, or to stdout
 * for `-` (what `lint --json` always does). The text report then goes to stderr (`textOut`).
 */
export function writeJsonResult(target: string, value: unknown, writeFile: (path: string, text: string) => void): void {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (target === "-") process.stdout.write(text);
  else writeFile(target, text);
}

/** Where a command's text report goes: stderr when `--json -` holds stdout, else `out`. */
export function textOut(json: string | undefined, out: (text: string) => void): (text: string) => void {
  return json === "-" ? (t) => process.stderr.write(t) : out;
}
