import bytes from "bytes";
import { CommanderError, InvalidArgumentError } from "commander";
import { isRubricateError, RubricateError } from "../errors.js";
import { FinishInFlight } from "../engine/abort.js";
export { packageVersion } from "../config/load.js";
import type { ErrorPolicy } from "../score/aggregate.js";
import type { EngineJudge } from "../judge/create.js";

/** Exit codes every command shares, so scripts and CI can tell what happened. */
export const EXIT = {
  ok: 0,
  /** Bad input: an invalid rubric, judge file or samples file; a fatal error. */
  failure: 1,
  /** Wrong usage: unknown option, missing argument. */
  usage: 2,
  /** The run finished but some samples have no reward (errors listed in the output). */
  partial: 3,
  /** `probe --fail-above`: an attack's mean reward is above the limit. */
  probeFailed: 4,
  /** Stopped by Ctrl-C / SIGTERM; everything paid for is in the cache. */
  interrupted: 130,
} as const;

/**
 * A combination of options that cannot work, found after parsing: said in one line, and exit 2
 * like commander's own usage errors (main.ts turns a CommanderError into its exit code).
 */
export function usageError(message: string): CommanderError {
  process.stderr.write(`rubricate: ${message}\n`);
  return new CommanderError(EXIT.usage, "rubricate.usage", message);
}

/** The exit code of a run that threw: commander's own exits (help, usage) as theirs, anything else reported. */
export function exitCodeOf(e: unknown): number {
  if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
  return reportError(e);
}

/** Prints an error for a person (code and located message) and returns the exit code. */
export function reportError(e: unknown): number {
  if (isRubricateError(e)) {
    process.stderr.write(`rubricate: ${e.code}: ${e.message}\n`);
    return e.code === "ABORTED" ? EXIT.interrupted : EXIT.failure;
  }
  // A system error (a write to a full disk, a folder without permission…) is the user's to fix: no stack.
  const sys = e as NodeJS.ErrnoException;
  if (e instanceof Error && typeof sys.code === "string" && typeof sys.syscall === "string") {
    // Node's message already starts with the code ("EISDIR: illegal operation…"): say it once.
    process.stderr.write(`rubricate: ${sys.code}: ${e.message.startsWith(`${sys.code}: `) ? e.message.slice(sys.code.length + 2) : e.message}\n`);
    return EXIT.failure;
  }
  process.stderr.write(`rubricate: unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  return EXIT.failure;
}

/**
 * A reader that goes away (`rubricate … | head`) is not an error: stop quietly, with the exit
 * code so far, instead of an unhandled EPIPE and its stack trace. Any other write error on
 * standard output (a full disk) is one line and exit 1.
 */
export function quietOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE" || e.code === "ERR_STREAM_DESTROYED") process.exit(typeof process.exitCode === "number" ? process.exitCode : EXIT.ok);
      // Any other failure (`> /dev/full`: ENOSPC, EIO) ends the run with one line, not a stack trace.
      if (stream === process.stdout) process.stderr.write(`rubricate: WRITE_FAILED: cannot write standard output: ${e.code ? `${e.code} ` : ""}${e.message.replace(/^\w+: /, "")}\n`);
      process.exit(EXIT.failure);
    });
  }
}

/**
 * An AbortSignal fired by the first Ctrl-C or SIGTERM: no call is sent after it, and the calls
 * already sent finish and go to the cache (`FinishInFlight`: aborting them lost answers that may
 * have been paid, up to the judge's concurrency of them). A second Ctrl-C exits at once.
 */
export function interruptSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    process.stderr.write(`\nrubricate: ${name}: stopping; no new calls, and the calls in flight finish into the cache (Ctrl-C again to quit now)\n`);
    controller.abort(new FinishInFlight(`${name}: stopped`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** Parses a non-negative integer option (a seed, a count that may be 0) or throws a usage error (exit 2). */
export function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a non-negative integer, got "${value}"`);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`expected an integer up to ${Number.MAX_SAFE_INTEGER}, got "${value}"`);
  return n;
}

/** Parses a finite number option or throws a usage error (exit 2). */
export function finiteNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new InvalidArgumentError(`expected a number, got "${value}"`);
  return n;
}

