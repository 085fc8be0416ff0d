/**
 * `rubricate <args>` run inside the test's own process, for tests about what a command does (the
 * files it writes, what it prints, its exit code) rather than about the process: a CLI process
 * costs ~0.5 s of CPU to start before it does anything, and a test file that runs a dozen pays
 * that a dozen times. The command runs from the sources, registered on a commander program the
 * way src/cli/main.ts does, with standard output and error captured, the working folder and the
 * environment set for the run and restored after it. What this cannot show stays with
 * tests/helpers/cli.ts's `runCli`: signals, exit on a closed pipe, the batch worker, the built
 * CLI's start-up. Runs are queued one at a time: the folder, the environment and the two streams
 * belong to the whole process.
 */
import { programFor } from "../../src/cli/commands.js";
import { EXIT, exitCodeOf } from "../../src/cli/run.js";
import { ROOT } from "./cli.js";

export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

let queue: Promise<unknown> = Promise.resolve();

/** Runs `rubricate <args>` in this process (see the file's comment); resolves when the command has finished. */
export function runCliInProcess(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<InProcessRun> {
  const run = queue.then(() => runNow(args, options));
  queue = run.catch(() => undefined);
  return run;
}

async function runNow(args: string[], options: { env?: Record<string, string>; cwd?: string }): Promise<InProcessRun> {
  let stdout = "";
  let stderr = "";
  const restore = [capture(process.stdout, (s) => (stdout += s)), capture(process.stderr, (s) => (stderr += s)), setEnv(options.env ?? {}), setCwd(options.cwd ?? ROOT)];
  const exitCodeBefore = process.exitCode;
  process.exitCode = undefined;
  let code: number;
  try {
    // What src/cli/main.ts does after its process-wide set-up: the program, the asked command, the parse.
    await (await programFor(args)).parseAsync(args, { from: "user" });
    code = typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
  } catch (e) {
    code = exitCodeOf(e);
  } finally {
    process.exitCode = exitCodeBefore;
    for (const undo of restore.reverse()) undo();
  }
  return { code, stdout, stderr };
}

/** Sends a stream's writes to `sink` until undone. */
function capture(stream: NodeJS.WriteStream, sink: (text: string) => void): () => void {
  const write = stream.write;
  stream.write = ((chunk: string | Uint8Array, encoding?: unknown, done?: unknown) => {
    sink(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    const callback = typeof encoding === "function" ? encoding : done;
    if (typeof callback === "function") queueMicrotask(() => (callback as () => void)());
    return true;
  }) as typeof stream.write;
  return () => {
    stream.write = write;
  };
}

function setEnv(env: Record<string, string>): () => void {
  const before = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  return () => {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

function setCwd(dir: string): () => void {
  const before = process.cwd();
  process.chdir(dir);
  return () => process.chdir(before);
}
