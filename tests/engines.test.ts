/**
 * The Node versions the package says it runs on (package.json `engines`) are ones every package it
 * installs with says it runs on: `npm i rubricate` on a Node our range allows must not meet a
 * dependency that refuses it (npm's EBADENGINE, or a runtime that lacks what the dependency uses).
 * Read from package-lock.json, which records each package's `engines` and marks the dev-only ones.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { BUNDLED } from "../scripts/bundled.js";
import { ROOT } from "./helpers/cli.js";

interface LockedPackage {
  version?: string;
  dev?: boolean;
  dependencies?: Record<string, string>;
  engines?: { node?: string } | string[];
}

/**
 * Dependencies whose range stops at the newest Node major they have tested, and why that is not a
 * reason for ours to stop there. For them only the majors up to their newest are checked; each
 * must still stop short of ours (the test says when one no longer does).
 */
const NEWEST_MAJOR_ONLY: Record<string, string> = {
  // Its list names the Node majors it ships prebuilt binaries for (20.x, 22.x–26.x); on a later
  // major, its install builds the addon from source with node-gyp instead.
  "better-sqlite3": "prebuilt binaries for the majors it lists; later majors build from source",
};

/** The newest Node major a range accepts (below 100). */
function newestMajor(range: string): number {
  let newest = 0;
  for (let major = 0; major < 100; major++) if (semver.intersects(range, `${major}.x`)) newest = major;
  return newest;
}

/**
 * Whether every Node version `ours` allows, up to major `upTo`, is one `theirs` accepts. Checked
 * one major at a time: `semver.subset` compares each part of a range with one part of the other,
 * so `>=22.9.0` is not found inside `22.x || 23.x || …` as a whole.
 */
function acceptsAll(theirs: string, ours: string, upTo = 99): boolean {
  for (let major = 0; major <= upTo; major++) {
    const parts = ours.split("||").map((part) => part.trim()).filter((part) => semver.intersects(part, `${major}.x`));
    const inMajor = parts.map((part) => `${part} >=${major}.0.0 <${major + 1}.0.0-0`).join(" || ");
    if (parts.length > 0 && !semver.subset(inMajor, theirs)) return false;
  }
  return true;
}

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, LockedPackage> };
const ours = manifest.engines.node;

/** The lockfile path a package at `from` gets for `name`, as Node resolves it: its own node_modules, then each one up its path. */
function resolveIn(from: string, name: string): string | undefined {
  // "node_modules/a/node_modules/b" looks in b's node_modules, then a's, then the project's.
  const parts = from ? from.split("/node_modules/") : [];
  for (let depth = parts.length; depth >= 0; depth--) {
    const dir = parts.slice(0, depth).join("/node_modules/");
    const path = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[path]) return path;
  }
  return undefined;
}

/** The lockfile paths of the packages bundled into dist/ (scripts/bundled.ts) and of everything they depend on. */
function bundledPaths(): Set<string> {
  const seen = new Set<string>();
  const visit = (path: string | undefined) => {
    if (!path || seen.has(path)) return;
    seen.add(path);
    for (const name of Object.keys(lock.packages[path].dependencies ?? {})) visit(resolveIn(path, name));
  };
  for (const name of BUNDLED) visit(resolveIn("", name));
  return seen;
}

/**
 * Every package whose code runs with rubricate's and that names a Node range, by name: those
 * installed with it (not a dev dependency) and those bundled into dist/, which ship as devDependencies.
 */
function installedRanges(): Map<string, { version: string; node: string }> {
  const out = new Map<string, { version: string; node: string }>();
  const bundled = bundledPaths();
  for (const [path, pkg] of Object.entries(lock.packages)) {
    if (path === "" || (pkg.dev && !bundled.has(path))) continue;
    const node = Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
    if (node) out.set(path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length), { version: pkg.version ?? "?", node });
  }
  return out;
}

/** The installed packages that do not run on every Node version `range` allows, as "name@version needs …". */
function narrowerThan(range: string, ranges: Map<string, { version: string; node: string }>): string[] {
  return [...ranges]
    .filter(([name, { node }]) => !acceptsAll(node, range, name in NEWEST_MAJOR_ONLY ? newestMajor(node) : undefined))
    .map(([name, { version, node }]) => `${name}@${version} needs ${node}`);
}

describe("package.json engines", () => {
  it("the lockfile records the same range as package.json, and it is a valid range", () => {
    expect(lock.packages[""].engines).toEqual({ node: ours });
    expect(semver.validRange(ours)).not.toBeNull();
  });

  it("the packages bundled into dist/ are found in the lockfile, with what they depend on", () => {
    const paths = bundledPaths();
    for (const name of BUNDLED) expect(paths.has(`node_modules/${name}`), name).toBe(true);
    // What they depend on comes with them, to any depth: @anthropic-ai/sdk's json-schema-to-ts and its ts-algebra.
    expect(paths.has("node_modules/json-schema-to-ts")).toBe(true);
    expect(paths.has("node_modules/ts-algebra")).toBe(true);
    // A bundled package's range is checked though the lockfile marks it dev: commander 14 names one.
    expect(installedRanges().get("commander")).toMatchObject({ node: expect.any(String) });
  });

  it("every package installed with rubricate or bundled into it runs on every Node version our range allows", () => {
    expect(narrowerThan(ours, installedRanges()), `our engines range is ${ours}`).toEqual([]);
  });

  it("the check names a dependency that refuses part of the range (`>=20` let Node 20.10 meet one needing 20.19)", () => {
    const ranges = new Map([
      ["html-to-text", { version: "10.0.1", node: ">=20.19.0" }],
      ["semver", { version: "7.8.6", node: ">=10" }],
      ["better-sqlite3", { version: "12.11.1", node: "20.x || 22.x" }],
    ]);
    // `>=20` takes 21 too, which better-sqlite3's list skips below its newest major.
    expect(narrowerThan(">=20", ranges)).toEqual(["html-to-text@10.0.1 needs >=20.19.0", "better-sqlite3@12.11.1 needs 20.x || 22.x"]);
    expect(narrowerThan("^20.19.0 || >=22.9.0", ranges)).toEqual([]);
    // Past its newest major a listed package is excused; below it, never.
    expect(narrowerThan("^20.19.0 || >=22.9.0", new Map([["better-sqlite3", { version: "13.0.0", node: "22.x || 24.x" }]]))).toEqual(["better-sqlite3@13.0.0 needs 22.x || 24.x"]);
  });

  it("a dependency excused past its newest major still stops short of our range, and is still installed", () => {
    const ranges = installedRanges();
    for (const name of Object.keys(NEWEST_MAJOR_ONLY)) {
      expect(ranges.has(name), `${name} is no longer installed: drop it from NEWEST_MAJOR_ONLY`).toBe(true);
      expect(acceptsAll(ranges.get(name)!.node, ours), `${name} now takes all of ${ours}: drop it from NEWEST_MAJOR_ONLY`).toBe(false);
    }
  });
});
