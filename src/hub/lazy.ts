/**
 * The registry libraries, loaded on first use rather than with `import "rubricate"`: the root
 * exports the hub's functions, but only a registry spec or a package check needs these two
 * (npm-package-arg brings hosted-git-info and friends).
 */
import { createRequire } from "node:module";
import type Npa from "npm-package-arg";
import type Semver from "semver";

// Made on first use too: the first `createRequire` of a process sets up the CommonJS loader, which an
// import that never resolves a registry spec does not need (no gain was measurable alone; BENCHMARKS.md).
let requireHere: NodeJS.Require | undefined;
const load = (id: string): unknown => (requireHere ??= createRequire(import.meta.url))(id);

/** npm-package-arg: classifies a package spec the way npm does. */
export const npmPackageArg = (): typeof Npa => load("npm-package-arg") as typeof Npa;

/** semver: versions and ranges. */
export const semverLib = (): typeof Semver => load("semver") as typeof Semver;
