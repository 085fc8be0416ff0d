import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, closeSync, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RubricateError } from "../../errors.js";
import { pidNamespace, processAlive } from "../../config/scratch.js";
import { killGroup, type ChildCommand } from "../process.js";
import { CommandSandbox } from "../command-sandbox.js";
import { cgroupParent, SandboxCgroup, sweepStaleGroups } from "./cgroup.js";
import { resolveLimits, type ExecOptions, type ExecResult, type Sandbox, type SandboxBackend, type SandboxLimits, type SandboxOptions } from "../types.js";
import { UidPool } from "./uids.js";
import { checkerFilter } from "./seccomp.js";

/** Where commands see their work folder. */
export const WORKDIR = "/work";
/** Prefix of every sandbox's host folder under the temp folder (stale ones are swept by pid). */
const DIR_PREFIX = "rubricate-sandbox-";
/** Host files a program may need (dynamic loader cache, certificates, Debian's alternatives): read-only, when present. */
const ETC_FILES = ["alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "ssl", "ca-certificates", "localtime", "nsswitch.conf", "mime.types"];
const NETWORK_ETC_FILES = ["resolv.conf", "hosts", "gai.conf", "host.conf"];
/** The merged-/usr top-level entries of Debian (symlinks into /usr) or real folders on older systems. */
const TOP_LEVEL = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];
/** The PATH of every command, and the only variables a command sees besides its own. */
const BASE_ENV = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: WORKDIR, USER: "sandbox", LOGNAME: "sandbox", LANG: "C.UTF-8", TERM: "dumb", TMPDIR: "/tmp" };

/** The bwrap binary: on PATH, or where RUBRICATE_BWRAP says (non-standard installs). */
const bwrapBinary = () => process.env.RUBRICATE_BWRAP ?? "bwrap";

const isRoot = () => process.getuid?.() === 0;

/** User ids of this process's sandboxes (as root). */
const uids = new UidPool();

/** Every live sandbox of this process, destroyed synchronously if the process exits first. */
const live = new Set<BubblewrapSandbox>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const box of live) box.destroySync();
  });
}

/**
 * Removes the folders (and tmpfs mounts) of sandboxes whose process died without cleaning up
 * (SIGKILL): each folder holds the pid of the process that made it, and its pid namespace (a
 * folder of another container sharing this temp folder is not judged by our pids; one made before
 * the namespace was written is judged by its pid alone). One this user cannot remove
 * is left to its owner's next sweep: a normal user shares the temp folder with root, whose
 * sandbox folders it cannot even list (0711), and its own sandbox must not fail for them.
 */
export function sweepStaleSandboxes(root = tmpdir()): number {
  let removed = 0;
  let entries: string[];
  try {
    entries = readdirSync(root).filter((n) => n.startsWith(DIR_PREFIX));
  } catch {
    return 0;
  }
  for (const name of entries) {
    const dir = join(root, name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, "owner.pid"), "utf8"));
      if (existsSync(join(dir, "owner.pidns")) && readFileSync(join(dir, "owner.pidns"), "utf8") !== pidNamespace()) continue;
    } catch {
      continue;
    }
    if (!Number.isInteger(owner) || owner <= 0 || processAlive(owner)) continue;
    try {
      removeSandboxDir(dir);
    } catch {
      continue;
    }
    removed++;
  }
  return removed;
}

