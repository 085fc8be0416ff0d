/**
 * Temporary folders a process owns, named with its pid (`rubricate-<purpose>-<pid>-XXXXXX`): a run
 * removes its own when it ends, and a run that was killed first (SIGKILL, out of memory, a closed
 * terminal) runs no cleanup. Its folder can be large (a batch run's deferred requests, an external
 * sort's runs: gigabytes for a million samples), so the next run of the same purpose removes the
 * folders of processes that have ended.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const prefixOf = (purpose: string) => `rubricate-${purpose}-`;

/**
 * True while any process has `pid`, another user's too (EPERM). A pid reused by another program
 * reads as alive, so its folder waits for a later sweep: never the reverse, a live run's folder
 * taken. (A process in another pid namespace sharing this temp folder cannot be seen: the same
 * holds for the sandboxes' sweep.)
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Makes a fresh folder for `purpose` in `root` owned by this process, after removing those whose process has ended. */
export function scratchDir(purpose: string, root: string = tmpdir()): string {
  removeScratchOfEndedProcesses(purpose, root);
  return mkdtempSync(join(root, `${prefixOf(purpose)}${process.pid}-`));
}

/** The pid a scratch folder's name carries, or undefined for a name of another shape. */
function ownerOf(name: string, prefix: string): number | undefined {
  const pid = /^(\d+)-/.exec(name.slice(prefix.length))?.[1];
  return pid === undefined ? undefined : Number(pid);
}

/**
 * Removes the `purpose` folders in `root` whose process has ended; returns how many. A folder this
 * user cannot remove (another user's) is left to its owner.
 */
export function removeScratchOfEndedProcesses(purpose: string, root: string = tmpdir()): number {
  return removeScratchWhere(purpose, root, (pid) => pid !== process.pid && !processAlive(pid));
}

/**
 * Removes this process's own `purpose` folders. Only after a run that died inside this process (a
 * batch worker thread out of memory, which runs no cleanup): a live run's folder would go too.
 */
export function removeScratchOfThisProcess(purpose: string, root: string = tmpdir()): number {
  return removeScratchWhere(purpose, root, (pid) => pid === process.pid);
}

function removeScratchWhere(purpose: string, root: string, remove: (pid: number) => boolean): number {
  const prefix = prefixOf(purpose);
  let names: string[];
  try {
    names = readdirSync(root).filter((n) => n.startsWith(prefix));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const pid = ownerOf(name, prefix);
    if (pid === undefined || pid <= 0 || !remove(pid)) continue;
    try {
      rmSync(join(root, name), { recursive: true, force: true });
      removed++;
    } catch {
      // Another user's folder (EACCES, EPERM): theirs to remove.
    }
  }
  return removed;
}
