/**
 * A memory and process budget for a whole sandbox: a cgroup v2 group per sandbox, where the
 * machine lets us make one. RLIMIT_AS bounds one process; a sandbox of many processes could
 * otherwise hold `memory × processes`. Needs cgroup v2 with the memory and pids controllers
 * delegated to a group we may write: the group rubricate runs in when it is the root of its
 * cgroup namespace (a container) or when controllers can be enabled below it, or the folder named
 * by RUBRICATE_CGROUP (e.g. a systemd `Delegate=yes` slice). Elsewhere `cgroupParent()` says why
 * not, and the sandbox falls back to per-process limits plus a process cap (types.ts).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Where cgroup v2 is mounted on the systems we support. */
const CGROUP_ROOT = "/sys/fs/cgroup";

/** The cgroup under which sandboxes get their groups, or why there is none. */
export type CgroupParent = { path: string } | { unavailable: string };

const controllersOf = (dir: string, file: string): string[] => {
  try {
    return readFileSync(join(dir, file), "utf8").trim().split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
};

/**
 * Finds (and prepares) the parent group: `RUBRICATE_CGROUP`, else this process's own cgroup v2
 * group. Memory and pids must be enabled for its children (`cgroup.subtree_control`), which a
 * group holding processes allows only at the root of its hierarchy (the "no internal processes"
 * rule): so a non-root group must be delegated through RUBRICATE_CGROUP.
 */
export function findCgroupParent(env: NodeJS.ProcessEnv = process.env, root = CGROUP_ROOT, selfCgroup = () => readFileSync("/proc/self/cgroup", "utf8")): CgroupParent {
  let path = env.RUBRICATE_CGROUP;
  if (!path) {
    if (!existsSync(join(root, "cgroup.controllers"))) return { unavailable: `cgroup v2 is not mounted at ${root} (this machine has cgroup v1 or a hybrid layout)` };
    let own: string | undefined;
    try {
      own = selfCgroup().split("\n").find((l) => l.startsWith("0::"))?.slice(3).trim();
    } catch {
      own = undefined;
    }
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
  return { path };
}

let parent: CgroupParent | undefined;
/** The parent group of this process's sandboxes (found once). */
export function cgroupParent(): CgroupParent {
  parent ??= findCgroupParent();
  return parent;
}

/** One sandbox's group: its limits, the command prefix that puts a process in it, and removal. */
export class SandboxCgroup {
  constructor(readonly path: string) {}

  /** Makes the group with a memory budget (no swap) and a process cap for everything in it. */
  static create(parentPath: string, name: string, memoryBytes: number, processes: number): SandboxCgroup {
    const path = join(parentPath, name);
    mkdirSync(path);
    const group = new SandboxCgroup(path);
    try {
      writeFileSync(join(path, "memory.max"), String(memoryBytes));
      if (existsSync(join(path, "memory.swap.max"))) writeFileSync(join(path, "memory.swap.max"), "0");
      writeFileSync(join(path, "pids.max"), String(processes));
    } catch (e) {
      group.remove();
      throw e;
    }
    return group;
  }

  /**
   * The argv prefix that moves the command into the group before it starts anything: a shell
   * writes its own pid to cgroup.procs, then becomes the command (children inherit the group).
   */
  prefix(): string[] {
    return ["/bin/sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', this.path];
  }

  /** Kills what is left in the group (cgroup.kill, Linux 5.14+) and removes it. */
  remove(): void {
    try {
      if (existsSync(join(this.path, "cgroup.kill"))) appendFileSync(join(this.path, "cgroup.kill"), "1");
    } catch {
      // the group's processes are also killed by their process group
    }
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        rmdirSync(this.path);
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
}
