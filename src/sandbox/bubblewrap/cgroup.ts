/**
 * A memory and process budget for a whole sandbox: a cgroup per sandbox, where the machine lets
 * us make one. RLIMIT_AS bounds one process; a sandbox of many processes could otherwise hold
 * `memory × processes`. Two layouts:
 * - cgroup v2 with the memory and pids controllers delegated to a group we may write: the group
 *   rubricate runs in when it is the root of its cgroup namespace (a container) or when
 *   controllers can be enabled below it, or the folder named by RUBRICATE_CGROUP (e.g. a systemd
 *   `Delegate=yes` slice);
 * - cgroup v1 (older hosts, many CI machines and VMs) with the memory and pids hierarchies mounted
 *   and writable below this process's own groups (as root): a group in each.
 * Elsewhere `cgroupParent()` says why not, and the sandbox falls back to per-process limits plus
 * a process cap (types.ts).
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Where cgroups are mounted on the systems we support (v2 itself, or v1's hierarchies below it). */
const CGROUP_ROOT = "/sys/fs/cgroup";

/**
 * The groups under which sandboxes get theirs, or why there are none: cgroup v2's one folder
 * (memory and pids enabled below it), or cgroup v1's memory and pids hierarchies.
 */
export type CgroupParent = { version: 2; path: string } | { version: 1; memory: string; pids: string } | { unavailable: string };

const controllersOf = (dir: string, file: string): string[] => {
  try {
    return readFileSync(join(dir, file), "utf8").trim().split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
};

/**
 * Finds (and prepares) the parent group: `RUBRICATE_CGROUP`, else this process's own cgroup v2
 * group, else its cgroup v1 memory and pids groups. In v2, memory and pids must be enabled for
 * its children (`cgroup.subtree_control`), which a group holding processes allows only at the
 * root of its hierarchy (the "no internal processes" rule): so a non-root group must be delegated
 * through RUBRICATE_CGROUP. v1 has no such rule; its groups must be writable (root).
 */
export function findCgroupParent(env: NodeJS.ProcessEnv = process.env, root = CGROUP_ROOT, selfCgroup = () => readFileSync("/proc/self/cgroup", "utf8")): CgroupParent {
  let path = env.RUBRICATE_CGROUP;
  if (!path) {
    if (!existsSync(join(root, "cgroup.controllers"))) return findCgroupV1Parent(root, selfCgroup);
    const own = ownGroups(selfCgroup).get("");
    if (own === undefined) return { unavailable: "this process is in no cgroup v2 group" };
    path = own === "/" ? root : join(root, own);
  }
  const available = controllersOf(path, "cgroup.controllers");
  const missing = ["memory", "pids"].filter((c) => !available.includes(c));
  if (missing.length) return { unavailable: `the ${missing.join(" and ")} controller${missing.length > 1 ? "s are" : " is"} not available in ${path}` };
  const enabled = controllersOf(path, "cgroup.subtree_control");
  const toEnable = ["memory", "pids"].filter((c) => !enabled.includes(c));
  if (toEnable.length) {
    try {
      writeFileSync(join(path, "cgroup.subtree_control"), toEnable.map((c) => `+${c}`).join(" "));
    } catch (e) {
      return { unavailable: `cannot enable ${toEnable.join(", ")} for groups below ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); set RUBRICATE_CGROUP to a delegated cgroup` };
    }
  }
  return { version: 2, path };
}

/**
 * This process's groups by controller list, from /proc/self/cgroup (`id:controllers:path` lines;
 * cgroup v2's has an empty list), or none when the file cannot be read.
 */
function ownGroups(selfCgroup: () => string): Map<string, string> {
  const groups = new Map<string, string>();
  let text: string;
  try {
    text = selfCgroup();
  } catch {
    return groups;
  }
  for (const line of text.split("\n")) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (match) groups.set(match[1], match[2]);
  }
  return groups;
}

/** cgroup v1: this process's memory and pids groups, each mounted on its own at `root/<controller>` and writable. */
function findCgroupV1Parent(root: string, selfCgroup: () => string): CgroupParent {
  const own = ownGroups(selfCgroup);
  const found: Record<string, string> = {};
  for (const controller of ["memory", "pids"]) {
    const group = own.get(controller);
    const mount = join(root, controller);
    if (group === undefined || !existsSync(join(mount, "cgroup.procs"))) return { unavailable: `no cgroup v2 at ${root}, and no cgroup v1 ${controller} hierarchy at ${mount}` };
    const path = group === "/" ? mount : join(mount, group);
    const refused = probeV1Group(path, controller === "memory" ? ["memory.limit_in_bytes", "-1"] : ["pids.max", "max"]);
    if (refused) return { unavailable: `cgroup v1: cannot make groups in ${path} (${refused}); as root it can` };
    found[controller] = path;
  }
  return { version: 1, memory: found.memory, pids: found.pids };
}

/** Probe groups made so far: each has a name of its own. */
let probes = 0;

/**
 * Makes a group in `path`, sets its limit file to no limit, and removes it: undefined when all
 * worked, else the error's code. A writable folder is not enough (a read-only cgroup mount in a
 * container, a security module refusing the limit), and a sandbox must not fail on it later.
 */
