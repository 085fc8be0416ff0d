import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import type { ExecResult, SandboxLimitHit, SandboxProcess } from "./types.js";

/** A host command line that starts a sandboxed process. */
export interface ChildCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Host files the command reads on its fds 3, 4, … (bwrap's `--seccomp 3`), each opened afresh for this command. */
  inputFiles?: string[];
}

/** What a command did, with its output as bytes (file transfers need them). */
export interface RawExecResult extends Omit<ExecResult, "stdout" | "stderr"> {
  stdout: Buffer;
  stderr: Buffer;
  /** Why the command could not start (ENOENT, EACCES, …); exit 127 and stderr say so too. */
  startError?: Error;
}

/** Runs an argv inside a sandbox with binary output. */
export type RawExec = (argv: string[], options: { stdin?: string | Uint8Array; outputBytes?: number; cwd?: string }) => Promise<RawExecResult>;

export interface RunOptions {
  stdin?: string | Uint8Array;
  timeoutMs: number;
  /** Bytes kept per stream (default 64 KiB). */
  outputBytes?: number;
  signal?: AbortSignal;
  /** The sandbox's live children: the child is added while it runs, so destroy can kill it. */
  children?: Set<ChildProcess>;
  /** Called after the wall-clock limit kills the process group (docker also kills inside the container). */
  onTimeout?: () => void;
}

// 128 + signal number, as bwrap and sh report a child killed by a signal.
const SIGNAL_EXIT: Record<number, { signal: string; limit?: SandboxLimitHit }> = {
  137: { signal: "SIGKILL" },
  152: { signal: "SIGXCPU", limit: "cpu" },
  153: { signal: "SIGXFSZ", limit: "file_size" },
};

/** Kept output of one stream: the first `max` bytes, and whether more came. */
class Capped {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    if (this.size >= this.max) {
      this.truncated = true;
      return;
    }
    const room = this.max - this.size;
    if (chunk.length > room) {
      this.truncated = true;
      chunk = chunk.subarray(0, room);
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }
  buffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** SIGKILL to a child's whole process group (the child leads it; a sandbox's pid namespace dies with it). */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** O_CLOEXEC in /proc/<pid>/fdinfo's octal `flags:` (the same bit on x86-64 and arm64). */
const O_CLOEXEC = 0o2000000;

let strays: { fds: number[]; devNull: number } | undefined;

/**
 * The descriptors this process would hand every child without being asked: open without
 * close-on-exec, so inherited from whoever started it (node opens its own with close-on-exec), e.g.
 * a pipe a launcher left open. bwrap passes them into the sandbox, where the code it runs could
 * write to that pipe or file. Read once: inherited descriptors come with the process.
 */
function strayDescriptors(): { fds: number[]; devNull: number } {
  if (strays) return strays;
  const fds: number[] = [];
  let listed: string[] = [];
  try {
    listed = readdirSync("/proc/self/fdinfo");
  } catch {
    // No /proc (not Linux): nothing known to neutralise.
  }
  for (const name of listed) {
    const fd = Number(name);
    if (fd < 3) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${name}`, "utf8"))?.[1];
      if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) fds.push(fd);
    } catch {
      // Closed since it was listed (the listing's own descriptor, for one).
    }
  }
  strays = { fds, devNull: fds.length > 0 ? openSync("/dev/null", "r+") : -1 };
  return strays;
}

/**
 * The child's descriptors: piped stdio, then `inputs` on 3, 4, …, and /dev/null in place of each
 * stray descriptor (strayDescriptors) past them, so none reaches what the child runs.
 */
function childStdio(inputs: number[]): (number | "pipe" | "ignore")[] {
  const stdio: (number | "pipe" | "ignore")[] = ["pipe", "pipe", "pipe", ...inputs];
  const { fds, devNull } = strayDescriptors();
  for (const fd of fds) {
    if (fd < stdio.length) continue; // an input took its place
    // "ignore" above 2 leaves a descriptor as it is (libuv): the gaps are close-on-exec ones or strays.
    while (stdio.length < fd) stdio.push("ignore");
    stdio[fd] = devNull;
  }
  return stdio;
}

/**
 * Starts a command with piped stdio and its `inputFiles` on the fds after them. Each is opened
 * here for this child alone (a shared open file would share its read offset with commands running
 * beside it) and the parent's copy is closed once the child holds its own.
 */
function spawnCommand(command: ChildCommand): ChildProcessWithoutNullStreams {
  const fds = (command.inputFiles ?? []).map((path) => openSync(path, "r"));
  try {
    return spawn(command.file, command.args, { env: command.env, stdio: childStdio(fds), detached: true }) as ChildProcessWithoutNullStreams;
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}

/**
 * Runs one sandboxed command to its end: output capped, stdin fed, killed (its whole process
 * group) at the wall-clock limit or on abort. Never rejects for the command's own failure.
 */
export function runChildRaw(command: ChildCommand, options: RunOptions): Promise<RawExecResult> {
  const started = Date.now();
  const max = options.outputBytes ?? 64 * 1024;
  return new Promise((resolve) => {
    const child = spawnCommand(command);
    options.children?.add(child);
    const out = new Capped(max);
    const err = new Capped(max);
    let limit: SandboxLimitHit | undefined;
    const stop = (why: SandboxLimitHit) => {
      limit ??= why;
      killGroup(child);
      if (why === "timeout") options.onTimeout?.();
    };
    const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
    const onAbort = () => stop("aborted");
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    // A command that exits without reading its stdin closes the pipe: not an error of ours.
    child.stdin.on("error", () => {});
    if (options.stdin !== undefined) child.stdin.end(options.stdin);
    else child.stdin.end();
    let spawnError: Error | undefined;
    child.on("error", (e) => (spawnError = e));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      options.children?.delete(child);
      let exitCode = code;
      let sig: string | null = signal;
      if (exitCode !== null && SIGNAL_EXIT[exitCode]) {
        sig = SIGNAL_EXIT[exitCode].signal;
        limit ??= SIGNAL_EXIT[exitCode].limit;
      }
      if (sig !== null && exitCode !== null && exitCode > 128) exitCode = null;
      const stderr = spawnError ? Buffer.from(`cannot start ${command.file}: ${spawnError.message}`) : err.buffer();
      resolve({ exitCode: spawnError ? 127 : exitCode, signal: sig, stdout: out.buffer(), stderr, truncated: out.truncated || err.truncated, ...(limit ? { limit } : {}), ...(spawnError ? { startError: spawnError } : {}), ms: Date.now() - started });
    });
  });
}

/** `runChildRaw` with UTF-8 text output. */
export async function runChild(command: ChildCommand, options: RunOptions): Promise<ExecResult> {
  const { startError: _, ...r } = await runChildRaw(command, options);
  return { ...r, stdout: r.stdout.toString("utf8"), stderr: r.stderr.toString("utf8") };
}

/** Starts a long-running sandboxed process with raw pipes (a REPL). */
export function sandboxProcess(command: ChildCommand, children: Set<ChildProcess>, onKill?: () => void): SandboxProcess {
  const child = spawnCommand(command);
  children.add(child);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  child.stdout.pipe(stdout);
  child.stderr.pipe(stderr);
  child.stdin.on("error", () => {});
  const exited = new Promise<number | null>((resolve) => {
    child.on("error", () => resolve(127));
    child.on("close", (code) => {
      children.delete(child);
      resolve(code);
    });
  });
  return {
    stdin: child.stdin,
    stdout,
    stderr,
    exited,
    kill: () => {
      killGroup(child);
      onKill?.();
    },
  };
}