function removeSandboxDir(dir: string): void {
  // "fs" holds the one tmpfs of /work, /tmp and /dev/shm; "work" was the mount point of older versions.
  for (const mount of [join(dir, "fs"), join(dir, "work")]) if (isMounted(mount)) spawnSync("umount", ["-l", mount], { stdio: "ignore" });
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

function isMounted(path: string): boolean {
  try {
    return readFileSync("/proc/self/mounts", "utf8").split("\n").some((line) => line.split(" ")[1] === path);
  } catch {
    return false;
  }
}

/**
 * The process limit a sandbox gets: its own, or this process's hard RLIMIT_NPROC where that is
 * lower (a normal user cannot raise it, and prlimit would then fail every command). `limits` is
 * the text of /proc/self/limits; unreadable, the sandbox's own limit stands.
 */
export function processCap(wanted: number, limits: string | undefined = ownLimits()): number {
  const hard = limits && /^Max processes\s+\S+\s+(\S+)/m.exec(limits)?.[1];
  return !hard || hard === "unlimited" ? wanted : Math.min(wanted, Number(hard));
}

let limitsText: string | undefined;
function ownLimits(): string | undefined {
  try {
    return (limitsText ??= readFileSync("/proc/self/limits", "utf8"));
  } catch {
    return undefined;
  }
}

let availability: Promise<string | null> | undefined;
let disableUserns = false;
/** Whether bwrap here applies the `guardChecker` filter and read-only /proc, per bwrap binary: null, or why not. */
const checkerGuards = new Map<string, string | null>();

/**
 * Null when bwrap applies the seccomp filter in `file` and a read-only /proc on this host, else
 * why not: bwrap refuses to start a command whose filter the kernel rejects (no seccomp filters).
 */
function checkerGuardUnavailable(file: string): string | null {
  const binary = bwrapBinary();
  if (checkerGuards.has(binary)) return checkerGuards.get(binary)!;
  const fd = openSync(file, "r");
  let probe;
  try {
    probe = spawnSync(binary, ["--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr", ...topLevelArgs(), "--proc", "/proc", "--remount-ro", "/proc", "--dev", "/dev", "--seccomp", "3", "/usr/bin/true"], {
      stdio: ["ignore", "ignore", "pipe", fd],
      timeout: 10_000,
      env: { PATH: BASE_ENV.PATH },
    });
  } finally {
    closeSync(fd);
  }
  const why = probe.error ? probe.error.message : probe.status === 0 ? null : String(probe.stderr).trim() || `exit ${probe.status}`;
  checkerGuards.set(binary, why === null ? null : `bubblewrap cannot apply the seccomp filter and read-only /proc that keep a checked program from reaching its check here: ${why}`);
  return checkerGuards.get(binary)!;
}

/**
 * The default backend on Linux: one fresh `bwrap` per command over a private work folder, so
 * every process a command starts dies with it (its own pid namespace). Read-only /usr and a
 * handful of /etc files; no home, no project folder, no host variables, no network unless asked.
 * The process limit holds in every case: it is set inside the sandbox's own user namespace,
 * where the kernel counts that sandbox's processes alone. As root each sandbox also runs as a user
 * id of its own, and /work, /tmp and /dev/shm are folders of one size-limited tmpfs (so
 * `diskBytes` bounds everything it can write; /dev itself is read-only); otherwise as the calling
 * user, where /tmp and /dev/shm are size-limited per command and only the per-file size limit
 * bounds /work. Where a cgroup can be made (cgroup.ts: v2 delegated, or v1 as root), each sandbox
 * is a group whose memory and process count are bounded as a whole; elsewhere memory is bounded
 * per process (RLIMIT_AS), so a sandbox holds at most memoryBytes × processes.
 */
export const bubblewrapBackend: SandboxBackend = {
  name: "bubblewrap",
  unavailable() {
    availability ??= new Promise((resolve) => {
      const probe = spawnSync(bwrapBinary(), ["--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr", ...topLevelArgs(), "--proc", "/proc", "--dev", "/dev", "/usr/bin/true"], {
        stdio: ["ignore", "ignore", "pipe"],
        timeout: 10_000,
        env: { PATH: BASE_ENV.PATH },
      });
      // --disable-userns came with bubblewrap 0.8 (Debian 12); older ones (Ubuntu 22.04: 0.6) run without it.
      disableUserns = String(spawnSync(bwrapBinary(), ["--help"], { encoding: "utf8", env: { PATH: BASE_ENV.PATH } }).stdout ?? "").includes("--disable-userns");
      if (probe.error) resolve(`bubblewrap (bwrap) is not installed: ${(probe.error as NodeJS.ErrnoException).code ?? probe.error.message} (Debian/Ubuntu: apt-get install bubblewrap)`);
      else if (probe.status !== 0) resolve(`bubblewrap cannot create namespaces here: ${String(probe.stderr).trim() || `exit ${probe.status}`}`);
      else resolve(null);
    });
    return availability;
  },
  async create(options: SandboxOptions = {}) {
    const why = await this.unavailable();
    if (why) throw new RubricateError("SANDBOX", why);
    // Built before anything is made: a host it cannot guard fails here, loudly.
    const filter = options.guardChecker ? checkerFilter() : undefined;
    const box = new BubblewrapSandbox(options, filter);
    const unguarded = box.seccomp ? checkerGuardUnavailable(box.seccomp) : null;
    if (unguarded) {
      box.destroySync();
      throw new RubricateError("SANDBOX", unguarded);
    }
    return box;
  },
};

function topLevelArgs(): string[] {
  const args: string[] = [];
  for (const name of TOP_LEVEL) {
    const path = `/${name}`;
    let st;
    try {
      st = lstatSync(path);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push("--symlink", readlinkSync(path), path);
    else if (st.isDirectory()) args.push("--ro-bind", path, path);
  }
  return args;
}

let sandboxCounter = 0;
let swept = false;

class BubblewrapSandbox extends CommandSandbox implements Sandbox {
  readonly backend = "bubblewrap";
  readonly workdir = WORKDIR;
  readonly id: string;
  readonly limits: SandboxLimits;
  private readonly dir: string;
  private readonly work: string;
  /** Host folders of /tmp and /dev/shm inside the sandbox's one tmpfs (as root), else per-command tmpfs. */
  private readonly scratch: { tmp: string; shm: string } | undefined;
  private readonly uid: number | undefined;
  private readonly mounted: boolean;
  private readonly cgroup: SandboxCgroup | undefined;
  private readonly options: SandboxOptions;
  /** The `guardChecker` seccomp filter's file (in the root-owned host folder), given to every command's bwrap on fd 3. */
  readonly seccomp: string | undefined;

  get user(): { uid: number; gid: number } | undefined {
    return this.uid === undefined ? undefined : { uid: this.uid, gid: this.uid };
  }

  constructor(options: SandboxOptions, filter?: Buffer) {
    super();
    // Once per process: folders and cgroups of processes that died without cleaning up (SIGKILL).
    if (!swept) {
      swept = true;
      sweepStaleSandboxes();
      sweepStaleGroups(cgroupParent(), processAlive);
    }
    this.options = options;
    this.limits = resolveLimits(options.limits);
    this.dir = mkdtempSync(join(tmpdir(), DIR_PREFIX));
    // The sandbox user passes through (to its work folder and /etc files) but cannot list it.
    chmodSync(this.dir, 0o711);
    this.id = `bwrap-${process.pid}-${++sandboxCounter}`;
    writeFileSync(join(this.dir, "owner.pid"), String(process.pid));
    writeFileSync(join(this.dir, "owner.pidns"), pidNamespace());
    created.push(this.dir);
    this.uid = isRoot() ? uids.take() : undefined;
    const uid = this.uid ?? process.getuid?.() ?? 1000;
    const gid = this.uid ?? process.getgid?.() ?? 1000;
    let mounted = false;
    if (this.uid !== undefined) {
      const fs = join(this.dir, "fs");
      mkdirSync(fs, { mode: 0o700 });
      const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${this.limits.diskBytes},mode=0700,uid=${uid},gid=${gid},nosuid,nodev`, "tmpfs", fs], { stdio: "ignore" });
      mounted = r.status === 0;
    }
    this.mounted = mounted;
    if (mounted) {
      const fs = join(this.dir, "fs");
      this.work = join(fs, "work");
      this.scratch = { tmp: join(fs, "tmp"), shm: join(fs, "shm") };
      for (const folder of [this.work, this.scratch.tmp, this.scratch.shm]) {
        mkdirSync(folder, { mode: 0o700 });
        chownSync(folder, uid, gid);
      }
    } else {
      this.work = join(this.dir, "work");
      mkdirSync(this.work, { mode: 0o700 });
      if (this.uid !== undefined) chownSync(this.work, uid, gid);
    }
    const group = cgroupParent();
    this.cgroup = "unavailable" in group ? undefined : SandboxCgroup.create(group, `rubricate-${this.id}`, this.limits.memoryBytes, this.limits.processes);
    mkdirSync(join(this.dir, "etc"));
    writeFileSync(join(this.dir, "etc", "passwd"), `root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:${uid}:${gid}:sandbox:${WORKDIR}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`);
    writeFileSync(join(this.dir, "etc", "group"), `root:x:0:\nsandbox:x:${gid}:\nnogroup:x:65534:\n`);
    writeFileSync(join(this.dir, "etc", "hostname"), "sandbox\n");
    this.seccomp = filter ? join(this.dir, "seccomp.bpf") : undefined;
    if (this.seccomp) writeFileSync(this.seccomp, filter!);
    live.add(this);
    installExitHook();
  }

  /** (the sandbox's cgroup →) prlimit → setpriv (as root) → bwrap → prlimit (the process limit, inside) → the command. */
  protected command(argv: string[], options: Omit<ExecOptions, "stdin" | "timeoutMs"> = {}): ChildCommand {
    const l = this.limits;
    // With a cgroup the memory budget is the whole sandbox's; RLIMIT_AS would only trip V8's reservations.
    const limits = [`--cpu=${l.cpuSeconds}:${l.cpuSeconds + 1}`, ...(this.cgroup ? [] : [`--as=${l.memoryBytes}`]), `--fsize=${l.fileBytes}`, `--nofile=${l.openFiles}`, "--core=0"];
    if (this.uid !== undefined) limits.push(`--nproc=${l.processes}`);
    const user = this.uid !== undefined ? ["setpriv", `--reuid=${this.uid}`, `--regid=${this.uid}`, "--clear-groups", "--"] : [];
    const bwrap = [bwrapBinary(), "--unshare-all", "--unshare-user", ...(disableUserns ? ["--disable-userns"] : []), "--die-with-parent", "--new-session"];
    if (this.options.network) bwrap.push("--share-net");
    bwrap.push("--ro-bind", "/usr", "/usr", ...topLevelArgs());
    for (const name of ETC_FILES) bwrap.push("--ro-bind-try", `/etc/${name}`, `/etc/${name}`);
    if (this.options.network) for (const name of NETWORK_ETC_FILES) bwrap.push("--ro-bind-try", `/etc/${name}`, `/etc/${name}`);
    for (const name of ["passwd", "group", "hostname"]) bwrap.push("--ro-bind", join(this.dir, "etc", name), `/etc/${name}`);
    bwrap.push("--proc", "/proc");
    // guardChecker: /proc/<pid>/mem (and every other /proc file) cannot be opened for writing; the seccomp filter (seccomp.ts) does the rest.
    if (this.seccomp) bwrap.push("--remount-ro", "/proc", "--seccomp", "3");
    bwrap.push("--dev", "/dev");
    if (this.scratch) bwrap.push("--bind", this.scratch.tmp, "/tmp", "--bind", this.scratch.shm, "/dev/shm");
    else bwrap.push("--size", String(l.diskBytes), "--tmpfs", "/tmp", "--size", String(l.diskBytes), "--tmpfs", "/dev/shm");
    // /dev is a tmpfs of its own (half the host's memory): read-only, so only /dev/shm is writable there.
    bwrap.push("--remount-ro", "/dev", "--bind", this.work, WORKDIR);
    for (const b of this.options.binds ?? []) bwrap.push(b.writable ? "--bind" : "--ro-bind", b.host, b.path);
    bwrap.push("--chdir", options.cwd ?? WORKDIR, "--clearenv");
    for (const [k, v] of Object.entries({ ...BASE_ENV, ...this.options.env, ...options.env })) bwrap.push("--setenv", k, v);
    // The process limit is set again inside, in the sandbox's own user namespace, where the kernel
    // counts only this sandbox's processes (and a namespace nested in it cannot reset the count): as
    // a normal user the one outside would count every process the user has. As root the uid of its
    // own (setpriv) bounds it outside too.
    bwrap.push("--", "prlimit", `--nproc=${processCap(l.processes)}`, "--", ...argv);
    // bwrap's own environment shows in the sandbox as /proc/1/environ: start it with nothing of ours.
    const chain = [...(this.cgroup?.prefix() ?? []), "prlimit", ...limits, "--", ...user, ...bwrap];
    return { file: chain[0], args: chain.slice(1), env: { PATH: BASE_ENV.PATH }, ...(this.seccomp ? { inputFiles: [this.seccomp] } : {}) };
  }

  /**
   * A command the sandbox's cgroup killed for going over its memory budget says so (`limit:
   * "memory"`): to the command the kernel's out-of-memory kill is a bare SIGKILL. Read from the
   * group's count of such kills, so another command of the same sandbox killed meanwhile counts too.
   */
  override async exec(command: string | string[], options: ExecOptions = {}): Promise<ExecResult> {
    const before = this.cgroup?.oomKills();
    const result = await super.exec(command, options);
    if (before === undefined || result.limit !== undefined || result.signal !== "SIGKILL") return result;
    return (this.cgroup!.oomKills() ?? before) > before ? { ...result, limit: "memory" } : result;
  }

  async destroy(): Promise<void> {
    this.destroySync();
  }

  /** Kills what still runs, unmounts and removes the folder; synchronous so it also works in an exit handler. */
  destroySync(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const child of this.children) killGroup(child);
    this.children.clear();
    this.cgroup?.remove();
    if (this.uid !== undefined) uids.release(this.uid);
    if (this.mounted) {
      const fs = join(this.dir, "fs");
      const r = spawnSync("umount", [fs], { stdio: "ignore" });
      if (r.status !== 0) spawnSync("umount", ["-l", fs], { stdio: "ignore" });
    }
    if (existsSync(this.dir)) removeSandboxDir(this.dir);
    live.delete(this);
  }
}

/** Every host folder this process made for a sandbox (for tests that check nothing is left behind). */
const created: string[] = [];
export const sandboxFoldersCreated = (): readonly string[] => created;
