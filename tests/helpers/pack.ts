import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { inject } from "vitest";
import { ROOT } from "./cli.js";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
/** Packed tarballs by the hash of what they hold: the files that pack them share one `npm pack`. */
const PACKS = join(ROOT, "node_modules", ".cache", "rubricate-packs");

/**
 * `npm pack` of this checkout into `dest`, as a user gets the package: the run's one build of
 * `dist/` (tests/setup/build.ts, so the file must be one of the `built` project's) and the
 * package.json `files`. Returns the tarball's path. The pack (~15 s of a loaded machine, 737
 * files) is made once per content: later calls, in this run or the next, copy it while nothing it
 * holds has changed.
 */
export function packBuilt(dest: string): string {
  if (!inject("rubricateDist")) throw new Error("packBuilt needs the built package: add the test file to vitest.config.ts's built files");
  const packed = join(PACKS, packedInputsHash());
  if (!existsSync(packed)) {
    // Packed beside, then renamed into place: a file packing at the same time never sees half a tarball.
    mkdirSync(PACKS, { recursive: true });
    const staging = mkdtempSync(join(PACKS, ".staging-"));
    execFileSync(NPM, ["pack", "--ignore-scripts", "--pack-destination", staging], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_update_notifier: "false" } });
    try {
      renameSync(staging, packed);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another file packed the same content first
    }
    pruneOldPacks();
  }
  const [tarball] = readdirSync(packed).filter((f) => f.endsWith(".tgz"));
  copyFileSync(join(packed, tarball), join(dest, basename(tarball)));
  return join(dest, basename(tarball));
}

/** Packs of other content an hour old or more (a run still copying one is younger): one per build would pile up. */
function pruneOldPacks(): void {
  for (const entry of readdirSync(PACKS)) {
    const path = join(PACKS, entry);
    if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
}

/** A hash of every path and content `npm pack` may put in the tarball: package.json and its `files` (over-inclusive: a stale pack is the one thing this must never give). */
function packedInputsHash(): string {
  const hash = createHash("sha256");
  const add = (path: string) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) for (const entry of readdirSync(path).sort()) add(join(path, entry));
    else hash.update(`${path.slice(ROOT.length)}\0`).update(readFileSync(path)).update("\0");
  };
  const { files = [] } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { files?: string[] };
  for (const input of ["package.json", ...files]) add(join(ROOT, input));
  return hash.digest("hex");
}
