/**
 * The sandbox interface: a private machine for untrusted commands (a policy's terminal, a test
 * suite, a REPL). Backends implement it: `bubblewrap/` (default on Linux) and `docker/` (docker or
 * podman). Nothing of the host reaches a sandbox unless named here: no environment variables, no
 * home, no project folder, no network.
 */

/** Resource limits of one sandbox. Every command runs under all of them. */
export interface SandboxLimits {
  /** CPU seconds per process (RLIMIT_CPU): a busy loop is killed here. */
  cpuSeconds: number;
  /**
   * Memory in bytes: of the sandbox as a whole where the backend can bound it (bubblewrap with a
   * delegated cgroup v2 or, as root, cgroup v1; docker's --memory), else the address space of
   * each process (RLIMIT_AS), so at most memoryBytes × processes in all.
   */
  memoryBytes: number;
  /** Processes and threads the sandbox may hold at once (a fork bomb stops here). */
  processes: number;
  /** Largest file a process may write, in bytes (RLIMIT_FSIZE). */
  fileBytes: number;
  /** Bytes the sandbox may write: /work, /tmp and /dev/shm together (one size-limited tmpfs where the backend can mount one; else each is capped on its own). */
  diskBytes: number;
  /** Open files per process. */
  openFiles: number;
  /** Bytes of stdout and of stderr kept per command; the rest is dropped and `truncated` is set. */
  outputBytes: number;
  /** Wall-clock limit of one command, in ms; the command's every process is killed at it. */
  commandTimeoutMs: number;
}

/** Defaults: small enough that 64 sandboxes fit a laptop, large enough for python3 and sqlite. */
export const DEFAULT_LIMITS: SandboxLimits = {
  cpuSeconds: 10,
  memoryBytes: 1024 * 1024 * 1024,
  processes: 64,
  fileBytes: 32 * 1024 * 1024,
  diskBytes: 64 * 1024 * 1024,
  openFiles: 256,
  outputBytes: 64 * 1024,
  commandTimeoutMs: 10_000,
};

/** A host path made visible inside the sandbox (read-only unless `writable`). */
export interface SandboxBind {
  host: string;
  path: string;
  writable?: boolean;
}

/** How to create a sandbox. */
export interface SandboxOptions {
  /** Allow network access (default false: only a private loopback). */
  network?: boolean;
  limits?: Partial<SandboxLimits>;
  /** Environment variables of every command (the host's never reach the sandbox). */
  env?: Record<string, string>;
  /** Extra host paths to bind (e.g. a Unix socket folder). */
  binds?: SandboxBind[];
  /** Container image (docker/podman only; bubblewrap uses the host's read-only /usr). */
  image?: string;
  /**
   * For a sandbox where a check runs the code it checks (final-state checks): that code has the
   * check's user and would otherwise trace the check and swallow its signals, rewrite its memory,
   * or run what it is given under a seccomp filter or Landlock domain of its own, where a probe's
   * `kill` sends nothing. So no process of the sandbox may trace another or reach its memory
   * (ptrace, process_vm_readv, process_vm_writev, pidfd_getfd, kcmp and process_madvise fail with
   * EPERM; /proc is read-only, so /proc/<pid>/mem opens for reading only) or restrict itself (seccomp,
   * prctl(PR_SET_SECCOMP) and landlock_* fail with EPERM). Commands that trace (strace, gdb) or
   * sandbox themselves (a `file` built with libseccomp: `file -S`) fail there. bubblewrap applies it
   * or refuses to create the sandbox (a host other than x64 or arm64, a kernel without seccomp
   * filters). docker and podman do not apply it: their default seccomp profile allows ptrace on
   * kernels from 4.8 on, and seccomp, and a container takes one profile, at its start
   * (docs/security.md): they open it unguarded with a `RubricateWarning` (code `SANDBOX`) once per
   * process; unsafe-host isolates nothing anyway.
   */
  guardChecker?: boolean;
}

/** Options of one command. */
export interface ExecOptions {
  /** Bytes written to the command's stdin (then closed). */
  stdin?: string | Uint8Array;
  /** Overrides the sandbox's `commandTimeoutMs` for this command. */
  timeoutMs?: number;
  /** Extra environment variables for this command. */
  env?: Record<string, string>;
  /** Working directory inside the sandbox (default the work folder). */
  cwd?: string;
  signal?: AbortSignal;
}

/** Which limit ended a command, when one did. */
export type SandboxLimitHit = "timeout" | "cpu" | "memory" | "file_size" | "aborted";

/** What a command did. Never thrown: a failing command is a result. */
export interface ExecResult {
  /** The exit code, or null when a signal ended the command. */
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** True when stdout or stderr was longer than `outputBytes` and was cut. */
  truncated: boolean;
  /** Set when a limit (or the caller's signal) ended the command. */
  limit?: SandboxLimitHit;
  ms: number;
}

/** A long-running process inside a sandbox (a REPL): raw pipes and a kill switch. */
export interface SandboxProcess {
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
  readonly stderr: NodeJS.ReadableStream;
  /** Resolves with the exit code (null after a signal) once the process and all its children are gone. */
  readonly exited: Promise<number | null>;
  kill(): void;
}

/** One sandbox: a private work folder and the commands run in it. */
export interface Sandbox {
  readonly id: string;
  /** The backend's name ("bubblewrap", "docker", "podman", "unsafe-host"). */
  readonly backend: string;
  /** The work folder as commands see it (the cwd of every command). */
  readonly workdir: string;
  readonly limits: SandboxLimits;
  /**
   * The host user its commands run as when that is not this process's own (a root server gives
   * each bubblewrap sandbox a uid of its own): host files the sandbox must reach, and no other
   * local user may (the `llm_query` sockets), are handed to it.
   */
  readonly user?: { uid: number; gid: number };
  /** Runs `sh -c command` (a string) or an argv (an array). */
  exec(command: string | string[], options?: ExecOptions): Promise<ExecResult>;
  /** Starts a long-running argv (a REPL); it is killed by `destroy` at the latest. */
  spawn(argv: string[], options?: Omit<ExecOptions, "stdin" | "timeoutMs">): SandboxProcess;
  /** Reads a file (relative paths are under the work folder), read inside the sandbox so a symlink cannot reach the host. */
  readFile(path: string, options?: { maxBytes?: number }): Promise<Buffer>;
  /** Writes a file inside the sandbox (parents created). */
  writeFile(path: string, data: string | Uint8Array, options?: { mode?: number }): Promise<void>;
  /**
   * The work folder as a gzipped tar archive, read inside the sandbox as its own user (what that user
   * cannot read is left out). Final-state checks restore it into a fresh sandbox.
   */
  exportWork(options?: { maxBytes?: number }): Promise<Buffer>;
  /**
   * Unpacks an `exportWork` archive into the work folder and makes every file and folder
   * readable and writable by the sandbox user again (permissions the archive carried are not kept
   * beyond the executable bit).
   */
  importWork(archive: Uint8Array): Promise<void>;
  /** Kills every process, removes the work folder and anything mounted for it. Safe to call twice. */
  destroy(): Promise<void>;
}

/** A way to make sandboxes. */
export interface SandboxBackend {
  readonly name: string;
  /** Null when usable here, else why not (binary missing, no engine answering). */
  unavailable(): Promise<string | null>;
  create(options?: SandboxOptions): Promise<Sandbox>;
}

/** Fills the limits a caller left out. */
export function resolveLimits(limits: Partial<SandboxLimits> = {}): SandboxLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const [k, v] of Object.entries(limits)) if (v !== undefined) (out as Record<string, number>)[k] = v;
  return out;
}
