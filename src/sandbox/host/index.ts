import { type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { RubricateError } from "../../errors.js";
import { readViaExec, writeViaExec } from "../files.js";
import { killGroup, runChild, runChildRaw, sandboxProcess, type ChildCommand, type RawExec } from "../process.js";
import { resolveLimits, type ExecOptions, type ExecResult, type Sandbox, type SandboxBackend, type SandboxLimits, type SandboxOptions, type SandboxProcess } from "../types.js";

/**
 * NOT a sandbox: commands run on the host with the caller's rights, in a temporary folder, with
 * a clean environment and the per-process limits (prlimit). Only for `--unsafe-no-sandbox`, for
 * environments one trusts on machines without bubblewrap.
 */
export const unsafeHostBackend: SandboxBackend = {
  name: "unsafe-host",
  async unavailable() {
    return null;
  },
  async create(options: SandboxOptions = {}) {
    return new HostSandbox(options);
  },
};

class HostSandbox implements Sandbox {
  readonly backend = "unsafe-host";
  readonly id: string;
  readonly workdir: string;
  readonly limits: SandboxLimits;
  private readonly children = new Set<ChildProcess>();
  private destroyed = false;

  constructor(private readonly options: SandboxOptions) {
    this.limits = resolveLimits(options.limits);
    this.workdir = mkdtempSync(join(tmpdir(), "rubricate-unsafe-"));
    this.id = `host-${this.workdir}`;
    process.once("exit", () => this.destroySync());
  }

  private command(argv: string[], options: Omit<ExecOptions, "stdin" | "timeoutMs"> = {}): ChildCommand {
    const l = this.limits;
    const cwd = options.cwd === undefined ? this.workdir : isAbsolute(options.cwd) ? options.cwd : join(this.workdir, options.cwd);
    const limits = [`--cpu=${l.cpuSeconds}:${l.cpuSeconds + 1}`, `--as=${l.memoryBytes}`, `--fsize=${l.fileBytes}`, `--nofile=${l.openFiles}`, "--core=0"];
    const env = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: this.workdir, LANG: "C.UTF-8", TERM: "dumb", ...this.options.env, ...options.env };
    const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    return { file: "prlimit", args: [...limits, "--", "env", "-i", "-C", cwd, ...envArgs, ...argv], env: { PATH: env.PATH } };
  }

  private alive(): void {
    if (this.destroyed) throw new RubricateError("SANDBOX", `sandbox ${this.id} was destroyed`);
  }

  async exec(command: string | string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.alive();
    const argv = typeof command === "string" ? ["/bin/sh", "-c", command] : command;
    return runChild(this.command(argv, options), { ...options, timeoutMs: options.timeoutMs ?? this.limits.commandTimeoutMs, outputBytes: this.limits.outputBytes, children: this.children });
  }

  spawn(argv: string[], options: Omit<ExecOptions, "stdin" | "timeoutMs"> = {}): SandboxProcess {
    this.alive();
    return sandboxProcess(this.command(argv, options), this.children);
  }

  private raw: RawExec = (argv, o) => runChildRaw(this.command(argv), { ...o, timeoutMs: this.limits.commandTimeoutMs, children: this.children });

  readFile(path: string, options: { maxBytes?: number } = {}): Promise<Buffer> {
    this.alive();
    return readViaExec(this.raw, path, options.maxBytes);
  }

  writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    this.alive();
    return writeViaExec(this.raw, path, data, options.mode);
  }

  async destroy(): Promise<void> {
    this.destroySync();
  }

  private destroySync(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const child of this.children) killGroup(child);
    rmSync(this.workdir, { recursive: true, force: true, maxRetries: 3 });
  }
}
