import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { killGroup, type ChildCommand } from "../process.js";
import { CommandSandbox } from "../command-sandbox.js";
import { resolveLimits, type ExecOptions, type Sandbox, type SandboxBackend, type SandboxLimits, type SandboxOptions } from "../types.js";

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

class HostSandbox extends CommandSandbox implements Sandbox {
  readonly backend = "unsafe-host";
  readonly id: string;
  readonly workdir: string;
  readonly limits: SandboxLimits;

  constructor(private readonly options: SandboxOptions) {
    super();
    this.limits = resolveLimits(options.limits);
    this.workdir = mkdtempSync(join(tmpdir(), "rubricate-unsafe-"));
    this.id = `host-${this.workdir}`;
    process.once("exit", () => this.destroySync());
  }

  protected command(argv: string[], options: Omit<ExecOptions, "stdin" | "timeoutMs"> = {}): ChildCommand {
    const l = this.limits;
    const cwd = options.cwd === undefined ? this.workdir : isAbsolute(options.cwd) ? options.cwd : join(this.workdir, options.cwd);
    const limits = [`--cpu=${l.cpuSeconds}:${l.cpuSeconds + 1}`, `--as=${l.memoryBytes}`, `--fsize=${l.fileBytes}`, `--nofile=${l.openFiles}`, "--core=0"];
    const env = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: this.workdir, LANG: "C.UTF-8", TERM: "dumb", ...this.options.env, ...options.env };
    const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    return { file: "prlimit", args: [...limits, "--", "env", "-i", "-C", cwd, ...envArgs, ...argv], env: { PATH: env.PATH } };
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
