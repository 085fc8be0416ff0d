import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { inject } from "vitest";
import { ROOT } from "./cli.js";
import { treeHash, underLock } from "./once.js";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
/** Packed tarballs by the hash of what they hold: the files that pack them share one `npm pack`. */
const PACKS = join(ROOT, "node_modules", ".cache", "rubricate-packs");

/**
 * `npm pack` of this checkout into `dest`, as a user gets the package: the run's one build of
 * `dist/` (tests/setup/build.ts, so the file must be one of the `built` project's) and the
 * package.json `files`. Returns the tarball's path. The pack (~15 s of a loaded machine, 737
 * files) is made once per content: later calls, in this run (waiting for one under way) or the
 * next, copy it while nothing it holds has changed.
 */
export async function packBuilt(dest: string): Promise<string> {
  if (!inject("rubricateDist")) throw new Error("packBuilt needs the built package: add the test file to vitest.config.ts's built files");
  const packed = join(PACKS, packedInputsHash());
  if (!existsSync(packed)) await packOnce(packed);
  const [tarball] = readdirSync(packed).filter((f) => f.endsWith(".tgz"));
  copyFileSync(join(packed, tarball), join(dest, basename(tarball)));
  return join(dest, basename(tarball));
}

/**
 * Packs into `packed` unless another file of the run is doing it (the lock): then waits for its
 * pack instead of making a second. Packed beside and renamed into place, so no reader ever sees
 * half a tarball; a lock older than 10 minutes is a run that died holding it.
 */
async function packOnce(packed: string): Promise<void> {
  mkdirSync(PACKS, { recursive: true });
  await underLock(`${packed}.lock`, async () => {
    if (existsSync(packed)) return;
    const staging = mkdtempSync(join(PACKS, ".staging-"));
    await promisify(execFile)(NPM, ["pack", "--ignore-scripts", "--pack-destination", staging], { cwd: ROOT, encoding: "utf8", env: { ...process.env, npm_config_update_notifier: "false" }, maxBuffer: 64 * 1024 * 1024 });
    renameSync(staging, packed);
    pruneOldPacks();
  });
}

/** Packs of other content an hour old or more (a run still copying one is younger): one per build would pile up. */
function pruneOldPacks(): void {
  for (const entry of readdirSync(PACKS)) {
    const path = join(PACKS, entry);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat && Date.now() - stat.mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
}

/** A hash of every path and content `npm pack` may put in the tarball: package.json and its `files` (over-inclusive: a stale pack is the one thing this must never give). */
function packedInputsHash(): string {
  const { files = [] } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { files?: string[] };
  return treeHash(ROOT, ["package.json", ...files]);
}
