/**
 * The files `npm pack` would put in a package's tarball, listed in this process by npm-packlist
 * (the library `npm pack` itself uses) instead of a `npm pack --dry-run` child: an npm start costs
 * ~0.3–0.5 s of CPU, and `env check` and `env push` each asked once.
 */
import { createRequire } from "node:module";
import { basename, join, posix } from "node:path";
import { RubricateError } from "../errors.js";
import { npmError, runNpm } from "./npm.js";
import { readPackageJson } from "./package.js";

/** The part of an Arborist node npm-packlist reads for a package without bundled dependencies. */
interface PackTree {
  path: string;
  package: Record<string, unknown>;
  isProjectRoot: true;
  edgesOut: Map<string, unknown>;
}
type Packlist = (tree: PackTree, options?: { path?: string }) => Promise<string[]>;

let packlist: Packlist | undefined;
// CommonJS, loaded on first use: only `env check` and `env push` need it.
const loadPacklist = (): Packlist => (packlist ??= createRequire(import.meta.url)("npm-packlist") as Packlist);

/**
 * The paths (relative, `/`-separated, unsorted) that `npm pack` would ship from `dir`. Packages
 * whose list npm builds from more than package.json's `files`, `main`, `browser` and `bin` and the
 * ignore files (bundled dependencies, workspaces, `directories.bin`) ask npm itself.
 * @example await packedFiles("times-env") // ["package.json", "env.yaml", "tasks.jsonl", …]
 */
export async function packedFiles(dir: string): Promise<string[]> {
  const pkg = readPackageJson(dir);
  if (!pkg) throw new RubricateError("PACKAGE_INVALID", `${dir} has no package.json`);
  if (needsNpm(pkg)) return npmPackDryRun(dir);
  return loadPacklist()({ path: dir, package: { ...pkg, bin: normalizeBin(pkg) }, isProjectRoot: true, edgesOut: new Map() }, { path: dir });
}

/** What npm-packlist needs Arborist's tree for, or npm's own package.json normalisation beyond `bin`. */
function needsNpm(pkg: Record<string, unknown>): boolean {
  const bundled = pkg.bundleDependencies ?? pkg.bundledDependencies;
  const directories = pkg.directories as { bin?: unknown } | undefined;
  return Boolean((Array.isArray(bundled) ? bundled.length : bundled) || pkg.workspaces || (directories?.bin && !pkg.bin));
}

/**
 * `bin` as npm reads it before packing (@npmcli/package-json's `bin` step): a string is the
 * package's one command, targets are made relative and `/`-separated; npm-packlist keeps each
 * target whatever the ignore rules say, so a target spelled `./cli.js` must become `cli.js`.
 */
function normalizeBin(pkg: Record<string, unknown>): Record<string, string> | undefined {
  const raw = pkg.bin;
  const entries: [string, unknown][] =
    typeof raw === "string" && typeof pkg.name === "string" ? [[pkg.name, raw]] : raw && typeof raw === "object" && !Array.isArray(raw) ? Object.entries(raw) : [];
  const bin: Record<string, string> = {};
  for (const [name, target] of entries) {
    if (typeof target !== "string") continue;
    const secured = posix.join(".", posix.join("/", target.replace(/\\/g, "/")));
    const command = basename(name.replace(/\\/g, "/"));
    if (command && secured && !secured.startsWith("./") && secured !== ".") bin[command] = secured;
  }
  return Object.keys(bin).length ? bin : undefined;
}

/** The list from a `npm pack --dry-run --json` child, for the packages `packedFiles` leaves to npm. */
async function npmPackDryRun(dir: string): Promise<string[]> {
  const result = await runNpm(["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: dir });
  if (result.code !== 0) throw new RubricateError("PACKAGE_INVALID", `${dir}: npm pack --dry-run failed (${npmError(result).summary || `exit ${result.code}`})`);
  try {
    return (JSON.parse(result.stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
  } catch {
    throw new RubricateError("PACKAGE_INVALID", `${dir}: could not read npm pack --dry-run --json`);
  }
}
