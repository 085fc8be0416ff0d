/**
 * JavaScript and TypeScript → CommonJS for a `tests` run: types stripped, `export function` on
 * `module.exports`. The code is a response's, so it is sized and its nesting measured first
 * (nesting.ts), then esbuild's executable compiles it in a process of its own, one per call,
 * awaited.
 *
 * Why not esbuild's API: `transformSync` held the calling thread (a reward server's event loop)
 * for as long as esbuild took, and esbuild's service (one per process, for the API's async calls
 * too) returns every message with its whole line of source. A degenerate response made both huge:
 * 20,000 repeats of `a:1,` in one object literal (80 KB of valid code) held the thread for over two
 * minutes with GBs of duplicate-key warnings, and 20,000 strict-mode errors on one line ended the
 * process (out of memory). And one crash of that shared service fails every transform in flight
 * on it, other samples' too, so its async calls would trade the blocked thread for wrong 0s. The
 * command line prints the first error only (`--log-limit=1`, no warnings), each process fails
 * alone, and a compile past its time is killed. Starting a process costs ~6 ms against the
 * service's ~1.5 ms, beside a run that starts two sandboxes.
 */
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import pLimit from "p-limit";
import { RubricateError } from "../../errors.js";
import { runChildRaw } from "../../sandbox/process.js";
import { nestingDepth } from "./nesting.js";

/** Characters of code compiled at most: a solution is a few KB; 1 MiB of flat code compiles in ~0.2 s. */
export const MAX_CODE_CHARS = 1024 * 1024;

/**
 * Levels of nesting compiled at most (nesting.ts counts them). This project's sources reach 107 (a
 * chain of 50 `.option()` calls); of the 20,733 JavaScript and TypeScript files of its
 * dependencies, the deepest, minified lodash, 346.
 */
export const MAX_NESTING = 1000;

/** The longest a compile may take: 1 MiB of flat code takes ~0.2 s; errors by the thousand take esbuild quadratic time. */
export const COMPILE_TIMEOUT_MS = 5000;

/** Bytes of compiled code read at most (esbuild writes non-ASCII as `\u` escapes, up to 6 bytes a character). */
const MAX_COMPILED_BYTES = 8 * MAX_CODE_CHARS;

/** Bytes of esbuild's error output read for its first error and location (a crash's trace runs longer). */
const MAX_ERROR_BYTES = 64 * 1024;

/**
 * Compiles at once: each is a process busy on one core. It also bounds what code that slips past
 * the nesting scan can cost: esbuild's stack grows to 1 GB before it overflows, once per core at most.
 */
const limit = pLimit(Math.max(1, availableParallelism()));

/** The code as CommonJS, or why it does not compile (the response's fault: a failed check). */
export type Compiled = { code: string; error?: undefined } | { error: string; code?: undefined };

const count = (n: number) => n.toLocaleString("en-US");

/**
 * Compiles a response's (or a test's) JavaScript or TypeScript. Code over the size or nesting
 * limit is refused before esbuild sees it. Throws only when esbuild cannot start (the machine's fault).
 */
export async function compileToCommonJs(code: string, language: "javascript" | "typescript"): Promise<Compiled> {
  if (code.length > MAX_CODE_CHARS) return { error: `${count(code.length)} characters, over the limit of ${count(MAX_CODE_CHARS)}` };
  if (nestingDepth(code, MAX_NESTING) > MAX_NESTING) return { error: `nested more than ${count(MAX_NESTING)} levels deep (the limit; real code nests a few dozen)` };
  return limit(() => esbuildInOwnProcess(code, language === "typescript" ? "ts" : "js"));
}

/**
 * esbuild's executable, as its API finds it: ESBUILD_BINARY_PATH, else the platform's package
 * (`@esbuild/linux-x64`), else the `esbuild` package's bin/esbuild (its install makes that the
 * native binary too).
 */
export function esbuildBinary(): string {
  if (process.env.ESBUILD_BINARY_PATH) return process.env.ESBUILD_BINARY_PATH;
  const esbuild = createRequire(import.meta.url).resolve("esbuild");
  const fromEsbuild = createRequire(esbuild);
  try {
    return fromEsbuild.resolve(`@esbuild/${process.platform}-${process.arch}/${process.platform === "win32" ? "esbuild.exe" : "bin/esbuild"}`);
  } catch {
    return fromEsbuild.resolve("esbuild/bin/esbuild");
  }
}

/**
 * One compile in a fresh esbuild process, with no size or nesting check: whatever the code does
 * to that process (a stack overflow, minutes of work) ends it alone.
 */
export async function esbuildInOwnProcess(code: string, loader: "js" | "ts", timeoutMs = COMPILE_TIMEOUT_MS): Promise<Compiled> {
  const binary = esbuildBinary();
  const args = [`--loader=${loader}`, "--format=cjs", "--target=node20", "--log-level=error", "--log-limit=1", "--color=false"];
  // One byte past the limit tells compiled code that fills it from code that overflows it.
  const run = await runChildRaw({ file: binary, args, env: {} }, { stdin: code, timeoutMs, outputBytes: MAX_COMPILED_BYTES + 1 });
  if (run.startError) throw new RubricateError("CHECK_FAILED", `tests: esbuild could not start to compile the code (${binary}): ${run.startError.message}`, { cause: run.startError });
  if (run.limit === "timeout") return { error: `compiling took longer than ${count(timeoutMs)} ms` };
  if (run.stdout.length > MAX_COMPILED_BYTES) return { error: `the compiled code is over ${count(MAX_COMPILED_BYTES)} bytes` };
  if (run.exitCode === 0) return { code: run.stdout.toString("utf8") };
  return { error: firstError(run.stderr.subarray(0, MAX_ERROR_BYTES).toString("utf8")) ?? `esbuild stopped (${run.signal ?? `exit ${run.exitCode}`})` };
}

/**
 * The first error of esbuild's output, as `<stdin>:line:col: message`; for a crash (a Go runtime
 * `fatal error: …`), its first line.
 */
function firstError(stderr: string): string | undefined {
  const lines = stderr.split("\n");
  const at = lines.findIndex((line) => line.includes("[ERROR]"));
  if (at < 0) {
    const first = lines.find((line) => line.trim() !== "");
    return first === undefined ? undefined : `esbuild stopped: ${first.trim()}`;
  }
  const message = lines[at].slice(lines[at].indexOf("[ERROR]") + "[ERROR]".length).trim();
  const where = lines
    .slice(at + 1, at + 4)
    .map((line) => /^\s*(<stdin>:\d+:\d+):/.exec(line)?.[1])
    .find((location) => location !== undefined);
  return where ? `${where}: ${message}` : message;
}
