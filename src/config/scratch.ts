/**
 * Temporary folders a process owns, named with its pid and pid namespace
 * (`rubricate-<purpose>-<pid>-<namespace>-XXXXXX`): a run
 * removes its own when it ends, and a run that was killed first (SIGKILL, out of memory, a closed
 * terminal) runs no cleanup. Its folder can be large (a batch run's deferred requests, an external
 * sort's runs: gigabytes for a million samples), so the next run of the same purpose removes the
 * folders of processes that have ended.
 */
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const prefixOf = (purpose: string) => `rubricate-${purpose}-`;

/**
 * True while any process has `pid`, another user's too (EPERM). A pid reused by another program
 * reads as alive, so its folder waits for a later sweep: never the reverse, a live run's folder
 * taken. A pid means something only in its pid namespace (see `scratchDir`).
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * This process's pid namespace (the number in /proc/self/ns/pid's link), "0" where the system has
 * none to read. Containers that share a temp folder but not their pids (each its own namespace)
 * would otherwise read each other's live runs as ended.
 */
export function pidNamespace(): string {
  // A process never leaves its pid namespace: read once.
  return (namespaceOfThisProcess ??= readPidNamespace());
}
let namespaceOfThisProcess: string | undefined;

function readPidNamespace(): string {
  try {
    return /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? "0";
  } catch {
    return "0";
  }
}

/** Makes a fresh folder for `purpose` in `root` owned by this process, after removing those whose process has ended. */
export function scratchDir(purpose: string, root: string = tmpdir()): string {
  removeScratchOfEndedProcesses(purpose, root);
  return mkdtempSync(join(root, `${prefixOf(purpose)}${process.pid}-${pidNamespace()}-`));
}

/**
 * The pid a scratch folder's name carries, and its pid namespace (undefined in names of versions
 * before it was written); undefined for a name of another shape.
 */
function ownerOf(name: string, prefix: string): { pid: number; namespace?: string } | undefined {
  const owner = /^(\d+)-(?:(\d+)-)?/.exec(name.slice(prefix.length));
  return owner ? { pid: Number(owner[1]), namespace: owner[2] } : undefined;
}

/**
 * Removes the `purpose` folders in `root` whose process has ended; returns how many. Only folders of
 * this pid namespace are judged (an older name without one is left); a folder this user cannot
 * remove (another user's) is left to its owner.
 */
export function removeScratchOfEndedProcesses(purpose: string, root: string = tmpdir()): number {
  const namespace = pidNamespace();
  return removeScratchWhere(purpose, root, (owner) => owner.namespace === namespace && owner.pid !== process.pid && !processAlive(owner.pid));
}

/**
 * Removes this process's own `purpose` folders. Only after a run that died inside this process (a
 * batch worker thread out of memory, which runs no cleanup): a live run's folder would go too.
 */
export function removeScratchOfThisProcess(purpose: string, root: string = tmpdir()): number {
  const namespace = pidNamespace();
  return removeScratchWhere(purpose, root, (owner) => owner.pid === process.pid && (owner.namespace === undefined || owner.namespace === namespace));
}

function removeScratchWhere(purpose: string, root: string, remove: (owner: { pid: number; namespace?: string }) => boolean): number {
  const prefix = prefixOf(purpose);
  let names: string[];
  try {
    names = readdirSync(root).filter((n) => n.startsWith(prefix));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const owner = ownerOf(name, prefix);
    if (owner === undefined || owner.pid <= 0 || !remove(owner)) continue;
    try {
      rmSync(join(root, name), { recursive: true, force: true });
      removed++;
    } catch {
      // Another user's folder (EACCES, EPERM): theirs to remove.
    }
  }
  return removed;
}
