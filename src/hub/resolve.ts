import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { semverLib } from "./lazy.js";
import { loadEnvironment } from "../env/load.js";
import type { Environment } from "../env/types.js";
import { isRubricateError, RubricateError } from "../errors.js";
import { defaultEnvsDir, findInstalled, installEnv, installedVersions, readLockEntry, type InstalledEnv } from "./install.js";
import { readEnvManifest, readPackageJson, rubricateVersion, type EnvPackage } from "./package.js";
import { parseEnvSpec } from "./spec.js";

/** Options of `resolveEnvSpec` and `loadEnvironmentSpec`. */
export interface ResolveOptions {
  /** The folder the spec is read from and whose node_modules is searched (default: process.cwd()). */
  cwd?: string;
  /** Where packages not installed in the project go (default: `defaultEnvsDir(cwd)`). */
  envsDir?: string;
  /** Called with a line to show the user (an install, a peer version mismatch). */
  onNotice?: (line: string) => void;
  signal?: AbortSignal;
}

/** A spec resolved to an environment file, with the package it belongs to when there is one. */
export interface ResolvedEnv {
  file: string;
  package?: EnvPackage;
  /** How it was found: a path, the project's node_modules, or the environments folder. */
  from: "path" | "project" | "installed";
}

/**
 * Finds the environment a spec names: a YAML file or a package folder; a package installed in
 * the project (its node_modules); else the environments folder, installing it there with npm
 * when it is not yet (never into the project).
 * @example const { file, package: pkg } = await resolveEnvSpec("@acme/wordle-env@1.1.0")
 */
export async function resolveEnvSpec(spec: string, options: ResolveOptions = {}): Promise<ResolvedEnv> {
  const cwd = options.cwd ?? process.cwd();
  const envsDir = options.envsDir ?? defaultEnvsDir(cwd);
  const parsed = parseEnvSpec(spec, cwd);
  if (parsed.kind === "path") return resolvePath(parsed.path, spec);
  if (parsed.kind === "registry") {
    const local = findInProject(cwd, parsed.name);
    if (local && (parsed.range === "" || semverLib().satisfies(local.version, parsed.range))) return fromPackageDir(local.dir, "project", local.lockRoot, options);
    if (parsed.exact) {
      const cached = findInstalled(envsDir, parsed.name, parsed.exact);
      if (cached) return fromPackageDir(cached.dir, "installed", cached.root, options);
    }
  }
  options.onNotice?.(`installing ${spec} into ${envsDir}`);
  let installed;
  try {
    installed = await installEnv(parsed.raw, { envsDir, cwd, signal: options.signal });
  } catch (e) {
    // Offline: the newest version already installed that the spec accepts, said out loud.
    const fallback = parsed.kind === "registry" && isRubricateError(e) && e.code === "REGISTRY_DOWN" ? newestInstalled(envsDir, parsed.name, parsed.range) : undefined;
    if (!fallback) throw e;
    options.onNotice?.(`the registry is unreachable; using the installed ${fallback.name}@${fallback.version}`);
    return fromPackageDir(fallback.dir, "installed", fallback.root, options);
  }
  const { dir, root: _root, ...pkg } = installed;
  return { ...withManifest(dir, pkg, options), from: "installed" };
}

/**
 * Resolves a spec and loads its environment; a package's name, version and integrity are stamped
 * on it (and so into every rollout it produces), its version replacing the YAML's `version:`.
 * @example const env = await loadEnvironmentSpec("@acme/wordle-env"); env.package?.version
 */
export async function loadEnvironmentSpec(spec: string, options: ResolveOptions = {}): Promise<Environment> {
  const resolved = await resolveEnvSpec(spec, options);
  const env = await loadEnvironment(resolved.file);
  if (resolved.package) {
    env.package = resolved.package;
    env.version = resolved.package.version;
  }
  return env;
}