function probeV1Group(path: string, [file, unlimited]: [string, string]): string | undefined {
  const probe = join(path, `rubricate-probe-${process.pid}-${++probes}`);
  try {
    mkdirSync(probe);
    writeFileSync(join(probe, file), unlimited);
    return undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
  } finally {
    removeGroup(probe);
  }
}

/** Names of sandbox groups: `rubricate-bwrap-<owner pid>-<n>` (the sandbox's id, bubblewrap/index.ts). */
const STALE_GROUP = /^rubricate-bwrap-(\d+)-\d+$/;

/** The folders sandbox groups are made in: v2's one, or v1's memory and pids groups. */
export const groupParents = (parent: Exclude<CgroupParent, { unavailable: string }>): string[] => (parent.version === 2 ? [parent.path] : [parent.memory, parent.pids]);

/**
 * Removes the groups of sandboxes whose process died without removing them (SIGKILL), killing
 * what is left in each first; a group whose owner lives is left alone. Returns how many went.
 */
export function sweepStaleGroups(parent: CgroupParent, alive: (pid: number) => boolean): number {
  if ("unavailable" in parent) return 0;
  let removed = 0;
  for (const folder of groupParents(parent)) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      const owner = STALE_GROUP.exec(name)?.[1];
      if (owner === undefined || alive(Number(owner))) continue;
      killAll(join(folder, name));
      removeGroup(join(folder, name));
      removed++;
    }
  }
  return removed;
}

let parent: CgroupParent | undefined;
/** The parent groups of this process's sandboxes (found once). */
export function cgroupParent(): CgroupParent {
  parent ??= findCgroupParent();
  return parent;
}

/**
 * One sandbox's group (in cgroup v1, its memory group and its pids group): its limits, the
 * command prefix that puts a process in it, its count of out-of-memory kills, and removal.
 */
export class SandboxCgroup {
  /** The group folders: v2's one, or v1's memory and pids groups (memory first). */
  readonly paths: readonly string[];

  private constructor(
    readonly version: 1 | 2,
    paths: string[],
  ) {
    this.paths = paths;
  }

  /** Makes the group with a memory budget (no swap) and a process cap for everything in it. */
  static create(parent: Exclude<CgroupParent, { unavailable: string }>, name: string, memoryBytes: number, processes: number): SandboxCgroup {
    const paths = groupParents(parent).map((folder) => join(folder, name));
    const made: string[] = [];
    try {
      for (const path of paths) {
        mkdirSync(path);
        made.push(path);
      }
      const [memory, pids = memory] = paths;
      if (parent.version === 2) {
        writeFileSync(join(memory, "memory.max"), String(memoryBytes));
        if (existsSync(join(memory, "memory.swap.max"))) writeFileSync(join(memory, "memory.swap.max"), "0");
      } else {
        writeFileSync(join(memory, "memory.limit_in_bytes"), String(memoryBytes));
        // Memory plus swap (present with swap accounting), set after the memory limit it may not be under.
        if (existsSync(join(memory, "memory.memsw.limit_in_bytes"))) writeFileSync(join(memory, "memory.memsw.limit_in_bytes"), String(memoryBytes));
        // Without swap accounting, the group at its limit would swap out instead of being killed,
        // holding its budget in RAM and more on swap; a swappiness of 0 keeps its memory out of swap.
        try {
          writeFileSync(join(memory, "memory.swappiness"), "0");
        } catch {
          // Old kernels refused it under a hierarchical parent; the memory limit holds regardless.
        }
      }
      writeFileSync(join(pids, "pids.max"), String(processes));
    } catch (e) {
      new SandboxCgroup(parent.version, made).remove();
      throw e;
    }
    return new SandboxCgroup(parent.version, paths);
  }

  /**
   * The argv prefix that moves the command into the group before it starts anything: a shell
   * writes its own pid to each group's cgroup.procs, then becomes the command (children inherit
   * the groups).
   */
  prefix(): string[] {
    const moves = this.paths.map((_, i) => `echo $$ > "$${i}/cgroup.procs"`).join(" && ");
    return ["/bin/sh", "-c", `${moves} && shift ${this.paths.length - 1} && exec "$@"`, ...this.paths];
  }

  /**
   * How many of the group's processes the kernel has killed for going over its memory budget
   * (`oom_kill` in v2's memory.events, v1's memory.oom_control), or undefined where it does not say.
   */
  oomKills(): number | undefined {
    const file = join(this.paths[0], this.version === 2 ? "memory.events" : "memory.oom_control");
    try {
      const match = /^oom_kill (\d+)$/m.exec(readFileSync(file, "utf8"));
      return match ? Number(match[1]) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Kills what is left in the group (cgroup.kill, Linux 5.14+ and v2; else each pid it lists) and removes it. */
  remove(): void {
    for (const path of this.paths) killAll(path);
    for (const path of this.paths) removeGroup(path);
  }
}

function killAll(path: string): void {
  try {
    if (existsSync(join(path, "cgroup.kill"))) return appendFileSync(join(path, "cgroup.kill"), "1");
    for (const pid of readFileSync(join(path, "cgroup.procs"), "utf8").split("\n").filter(Boolean)) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // gone already
      }
    }
  } catch {
    // the group's processes are also killed by their process group
  }
}

function removeGroup(path: string): void {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      rmdirSync(path);
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY") return;
      // Processes take a moment to leave after SIGKILL.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}
