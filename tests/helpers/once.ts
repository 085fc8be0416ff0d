/**
 * What lets expensive test set-up (the build of dist/, the packed tarball) run once per content
 * across files and runs: a hash of a file tree, and a lock that one process holds while the others
 * wait. No vitest import: tests/setup/build.ts runs from a shell too.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

/** A hash of every path (relative to `root`) and content under `inputs`; inputs that do not exist are left out. */
export function treeHash(root: string, inputs: readonly string[]): string {
  const hash = createHash("sha256");
  const add = (path: string) => {
    if (statSync(path).isDirectory()) for (const entry of readdirSync(path).sort()) add(join(path, entry));
    else hash.update(`${path.slice(root.length)}\0`).update(readFileSync(path)).update("\0");
  };
  for (const input of inputs) if (existsSync(join(root, input))) add(join(root, input));
  return hash.digest("hex");
}

/**
 * Runs `work` holding `lock` (a folder: mkdir is atomic), after waiting for whoever holds it. A lock
 * older than 10 minutes is a run that died holding it and is taken over; after 15 minutes of waiting
 * this throws rather than hang a test run.
 */
export async function underLock<T>(lock: string, work: () => Promise<T>, pollMs = 250): Promise<T> {
  mkdirSync(join(lock, ".."), { recursive: true });
  for (const started = Date.now(); ; ) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 600_000) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() - started > 900_000) throw new Error(`${lock} held for 15 minutes`);
      else await new Promise((wake) => setTimeout(wake, pollMs));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