function resolvePath(path: string, spec: string): ResolvedEnv {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new RubricateError("FILE_NOT_FOUND", `${spec}: no such file or folder (and not an installed package)`);
  }
  if (isDir) {
    if (readPackageJson(path)?.rubricate !== undefined) {
      const m = readEnvManifest(path, spec);
      return { file: resolve(path, m.env), package: { name: m.name, version: m.version }, from: "path" };
    }
    for (const name of ["env.yaml", "env.yml"]) if (existsSync(join(path, name))) return { file: join(path, name), from: "path" };
    // A bare repository has no files to read: npm installs it through git when told so.
    if (isBareGitRepo(path)) throw new RubricateError("FILE_NOT_FOUND", `${spec} is a bare git repository, not a package folder: write git+file://${path} (add #<tag or commit> for a version) to install it with git`);
    throw new RubricateError("FILE_NOT_FOUND", `${spec}: the folder has neither a package.json with a "rubricate" field nor an env.yaml`);
  }
  // A YAML file that is its package's environment file carries the package's name and version.
  const pkg = readPackageJson(dirname(path));
  if (pkg?.rubricate !== undefined) {
    try {
      const m = readEnvManifest(dirname(path), spec);
      if (resolve(dirname(path), m.env) === path) return { file: path, package: { name: m.name, version: m.version }, from: "path" };
    } catch {
      // a broken package.json beside a YAML file does not stop the file from loading
    }
  }
  return { file: path, from: "path" };
}

/** A folder holding a repository's git data with no checkout: HEAD, objects/ and refs/ at its top. */
function isBareGitRepo(dir: string): boolean {
  return existsSync(join(dir, "HEAD")) && existsSync(join(dir, "objects")) && existsSync(join(dir, "refs"));
}

function withManifest(dir: string, pkg: EnvPackage, options: ResolveOptions): Omit<ResolvedEnv, "from"> {
  const m = readEnvManifest(dir, pkg.name);
  checkPeer(m.name, m.version, m.peerDependencies?.rubricate, options);
  return { file: resolve(dir, m.env), package: pkg };
}

function fromPackageDir(dir: string, from: ResolvedEnv["from"], lockRoot: string, options: ResolveOptions): ResolvedEnv {
  const m = readEnvManifest(dir);
  const lock = readLockEntry(lockRoot, m.name, options.onNotice);
  const pkg: EnvPackage = { name: m.name, version: m.version, ...(lock?.integrity ? { integrity: lock.integrity } : {}), ...(lock?.resolved ? { resolved: lock.resolved } : {}) };
  return { ...withManifest(dir, pkg, options), from };
}

/** A package the project installed: node_modules/<name> in the working folder or a parent. */
function findInProject(cwd: string, name: string): { dir: string; version: string; lockRoot: string } | undefined {
  let dir = resolve(cwd);
  for (;;) {
    const pkgDir = join(dir, "node_modules", name);
    if (existsSync(join(pkgDir, "package.json"))) {
      const version = readPackageJson(pkgDir)?.version;
      return { dir: pkgDir, version: typeof version === "string" ? version : "0.0.0", lockRoot: dir };
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** The newest installed registry version of `name` that `range` ("" for any; a dist-tag matches none) accepts. */
function newestInstalled(envsDir: string, name: string, range: string): InstalledEnv | undefined {
  const semver = semverLib();
  const versions = installedVersions(envsDir, name).filter((v) => semver.valid(v) && (range === "" || semver.satisfies(v, range)));
  const best = semver.rsort(versions)[0];
  return best ? findInstalled(envsDir, name, best) : undefined;
}

/** Warns when the environment wants another rubricate than the one running it. */
function checkPeer(name: string, version: string, range: string | undefined, options: ResolveOptions): void {
  if (!range) return;
  const running = rubricateVersion();
  const semver = semverLib();
  if (semver.validRange(range) && !semver.satisfies(running, range, { includePrerelease: true })) {
    options.onNotice?.(`warning: ${name}@${version} wants rubricate ${range}; this is rubricate ${running}`);
  }
}

