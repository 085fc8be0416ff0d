import type { ChildProcess } from "node:child_process";
import { RubricateError } from "../errors.js";
import { readViaExec, writeViaExec } from "./files.js";
import { runChild, runChildRaw, sandboxProcess, type ChildCommand, type RawExec } from "./process.js";
import type { ExecOptions, ExecResult, Sandbox, SandboxLimits, SandboxProcess } from "./types.js";

/**
 * What the backends share: each turns an argv into the host command that runs it inside its
 * isolation (`command`); running it, spawning it, moving files through it and refusing work after
 * `destroy` are the same for all of them.
 */
export abstract class CommandSandbox implements Pick<Sandbox, "exec" | "spawn" | "readFile" | "writeFile" | "exportWork" | "importWork"> {
  abstract readonly id: string;
  abstract readonly workdir: string;
  abstract readonly limits: SandboxLimits;
  /** Every process started for this sandbox, so destroy can kill what still runs. */
  protected readonly children = new Set<ChildProcess>();
  protected destroyed = false;

  /** The host command that runs `argv` inside the sandbox. */
  protected abstract command(argv: string[], options?: Omit<ExecOptions, "stdin" | "timeoutMs"> & { timeoutMs?: number }): ChildCommand;

  /** How long the host command of a file transfer may run (a container CLI adds its own start-up). */
  protected transferTimeoutMs(): number {
    return this.limits.commandTimeoutMs;
  }

  protected alive(): void {
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

  /** Runs an argv with binary output (file transfers). */
  protected raw: RawExec = (argv, o) => runChildRaw(this.command(argv, { timeoutMs: this.limits.commandTimeoutMs, ...(o.cwd ? { cwd: o.cwd } : {}) }), { ...o, timeoutMs: this.transferTimeoutMs(), children: this.children });

  readFile(path: string, options: { maxBytes?: number } = {}): Promise<Buffer> {
    this.alive();
    return readViaExec(this.raw, path, options.maxBytes);
  }

  writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    this.alive();
    return writeViaExec(this.raw, path, data, options.mode);
  }

  async exportWork(options: { maxBytes?: number } = {}): Promise<Buffer> {
    this.alive();
    const maxBytes = options.maxBytes ?? this.limits.diskBytes + 1024 * 1024;
    // --ignore-failed-read: a file the agent made unreadable is left out, the rest still comes.
    // --sparse (GNU tar; a busybox image has none): holes stay holes, so the copy fits where the
    // folder did (20 files `truncate -s 4M` take no disk, but unpacked as zeros they filled the
    // checker's disk and the rollout errored).
    // From / and with the owner's rights on the folder itself given back: the agent owns its work
    // folder, and after its `chmod 000 /work` no command could start there, the archive failed and
    // the rollout was an error, no reward, instead of its 0. What is inside keeps the agent's modes.
    const script = 'chmod u+rwx -- "$0" 2>/dev/null; if tar --help 2>&1 | grep -q -e --sparse; then set -- --sparse "$@"; fi; exec tar --create --gzip "$@" --file=- .';
    const r = await this.raw(["/bin/sh", "-c", script, this.workdir, "--ignore-failed-read", `--directory=${this.workdir}`], { outputBytes: maxBytes + 1, cwd: "/" });
    // `tooLarge`: what the folder holds, not the machine (final-state checks make it the agent's forfeit).
    if (r.stdout.length > maxBytes) throw Object.assign(new RubricateError("SANDBOX", `the work folder of ${this.id} is larger than ${maxBytes} bytes as an archive`), { tooLarge: true });
    // Cut by the sandbox's limits, the archive is truncated (unpacking it would fail). A folder
    // that takes past the time limit to archive is the agent's doing (tens of thousands of files
    // under long names), so it is its forfeit too, as a too-large one is; a cancelled run is not.
    if (r.limit !== undefined && r.limit !== "aborted") throw Object.assign(new RubricateError("SANDBOX", `the work folder of ${this.id} could not be archived within the sandbox's limits (${r.limit === "timeout" ? `it took longer than ${this.transferTimeoutMs()} ms` : `the ${r.limit} limit`})`), { tooLarge: true });
    if (r.limit === "aborted") throw new RubricateError("SANDBOX", `archiving the work folder of ${this.id} was cancelled`);
    if (r.exitCode !== 0 && r.stdout.length === 0) throw new RubricateError("SANDBOX", `cannot archive the work folder of ${this.id}: ${r.stderr.toString("utf8").trim() || r.limit || `exit ${r.exitCode}`}`);
    return r.stdout;
  }

  async importWork(archive: Uint8Array): Promise<void> {
    this.alive();
    const script = 'tar --extract --gzip --no-same-owner --no-same-permissions --file=- --directory="$1" && chmod -R u+rwX -- "$1"';
    const r = await this.raw(["/bin/sh", "-c", script, "sh", this.workdir], { stdin: archive });
    if (r.exitCode !== 0) throw new RubricateError("SANDBOX", `cannot unpack the work folder into ${this.id}: ${r.stderr.toString("utf8").trim() || r.limit || `exit ${r.exitCode}`}`);
  }
}
