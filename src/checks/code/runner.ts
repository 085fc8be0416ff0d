/**
 * Where untrusted code runs. One small interface so the `tests` check does not care whether a
 * child process with resource limits (here) or the bubblewrap sandbox runs it.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What a code runner is asked to run: language, files, command, limits. */
export interface RunRequest {
  /** The program and its arguments; `{dir}` in an argument is replaced by the job's folder. */
  command: string[];
  /** Files written into a fresh folder before the run (name → content). */
  files: Record<string, string>;
  stdin?: string;
  /** Wall-clock limit; the whole process group is killed past it. */
  timeoutMs: number;
  /** Address-space limit for the process (MiB); 0 for none (V8 reserves more than it uses). */
  memoryMb: number;
  /** Bytes of stdout and of stderr kept; the process is killed when it writes more. */
  maxOutputBytes: number;
}

/** What a code runner reports: exit code, output, limits hit. */
export interface RunResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  outputTruncated: boolean;
  ms: number;
}

/** Runs code for the `tests` check: a child process with limits, or a sandbox. */
export interface CodeRunner {
  readonly name: string;
  run(request: RunRequest): Promise<RunResult>;
}

/**
 * A child process under `prlimit` (address space, CPU seconds, file size) with a wall-clock
 * timer, in its own process group, with an empty environment. Not a sandbox: the code can read
 * the machine's files; use it only for code you would run yourself, until the sandbox lands.
 */
export function childProcessRunner(): CodeRunner {
  return {
    name: "child-process",
    async run(request) {
      const dir = await mkdtemp(join(tmpdir(), "rubricate-tests-"));
      try {
        await Promise.all(Object.entries(request.files).map(([name, content]) => writeFile(join(dir, name), content)));
        const command = request.command.map((a) => a.replaceAll("{dir}", dir));
        const cpuSeconds = Math.max(1, Math.ceil(request.timeoutMs / 1000) + 1);
        const limits = [`--cpu=${cpuSeconds}`, `--fsize=${64 * 1024 * 1024}`, ...(request.memoryMb > 0 ? [`--as=${request.memoryMb * 1024 * 1024}`] : [])];
        return await spawnLimited(["prlimit", ...limits, "--", ...command], dir, request);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

function spawnLimited(argv: string[], cwd: string, request: RunRequest): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, detached: true, stdio: ["pipe", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    let truncated = false;
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, request.timeoutMs);
    const collect = (chunks: Buffer[], which: "out" | "err") => (chunk: Buffer) => {
      const used = which === "out" ? outBytes : errBytes;
      const room = request.maxOutputBytes - used;
      if (room > 0) chunks.push(chunk.subarray(0, room));
      if (which === "out") outBytes += chunk.length;
      else errBytes += chunk.length;
      if (chunk.length > room && !truncated) {
        truncated = true;
        killGroup();
      }
    };
    child.stdout.on("data", collect(out, "out"));
    child.stderr.on("data", collect(err, "err"));
    child.stdin.on("error", () => undefined);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer);
      // Grandchildren left behind (a fork bomb, a background sleep) go with the group.
      killGroup();
      resolve({ exitCode, signal, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), timedOut, outputTruncated: truncated, ms: Date.now() - started });
    });
    child.stdin.end(request.stdin ?? "");
  });
}

/** The part of a sandbox (src/sandbox's `Sandbox`) the runner needs: files in, one command, cleanup. */
export interface SandboxLike {
  writeFile(path: string, data: string): Promise<void>;
  exec(argv: string[], options: { stdin?: string; timeoutMs?: number }): Promise<{ exitCode: number | null; signal: string | null; stdout: string; stderr: string; truncated: boolean; limit?: string; ms: number }>;
  destroy(): Promise<void>;
}

/** Limits a fresh sandbox is created with, in the sandbox's own terms. */
export interface SandboxRequestLimits {
  memoryBytes?: number;
  cpuSeconds: number;
  outputBytes: number;
  commandTimeoutMs: number;
}

/**
 * A runner over a sandbox runtime: one fresh sandbox per run (files written, the command run,
 * the sandbox destroyed).
 * @example setCodeRunner(sandboxCodeRunner((limits) => createSandbox({ limits })))
 */
export function sandboxCodeRunner(create: (limits: SandboxRequestLimits) => Promise<SandboxLike>, name = "sandbox"): CodeRunner {
  return {
    name,
    async run(request) {
      const box = await create({
        ...(request.memoryMb > 0 ? { memoryBytes: request.memoryMb * 1024 * 1024 } : {}),
        cpuSeconds: Math.max(1, Math.ceil(request.timeoutMs / 1000) + 1),
        outputBytes: request.maxOutputBytes,
        commandTimeoutMs: request.timeoutMs,
      });
      try {
        for (const [file, content] of Object.entries(request.files)) await box.writeFile(file, content);
        const result = await box.exec(request.command.map((a) => a.replaceAll("{dir}", ".")), { stdin: request.stdin, timeoutMs: request.timeoutMs });
        return { exitCode: result.exitCode, signal: result.signal, stdout: result.stdout, stderr: result.stderr, timedOut: result.limit === "timeout", outputTruncated: result.truncated, ms: result.ms };
      } finally {
        await box.destroy();
      }
    },
  };
}
