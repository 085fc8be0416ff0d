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
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";
import { treeHash, underLock } from "../helpers/once.js";

const ROOT = resolve(import.meta.dirname, "..", "..");
const DIST = join(ROOT, "dist");
const STAMP = join(ROOT, "node_modules", ".cache", "rubricate-build.hash");
/** What the build reads besides node_modules. */
const INPUTS = ["src", "package.json", "tsconfig.json", "tsup.config.ts", "scripts/write-schema.mjs", "scripts/write-third-party-notices.mjs"];
/** Held while building, so two `vitest run`s in one checkout build once and never read a half-written dist. */
const LOCK = join(ROOT, "node_modules", ".cache", "rubricate-build.lock");

declare module "vitest" {
  export interface ProvidedContext {
    /** The built package's `dist/` folder, fresh for this run's sources. */
    rubricateDist: string;
  }
}

/** A hash of every build input's path and content. */
export const sourcesHash = (root = ROOT): string => treeHash(root, INPUTS);

const isFresh = (hash: string) => existsSync(join(DIST, "cli", "main.js")) && existsSync(STAMP) && readFileSync(STAMP, "utf8") === hash;

/** Builds `dist/` unless it is already built from these sources. */
export async function ensureBuilt(): Promise<void> {
  const hash = sourcesHash();
  if (isFresh(hash)) return;
  await underLock(
    LOCK,
    async () => {
      if (isFresh(hash)) return;
      rmSync(STAMP, { force: true });
      await promisify(execFile)("npm", ["run", "build"], { cwd: ROOT, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
      writeFileSync(STAMP, hash);
    },
    500,
  );
}

export default async function setup(project: TestProject): Promise<void> {
  await ensureBuilt();
  project.provide("rubricateDist", DIST);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await ensureBuilt();
