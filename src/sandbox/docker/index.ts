import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { RubricateError } from "../../errors.js";
import { killGroup, runChild, type ChildCommand } from "../process.js";
import { CommandSandbox } from "../command-sandbox.js";
import { resolveLimits, type ExecOptions, type ExecResult, type Sandbox, type SandboxBackend, type SandboxLimits, type SandboxOptions } from "../types.js";

/** Where commands see their work folder. */
export const WORKDIR = "/work";
/** The image used when the environment names none. */
export const DEFAULT_IMAGE = "debian:bookworm-slim";
/** Label on every container we start, so a crashed run's containers can be found (`docker ps -f label=rubricate.sandbox`). */
const LABEL = "rubricate.sandbox";

/** The host-side CLI gets only what it needs to reach its engine (never API keys). */
function cliEnv(): Record<string, string> {
  const keep = ["PATH", "HOME", "DOCKER_HOST", "DOCKER_CONFIG", "DOCKER_CONTEXT", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY", "CONTAINER_HOST", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME"];
  const env: Record<string, string> = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k] as string;
  return env;
}

/**
 * docker or podman (same CLI) behind the sandbox interface: one container per sandbox
 * (`sleep infinity`), commands by `exec`, removed with `rm -f`. The container has no network,
 * a read-only root, a size-limited tmpfs work folder, memory/pids/CPU limits and drops every
 * capability. A command's wall-clock limit kills it inside the container (`timeout -s KILL`),
 * since killing the `docker exec` client would leave it running.
 */
export function containerBackend(cli: "docker" | "podman"): SandboxBackend {
  let availability: Promise<string | null> | undefined;
  return {
    name: cli,
    unavailable() {
      availability ??= new Promise((resolve) => {
        const r = spawnSync(cli, ["info", "--format", "{{json .ID}}"], { stdio: ["ignore", "ignore", "pipe"], timeout: 10_000, env: cliEnv() });
        if (r.error) resolve(`${cli} is not installed: ${(r.error as NodeJS.ErrnoException).code ?? r.error.message}`);
        else if (r.status !== 0) resolve(`${cli} has no engine answering: ${String(r.stderr).trim().split("\n")[0] || `exit ${r.status}`}`);
        else resolve(null);
      });
      return availability;
    },
    async create(options: SandboxOptions = {}) {
      const why = await this.unavailable();
      if (why) throw new RubricateError("SANDBOX", why);
      if (options.guardChecker) warnUnguardedChecker(cli);
      const box = new ContainerSandbox(cli, options);
      await box.start();
      return box;
    },
  };
}

const warnedUnguarded = new Set<string>();

/**
 * Once per process and CLI: a checker here runs without `guardChecker` (a container takes one
 * seccomp profile, its engine's default, which allows ptrace), so the run says so rather than
 * checking as if it were guarded. Refusing would leave docker environments no final-state checks.
 */
function warnUnguardedChecker(cli: string): void {
  if (warnedUnguarded.has(cli)) return;
  warnedUnguarded.add(cli);
  process.emitWarning(`${cli}: final-state checks run without the checker's guard (their engine's default seccomp profile lets checked code trace the check and rewrite its memory); use the bubblewrap backend for rewards a policy must not bend (docs/security.md)`, { type: "RubricateWarning", code: "SANDBOX" });
}

/** The sandbox backend over the docker CLI (needs a running engine). */
export const dockerBackend = containerBackend("docker");
/** The sandbox backend over the podman CLI. */
export const podmanBackend = containerBackend("podman");

class ContainerSandbox extends CommandSandbox implements Sandbox {
  readonly workdir = WORKDIR;
  readonly id: string;
  readonly limits: SandboxLimits;

  /** Commands run as 65534 (`--user`); the same uid on the host when the runtime runs as root (rootless ones map it elsewhere). */
  get user(): { uid: number; gid: number } | undefined {
    return process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
  }

  constructor(
    readonly backend: "docker" | "podman",
    private readonly options: SandboxOptions,
  ) {
    super();
    this.limits = resolveLimits(options.limits);
    this.id = `rubricate-${process.pid}-${randomBytes(4).toString("hex")}`;
  }

  async start(): Promise<void> {
    const l = this.limits;
    const args = ["run", "-d", "--rm", "--name", this.id, "--label", LABEL, "--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges"];
    args.push("--network", this.options.network ? "bridge" : "none");
    args.push("--memory", String(l.memoryBytes), "--pids-limit", String(l.processes), "--ulimit", `cpu=${l.cpuSeconds}:${l.cpuSeconds + 1}`, "--ulimit", `fsize=${l.fileBytes}`, "--ulimit", `nofile=${l.openFiles}`);
    args.push("--tmpfs", `${WORKDIR}:rw,exec,size=${l.diskBytes},mode=1777`, "--tmpfs", `/tmp:rw,exec,size=${l.diskBytes},mode=1777`, "-w", WORKDIR, "--user", "65534:65534");
    for (const b of this.options.binds ?? []) args.push("-v", `${b.host}:${b.path}${b.writable ? "" : ":ro"}`);
    for (const [k, v] of Object.entries({ HOME: WORKDIR, ...this.options.env })) args.push("-e", `${k}=${v}`);
    args.push(this.options.image ?? DEFAULT_IMAGE, "sleep", "infinity");
    const r = await runChild({ file: this.backend, args, env: cliEnv() }, { timeoutMs: 120_000 });
    if (r.exitCode !== 0) throw new RubricateError("SANDBOX", `${this.backend} run failed: ${r.stderr.trim() || r.limit || `exit ${r.exitCode}`}`);
  }

  protected command(argv: string[], options: Omit<ExecOptions, "stdin" | "timeoutMs"> & { timeoutMs?: number } = {}): ChildCommand {
    const args = ["exec", "-i", "-w", options.cwd ?? WORKDIR];
    for (const [k, v] of Object.entries(options.env ?? {})) args.push("-e", `${k}=${v}`);
    const timed = options.timeoutMs === undefined ? argv : ["timeout", "-s", "KILL", `${Math.ceil(options.timeoutMs / 1000)}`, ...argv];
    return { file: this.backend, args: [...args, this.id, ...timed], env: cliEnv() };
  }


  override async exec(command: string | string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.alive();
    const argv = typeof command === "string" ? ["/bin/sh", "-c", command] : command;
    const timeoutMs = options.timeoutMs ?? this.limits.commandTimeoutMs;
    // The client gets a little longer than the in-container `timeout`, which does the killing.
    const r = await runChild(this.command(argv, { ...options, timeoutMs }), { ...options, timeoutMs: timeoutMs + 2000, outputBytes: this.limits.outputBytes, children: this.children });
    if (r.exitCode === 137 && r.ms >= timeoutMs) return { ...r, exitCode: null, signal: "SIGKILL", limit: "timeout" };
    return r;
  }





  /** The container CLI adds its own start-up to a transfer. */
  protected override transferTimeoutMs(): number {
    return this.limits.commandTimeoutMs + 2000;
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const child of this.children) killGroup(child);
    await runChild({ file: this.backend, args: ["rm", "-f", this.id], env: cliEnv() }, { timeoutMs: 60_000 });
  }
}
