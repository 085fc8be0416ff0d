/**
 * Where the processes of a `tests` run live. One small interface so the check does not care
 * whether the bubblewrap sandbox (the default), another sandbox runtime or — an explicit choice to
 * trust the code — a plain child process with resource limits starts them. Each `start` is a
 * fresh place of its own: the judge and the candidate never share a folder, a sandbox or a
 * process namespace.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RubricateError } from "../../errors.js";
import { sandboxBackend } from "../../sandbox/index.js";
import type { SandboxBackend, SandboxLimits, SandboxProcess } from "../../sandbox/types.js";

/** One process to start: its command, the files written into its fresh folder, its limits. */
export interface StartRequest {
  command: string[];
  /** Files written into the process's own folder (its cwd) before it starts (name → content). */
  files: Record<string, string>;
  /** Address-space limit (MiB); 0 for the runner's default (V8 reserves more than it uses). */
  memoryMb: number;
  /** The longest the process may live (it is killed past it; the referee usually stops it first). */
  timeoutMs: number;
}

/** A started process: raw pipes, its exit, and `stop`, which kills it and removes its folder. */
export interface StartedProcess {
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
  readonly stderr: NodeJS.ReadableStream;
  /** The exit code (null after a signal), once the process and its children are gone. */
  readonly exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Starts the processes of `tests` runs: a sandbox per process, or a limited child process. */
export interface CodeRunner {
  readonly name: string;
  start(request: StartRequest): Promise<StartedProcess>;
}

const cpuSecondsFor = (timeoutMs: number) => Math.max(1, Math.ceil(timeoutMs / 1000) + 1);

/**
 * A child process under `prlimit` (address space, CPU seconds, file size) in its own process group
 * and temp folder, with an empty environment. Not a sandbox: the code can read this machine's files
 * and signal its processes; use it only for code you would run yourself (`--unsafe-no-sandbox`).
 */
export function childProcessRunner(): CodeRunner {
  return {
    name: "child-process",
    async start(request) {
      const dir = await mkdtemp(join(tmpdir(), "rubricate-tests-"));
      await Promise.all(Object.entries(request.files).map(([name, content]) => writeFile(join(dir, name), content)));
      const limits = [`--cpu=${cpuSecondsFor(request.timeoutMs)}`, `--fsize=${64 * 1024 * 1024}`, ...(request.memoryMb > 0 ? [`--as=${request.memoryMb * 1024 * 1024}`] : [])];
      const child = spawn("prlimit", [...limits, "--", ...request.command], { cwd: dir, detached: true, stdio: ["pipe", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" } });
      const killGroup = () => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(killGroup, request.timeoutMs);
      child.stdin.on("error", () => undefined);
      const exited = new Promise<number | null>((resolve) => {
        child.on("error", () => resolve(127));
        child.on("close", (code) => {
          clearTimeout(timer);
          // Grandchildren left behind (a fork bomb, a background sleep) go with the group.
          killGroup();
          resolve(code);
        });
      });
      return {
        stdin: child.stdin,
        stdout: child.stdout,
        stderr: child.stderr,
        exited,
        async stop() {
          clearTimeout(timer);
          killGroup();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

/** The part of a sandbox (src/sandbox's `Sandbox`) the runner needs: files in, one process, cleanup. */
export interface SandboxLike {
  writeFile(path: string, data: string): Promise<void>;
  spawn(argv: string[]): SandboxProcess;
  destroy(): Promise<void>;
}

/** Limits a fresh sandbox is created with, in the sandbox's own terms. */
export type SandboxRequestLimits = Partial<SandboxLimits> & Pick<SandboxLimits, "cpuSeconds" | "commandTimeoutMs">;

/**
 * A runner over a sandbox runtime: one fresh sandbox per process (files written, the process
 * spawned, the sandbox destroyed by `stop`).
 * @example setCodeRunner(sandboxCodeRunner((limits) => createSandbox({ limits })))
 */
export function sandboxCodeRunner(create: (limits: SandboxRequestLimits) => Promise<SandboxLike>, name = "sandbox"): CodeRunner {
  return {
    name,
    async start(request) {
      const box = await create({
        ...(request.memoryMb > 0 ? { memoryBytes: request.memoryMb * 1024 * 1024 } : {}),
        cpuSeconds: cpuSecondsFor(request.timeoutMs),
        commandTimeoutMs: request.timeoutMs,
      });
      try {
        for (const [file, content] of Object.entries(request.files)) await box.writeFile(file, content);
      } catch (e) {
        await box.destroy();
        throw e;
      }
      const child = box.spawn(request.command);
      const timer = setTimeout(() => child.kill(), request.timeoutMs);
      void child.exited.then(() => clearTimeout(timer));
      return {
        stdin: child.stdin,
        stdout: child.stdout,
        stderr: child.stderr,
        exited: child.exited,
        async stop() {
          clearTimeout(timer);
          child.kill();
          await box.destroy();
        },
      };
    },
  };
}

/**
 * The default runner: each process in a bubblewrap sandbox of its own. Where bubblewrap cannot
 * run, `start` fails with the reason and the way out, never a silent fail of the code.
 */
export function bubblewrapCodeRunner(backend: SandboxBackend = sandboxBackend("bubblewrap")): CodeRunner {
  const sandboxed = sandboxCodeRunner((limits) => backend.create({ limits }), backend.name);
  return {
    name: backend.name,
    async start(request) {
      const why = await backend.unavailable();
      if (why) {
        throw new RubricateError(
          "SANDBOX",
          `tests: the response's code runs in the ${backend.name} sandbox, which cannot run here: ${why}. Install it, or run with --unsafe-no-sandbox (RUBRICATE_UNSAFE_NO_SANDBOX=1) to run the code in a plain child process with limits but no isolation, for code you trust`,
        );
      }
      return sandboxed.start(request);
    },
  };
}
