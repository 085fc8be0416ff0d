import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RubricateError } from "../errors.js";
import { parseJsonText } from "../text/json.js";
import { npmPackageArg } from "./lazy.js";
import { installFailure, projectNpmrc, runNpm } from "./npm.js";
import { linkRubricatePeer, readEnvManifest, type EnvPackage } from "./package.js";

/** An environment package installed in the environments folder. */
export interface InstalledEnv extends EnvPackage {
  /** The package's own folder (…/node_modules/<name>). */
  dir: string;
  /** The install folder holding node_modules and npm's lockfile. */
  root: string;
}

/** Where `rubricate eval <package>` installs environments: `$RUBRICATE_ENVS_DIR`, else `.rubricate/envs` in the working folder. */
export function defaultEnvsDir(cwd = process.cwd()): string {
  return process.env.RUBRICATE_ENVS_DIR || join(cwd, ".rubricate", "envs");
}

/** The folder one installed (name, version) lives in: `@acme+wordle-env@1.1.0`, plus a hash of where it came from for git and tarballs. */
export function installFolderName(name: string, version: string, resolved?: string): string {
  const base = `${name.replace("/", "+")}@${version}`;
  return resolved ? `${base}+${createHash("sha256").update(resolved).digest("hex").slice(0, 10)}` : base;
}

/** The installed copy of `name@version` from a registry, if the environments folder has it (no network needed). */
export function findInstalled(envsDir: string, name: string, version: string): InstalledEnv | undefined {
  const root = join(envsDir, installFolderName(name, version));
  return existsSync(join(root, "node_modules", name, "package.json")) ? describeInstall(root, name) : undefined;
}

/** Every installed version of `name` (registry installs only), for error messages and range lookups. */
export function installedVersions(envsDir: string, name: string): string[] {
  if (!existsSync(envsDir)) return [];
  const prefix = `${name.replace("/", "+")}@`;
  return readdirSync(envsDir)
    .filter((d) => d.startsWith(prefix) && !d.slice(prefix.length).includes("+"))
    .map((d) => d.slice(prefix.length));
}

/**
 * Installs `spec` with npm into a staging folder of `envsDir`, checks it is an environment
 * package, then renames the folder into place: on any failure (unknown package, missing version,
 * registry down, no `rubricate` field) the staging folder is removed and nothing is left behind.
 * The project's .npmrc (registry, scopes, tokens from the environment) applies; install scripts
 * do not run. The `rubricate` peer dependency is the running rubricate, linked in, not a second copy.
 */
export async function installEnv(spec: string, options: { envsDir: string; cwd: string; signal?: AbortSignal }): Promise<InstalledEnv> {
  mkdirSync(options.envsDir, { recursive: true });
  const staging = mkdtempSync(join(options.envsDir, ".staging-"));
  try {
    writeFileSync(join(staging, "package.json"), `${JSON.stringify({ name: "rubricate-env-install", private: true, description: "An environment installed by rubricate" }, null, 2)}\n`);
    // The project's .npmrc applies as if npm ran in the project: linked, never copied (it may hold a token).
    const npmrc = projectNpmrc(options.cwd);
    if (npmrc) symlinkSync(npmrc, join(staging, ".npmrc"));
    const result = await runNpm(["install", spec, "--json", "--save-exact", "--ignore-scripts", "--legacy-peer-deps", "--no-audit", "--no-fund"], { cwd: staging, signal: options.signal });
    if (npmrc) rmSync(join(staging, ".npmrc"));
    if (result.code !== 0) throw installFailure(spec, result);
    const deps = (JSON.parse(readFileSync(join(staging, "package.json"), "utf8")) as { dependencies?: Record<string, string> }).dependencies ?? {};
    const name = Object.keys(deps)[0];
    if (!name) throw new RubricateError("PACKAGE_INVALID", `${spec}: npm installed nothing`);
    const info = describeInstall(staging, name);
    readEnvManifest(info.dir, spec);
    // By the spec, not the lockfile's `resolved`: a registry's tarball URL is http(s) too, and a
    // folder named with its hash was never found again by name@version (npm installed it anew each time).
    const fromRegistry = /^\d/.test(deps[name]) && isRegistrySpec(spec);
    const finalDir = join(options.envsDir, installFolderName(name, info.version, fromRegistry ? undefined : (info.resolved ?? spec)));
    linkRubricatePeer(staging);
    if (existsSync(finalDir)) {
      rmSync(staging, { recursive: true, force: true });
    } else {
      try {
        renameSync(staging, finalDir);
      } catch (e) {
        // Another rubricate installed the same version meanwhile: theirs is as good as ours.
        if (!existsSync(finalDir)) throw e;
        rmSync(staging, { recursive: true, force: true });
      }
    }
    return describeInstall(finalDir, name);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
}

/** Whether npm resolves `spec` through a registry (a name, version, range, tag or alias), not git, a tarball URL or a path. */
function isRegistrySpec(spec: string): boolean {
  try {
    return npmPackageArg()(spec).registry === true;
  } catch {
    return false;
  }
}

/** Name, version, integrity and source of `name` as installed under `root`, from npm's lockfile. */
function describeInstall(root: string, name: string): InstalledEnv {
  const dir = join(root, "node_modules", name);
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string };
  const lock = readLockEntry(root, name);
  return { name, version: pkg.version, dir, root, ...(lock?.integrity ? { integrity: lock.integrity } : {}), ...(lock?.resolved ? { resolved: lock.resolved } : {}) };
}

/**
 * The lockfile entry of node_modules/<name> under `root`: package-lock.json, else npm's hidden
 * lockfile. A lockfile that is not JSON (a merge left its conflict markers) costs only the
 * integrity stamp of the rollouts, so it does not stop the run: `onUnreadable` gets one line naming
 * it file:line:col, and the next lockfile is read.
 */
export function readLockEntry(root: string, name: string, onUnreadable?: (line: string) => void): { version?: string; integrity?: string; resolved?: string } | undefined {
  for (const file of [join(root, "package-lock.json"), join(root, "node_modules", ".package-lock.json")]) {
    if (!existsSync(file)) continue;
    const parsed = parseJsonText(readFileSync(file, "utf8"));
    if ("reason" in parsed) {
      onUnreadable?.(`warning: ${file}:${parsed.line}:${parsed.col}: not JSON (${parsed.reason}); ${name}'s integrity is not recorded in the rollouts`);
      continue;
    }
    const entry = (parsed.value as { packages?: Record<string, { version?: string; integrity?: string; resolved?: string }> } | null)?.packages?.[`node_modules/${name}`];
    if (entry) return entry;
  }
  return undefined;
}
