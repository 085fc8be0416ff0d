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
import { ROOT } from "./helpers/cli.js";

interface LockedPackage {
  version?: string;
  dev?: boolean;
  engines?: { node?: string } | string[];
}

/**
 * Dependencies whose range is narrower than ours on purpose, and why. Each must still be narrower
 * (the test says when one is no longer needed).
 */
const NARROWER_ON_PURPOSE: Record<string, string> = {
  // Its list names the Node majors it ships prebuilt binaries for (20.x, 22.x–26.x); on a later
  // major, its install builds the addon from source with node-gyp instead.
  "better-sqlite3": "prebuilt binaries for the majors it lists; later majors build from source",
};

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, LockedPackage> };
const ours = manifest.engines.node;

/** Every package installed with rubricate (not a dev dependency) that names a Node range, by name. */
function installedRanges(): Map<string, { version: string; node: string }> {
  const out = new Map<string, { version: string; node: string }>();
  for (const [path, pkg] of Object.entries(lock.packages)) {
    if (path === "" || pkg.dev) continue;
    const node = Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
    if (node) out.set(path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length), { version: pkg.version ?? "?", node });
  }
  return out;
}

/** The installed packages (not excused) that do not run on every Node version `range` allows, as "name@version needs …". */
function narrowerThan(range: string, ranges: Map<string, { version: string; node: string }>): string[] {
  return [...ranges].filter(([name, { node }]) => !(name in NARROWER_ON_PURPOSE) && !semver.subset(range, node)).map(([name, { version, node }]) => `${name}@${version} needs ${node}`);
}

describe("package.json engines", () => {
  it("the lockfile records the same range as package.json, and it is a valid range", () => {
    expect(lock.packages[""].engines).toEqual({ node: ours });
    expect(semver.validRange(ours)).not.toBeNull();
  });

  it("every package installed with rubricate runs on every Node version our range allows", () => {
    expect(narrowerThan(ours, installedRanges()), `our engines range is ${ours}`).toEqual([]);
  });

  it("the check names a dependency that refuses part of the range (`>=20` let Node 20.10 meet one needing 20.19)", () => {
    const ranges = new Map([
      ["html-to-text", { version: "10.0.1", node: ">=20.19.0" }],
      ["semver", { version: "7.8.6", node: ">=10" }],
      ["better-sqlite3", { version: "12.11.1", node: "20.x || 22.x" }],
    ]);
    expect(narrowerThan(">=20", ranges)).toEqual(["html-to-text@10.0.1 needs >=20.19.0"]);
    expect(narrowerThan("^20.19.0 || >=22.9.0", ranges)).toEqual([]);
  });

  it("a dependency listed as narrower on purpose still is, and is still installed", () => {
    const ranges = installedRanges();
    for (const name of Object.keys(NARROWER_ON_PURPOSE)) {
      expect(ranges.has(name), `${name} is no longer installed: drop it from NARROWER_ON_PURPOSE`).toBe(true);
      expect(semver.subset(ours, ranges.get(name)!.node), `${name} now takes all of ${ours}: drop it from NARROWER_ON_PURPOSE`).toBe(false);
    }
  });
});
