/**
 * vitest globalSetup of the test files that run the built package (the CLI as users get it, the
 * packed tarball, the README's `npx rubricate`): builds `dist/`'s JavaScript once per `vitest run`,
 * only when it is missing or was built from other sources, and provides its folder as
 * `inject("rubricateDist")`. One build before any file starts replaces a build per file, and no
 * test sees `dist/` half-written. The sources' hash of the last build is kept beside the lock, in
 * node_modules/.cache (not in dist/, which is published).
 *
 * The type declarations are built apart, by `ensureTypes`, when a test first packs the package
 * (tests/helpers/pack.ts): only the tarball's tests read them, and they are most of the build's
 * CPU (~15 s against 3 s for the JavaScript on this 2-core machine, scripts/build-types.mjs). Built
 * on demand, they overlap the files that need no package. The two halves together are
 * `npm run build`'s dist/.
 *
 * `npx tsx tests/setup/build.ts` builds both the same way from a shell: .ci/run builds with it, so
 * its `npm test` finds dist/ fresh instead of building it a second time (a plain `npm run build`
 * writes no hash, and the run after it could not tell its dist/ from a stale one).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { TestProject } from "vitest/node";
import { treeHash, underLock } from "../helpers/once.js";

const ROOT = resolve(import.meta.dirname, "..", "..");
const DIST = join(ROOT, "dist");
const CACHE = join(ROOT, "node_modules", ".cache");
/** The sources' hash of dist/'s JavaScript, and of its type declarations. */
const STAMP = join(CACHE, "rubricate-build.hash");
const TYPES_STAMP = join(CACHE, "rubricate-types.hash");
/** What the build reads besides node_modules. */
const INPUTS = ["src", "package.json", "tsconfig.json", "tsconfig.types.json", "tsup.config.ts", "scripts/build-types.mjs", "scripts/write-schema.mjs", "scripts/write-third-party-notices.mjs"];
/** Held while building, so two `vitest run`s in one checkout build once and never read a half-written dist. */
const LOCK = join(CACHE, "rubricate-build.lock");

declare module "vitest" {
  export interface ProvidedContext {
    /** The built package's `dist/` folder, fresh for this run's sources. */
    rubricateDist: string;
  }
}

/** A hash of every build input's path and content. */
export const sourcesHash = (root = ROOT): string => treeHash(root, INPUTS);

const stampSays = (stamp: string, hash: string) => existsSync(stamp) && readFileSync(stamp, "utf8") === hash;
const isFresh = (hash: string) => existsSync(join(DIST, "cli", "main.js")) && stampSays(STAMP, hash);
const typesFresh = (hash: string) => isFresh(hash) && existsSync(join(DIST, "index.d.ts")) && stampSays(TYPES_STAMP, hash);

/** Runs tsup (its own `bin`, without an npx start): the JavaScript half of the build. */
function tsup(): Promise<void> {
  const manifest = join(ROOT, "node_modules", "tsup", "package.json");
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> };
  return run(process.execPath, [join(dirname(manifest), bin.tsup)]);
}

/** Runs a build step in the project's folder, rejecting with its output when it fails. */
async function run(command: string, args: string[]): Promise<void> {
  await promisify(execFile)(command, args, { cwd: ROOT, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
}

/** Runs `build` under the build lock unless `done()`, asked again once the lock is ours (another run may have built meanwhile). */
async function buildOnce(done: () => boolean, build: () => Promise<void>): Promise<void> {
  if (done()) return;
  await underLock(LOCK, async () => (done() ? undefined : build()), 500);
}

/** Builds `dist/`'s JavaScript (and what `npm run build` writes after it) unless it is already built from these sources. */
export async function ensureBuilt(): Promise<void> {
  const hash = sourcesHash();
  await buildOnce(
    () => isFresh(hash),
    async () => {
      // tsup cleans dist/ first: the declarations of the last build go with it.
      rmSync(STAMP, { force: true });
      rmSync(TYPES_STAMP, { force: true });
      await tsup();
      await run(process.execPath, [join(ROOT, "scripts", "write-schema.mjs")]);
      await run(process.execPath, [join(ROOT, "scripts", "write-third-party-notices.mjs")]);
      writeFileSync(STAMP, hash);
    },
  );
}

/** Adds the type declarations to `dist/` unless they are already built from these sources (the JavaScript first, if need be). */
export async function ensureTypes(): Promise<void> {
  await ensureBuilt();
  const hash = sourcesHash();
  await buildOnce(
    () => typesFresh(hash),
    async () => {
      if (!isFresh(hash)) throw new Error("dist/ was rebuilt from other sources while its type declarations were asked for: run the tests again");
      await run(process.execPath, [join(ROOT, "scripts", "build-types.mjs")]);
      writeFileSync(TYPES_STAMP, hash);
    },
  );
}

export default async function setup(project: TestProject): Promise<void> {
  await ensureBuilt();
  project.provide("rubricateDist", DIST);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await ensureTypes();