/** Parses a pass threshold (a reward in [0, 1]) or throws a usage error (exit 2). */
export function passThreshold(value: string): number {
  const n = Number(value);
  if (!(value.trim() !== "" && n >= 0 && n <= 1)) throw new InvalidArgumentError(`expected a number in [0, 1], got "${value}"`);
  return n;
}

/** Parses a positive integer option or throws a usage error (exit 2). */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  // 1e99 or twenty nines is an integer to JavaScript, but not the number typed: refused, not rounded.
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`expected an integer up to ${Number.MAX_SAFE_INTEGER}, got "${value}"`);
  return n;
}

/**
 * A file path option's value, refused when empty: `--cache "$CACHE"` with the variable unset used
 * a throwaway database (every answer paid again on the next run), and `-o ""` wrote to stdout.
 */
export function filePath(value: string): string {
  if (value.trim() === "") throw new InvalidArgumentError("expected a file path, got an empty one (an unset variable?)");
  return value;
}

/** Parses the URL of a hub or registry option (http or https) or throws a usage error (exit 2). */
export function httpUrl(value: string): string {
  let protocol: string | undefined;
  try {
    protocol = new URL(value).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== "http:" && protocol !== "https:") throw new InvalidArgumentError(`expected an http(s) URL such as http://127.0.0.1:8080, got "${value}"`);
  return value;
}

/**
 * Parses a size option ("16mb", "512k", "1.5gb" or a plain byte count; binary units) or throws a
 * usage error (exit 2).
 */
export function parseBytes(value: string): number {
  // `bytes` wants two-letter units; people also write "512k" and "16m".
  const text = value.trim().replace(/^(\d+(?:\.\d+)?)\s*([kmgt])$/i, "$1$2b");
  const n = /^\d+(\.\d+)?\s*(b|kb|mb|gb|tb)?$/i.test(text) ? bytes.parse(text) : null;
  if (n === null || !Number.isFinite(n)) throw new InvalidArgumentError(`expected a size like 16mb or 1048576, got "${value}"`);
  if (n <= 0) throw new InvalidArgumentError(`expected a positive size, got "${value}"`);
  return Math.floor(n);
}

/** The cache a `--cache <path>` / `--no-cache` pair asks for: a path, or `null` for no cache at all. */
export function cachePathOf(flag: string | boolean | undefined): string | null | undefined {
  if (flag === false) return null;
  return typeof flag === "string" ? flag : undefined;
}

/**
 * Says in one line that a cache degraded (cannot be opened, read-only, a full disk): the run goes
 * on, but what it pays for from then on may not be kept. Every `openCache` of a command takes it.
 */
export function warnCacheDegraded(e: RubricateError): void {
  process.stderr.write(`rubricate: warning: ${e.code}: ${e.message}\n`);
}

/** Checks an `--errors` value: what a criterion error does to the reward. */
export function errorPolicyOf(value: string): ErrorPolicy {
  if (value === "null" || value === "zero" || value === "skip-criterion") return value;
  throw new RubricateError("BAD_INPUT", `--errors must be null, zero or skip-criterion, not "${value}"`);
}

/**
 * A judge file's `mode: batch` is carried out by `score` alone (provider batch APIs); every other
 * command asks the judge live, at the live price. Says so (once per judge), with the way to the
 * batch price where there is one, and hands the judge back.
 */
export function warnIfBatchJudge<J extends EngineJudge | undefined>(judge: J, command: string, hint?: string): J {
  if (judge?.config.mode === "batch") {
    process.stderr.write(`rubricate: warning: judge ${judge.id} has mode: batch, which only \`rubricate score\` carries out; ${command} asks it live, at the live price${hint ? ` (${hint})` : ""}\n`);
  }
  return judge;
}

/**
 * After a queued command (`--queue`): its Redis clients may still be reconnecting to a Redis that
 * went away once the run has ended (results written, error printed); they must not keep the
 * process alive. A process that would end anyway ends first (the timer is unref'd).
 */
export function exitAfterQueuedRun(queue: string | undefined): void {
  if (queue) setTimeout(() => process.exit(), 1_000).unref();
}
