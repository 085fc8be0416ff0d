import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { inject } from "vitest";
import { ROOT } from "./cli.js";
import { ensureTypes } from "../setup/build.js";
import { treeHash, underLock } from "./once.js";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
/** Packed tarballs by the hash of what they hold: the files that pack them share one `npm pack`. */
const PACKS = join(ROOT, "node_modules", ".cache", "rubricate-packs");

/**
 * `npm pack` of this checkout into `dest`, as a user gets the package: the run's one build of
 * `dist/` (tests/setup/build.ts, so the file must be one of the `built` project's) with its type
 * declarations (built now, once, if no pack of the run has asked for them yet) and the
 * package.json `files`. Returns the tarball's path. The pack (~15 s of a loaded machine, 737
 * files) is made once per content: later calls, in this run (waiting for one under way) or the
 * next, copy it while nothing it holds has changed.
 */
export async function packBuilt(dest: string): Promise<string> {
  const packed = await packedFolder();
  const tarball = packedTarball(packed);
  copyFileSync(tarball, join(dest, basename(tarball)));
  return join(dest, basename(tarball));
}

/**
 * A project `app` (created here, with a package.json of its own) whose node_modules holds the
 * packed build installed as a user installs it: `npm install <tarball>` into an empty project,
 * scripts skipped, offline from npm's cache (the dependencies as their registry served them).
 * The install (~11 s of CPU, 137 packages extracted) is made once per tarball content, like the
 * pack, and each caller gets a hard-linked copy of its node_modules (a copy where links are not
 * possible): what one file's tests write into their project never reaches another's.
 */
export async function installBuilt(app: string, manifest: Record<string, unknown> = { name: "consumer", version: "1.0.0", private: true }): Promise<void> {
  const packed = await packedFolder();
  const installed = join(packed, "installed");
  if (!existsSync(installed)) await installOnce(packed, installed);
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  copyTree(join(installed, "node_modules"), join(app, "node_modules"));
}

/** The folder of this checkout's pack (packed now unless a run already did, or is doing it). */
async function packedFolder(): Promise<string> {
  if (!inject("rubricateDist")) throw new Error("packBuilt and installBuilt need the built package: add the test file to vitest.config.ts's built files");
  // The run's build is JavaScript only; the package a user gets has its type declarations too.
  await ensureTypes();
  const packed = join(PACKS, packedInputsHash());
  if (!existsSync(packed)) await packOnce(packed);
  return packed;
}

const packedTarball = (packed: string) => join(packed, readdirSync(packed).find((f) => f.endsWith(".tgz"))!);

/** Installs the pack in `packed` into `installed` unless another file of the run is doing it (then waits for theirs); renamed into place when whole. */
async function installOnce(packed: string, installed: string): Promise<void> {
  await underLock(`${installed}.lock`, async () => {
    if (existsSync(installed)) return;
    // Only the lock's holder installs, so a staging folder found now is a killed run's: remove it.
    for (const leftover of readdirSync(packed).filter((f) => f.startsWith(".installing-"))) rmSync(join(packed, leftover), { recursive: true, force: true });
    const staging = mkdtempSync(join(packed, ".installing-"));
    writeFileSync(join(staging, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }));
    const install = (mode: string) =>
      promisify(execFile)(NPM, ["install", packedTarball(packed), mode, "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: staging, encoding: "utf8", env: { ...process.env, npm_config_update_notifier: "false" }, maxBuffer: 64 * 1024 * 1024 });
    try {
      // Scripts are skipped: better-sqlite3's native build takes minutes and needs a download.
      await install("--offline").catch(() => install("--prefer-offline"));
      renameSync(staging, installed);
    } catch (e) {
      rmSync(staging, { recursive: true, force: true });
      throw new Error(`npm install of the packed build failed: ${(e as { stderr?: string }).stderr ?? String(e)}`);
    }
  });
}

/** `cp -al`: hard links, so a copy of the ~6,000 installed files costs a fraction of a second; a plain copy where cp cannot link. */
function copyTree(from: string, to: string): void {
  try {
    execFileSync("cp", ["-al", from, to], { stdio: "ignore" });
  } catch {
    rmSync(to, { recursive: true, force: true });
    cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  }
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
