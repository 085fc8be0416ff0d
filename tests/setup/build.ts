/**
 * vitest globalSetup of the test files that run the built package (the CLI as users get it, the
 * packed tarball, the README's `npx rubricate`): builds `dist/` once per `vitest run`, only when it
 * is missing or was built from other sources, and provides its folder as `inject("rubricateDist")`.
 * One build before any file starts replaces a build per file (each 60 s of CPU on two cores), and
 * no test sees `dist/` half-written. The sources' hash of the last build is kept beside the lock,
 * in node_modules/.cache (not in dist/, which is published).
 *
 * `npx tsx tests/setup/build.ts` builds the same way from a shell: .ci/run builds with it, so its
 * `npm test` finds dist/ fresh instead of building it a second time (a plain `npm run build`
 * writes no hash, and the run after it could not tell its dist/ from a stale one).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";

const ROOT = resolve(import.meta.dirname, "..", "..");
const DIST = join(ROOT, "dist");
const STAMP = join(ROOT, "node_modules", ".cache", "rubricate-build.hash");
/** What the build reads besides node_modules. */
const INPUTS = ["src", "package.json", "tsconfig.json", "tsup.config.ts", "scripts/write-schema.mjs"];
/** Held while building, so two `vitest run`s in one checkout build once and never read a half-written dist. */
const LOCK = join(ROOT, "node_modules", ".cache", "rubricate-build.lock");

declare module "vitest" {
  export interface ProvidedContext {
    /** The built package's `dist/` folder, fresh for this run's sources. */
    rubricateDist: string;
  }
}

/** A hash of every build input's path and content. */
export function sourcesHash(root = ROOT): string {
  const hash = createHash("sha256");
  const add = (path: string) => {
    if (statSync(path).isDirectory()) for (const entry of readdirSync(path).sort()) add(join(path, entry));
    else hash.update(`${path.slice(root.length)}\0`).update(readFileSync(path)).update("\0");
  };
  for (const input of INPUTS) if (existsSync(join(root, input))) add(join(root, input));
  return hash.digest("hex");
}

const isFresh = (hash: string) => existsSync(join(DIST, "cli", "main.js")) && existsSync(STAMP) && readFileSync(STAMP, "utf8") === hash;

/** Builds `dist/` unless it is already built from these sources. */
export async function ensureBuilt(): Promise<void> {
  const hash = sourcesHash();
  if (isFresh(hash)) return;
  mkdirSync(join(LOCK, ".."), { recursive: true });
  for (const started = Date.now(); ; ) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // Another run is building; a lock older than 10 minutes is a run that died holding it.
      const held = statSync(LOCK, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 600_000) rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() - started > 900_000) throw new Error(`tests/setup/build.ts: ${LOCK} held for 15 minutes`);
      else await new Promise((wake) => setTimeout(wake, 500));
    }
  }
  try {
    if (isFresh(hash)) return;
    rmSync(STAMP, { force: true });
    await promisify(execFile)("npm", ["run", "build"], { cwd: ROOT, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
    writeFileSync(STAMP, hash);
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

export default async function setup(project: TestProject): Promise<void> {
  await ensureBuilt();
  project.provide("rubricateDist", DIST);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await ensureBuilt();
