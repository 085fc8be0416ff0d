import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { EnvPackage } from "../env/types.js";
import { jsonFileValue } from "../config/jsonl.js";
import { RubricateError } from "../errors.js";
import { isRecord } from "../text/json.js";

export type { EnvPackage };

/** The fields of an environment package's package.json that rubricate reads. */
export interface EnvManifest {
  name: string;
  version: string;
  /** The environment file, relative to the package folder. */
  env: string;
  /** Scripted tests for `rubricate env check`, relative to the package folder. */
  tests?: string;
  peerDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
  files?: string[];
  scripts?: Record<string, string>;
}

/** The file the `rubricate` field names when a package gives none (`"rubricate": true`). */
const DEFAULT_ENV_FILE = "env.yaml";
const DEFAULT_TESTS_FILE = "tests.yaml";

/** Reads a package.json as JSON, or undefined when the folder has none; one that is not a JSON object is PACKAGE_INVALID naming file:line:col. */
export function readPackageJson(dir: string): Record<string, unknown> | undefined {
  const file = join(dir, "package.json");
  if (!existsSync(file)) return undefined;
  const pkg = jsonFileValue(readFileSync(file, "utf8"), file, { code: "PACKAGE_INVALID" });
  if (!isRecord(pkg)) throw new RubricateError("PACKAGE_INVALID", "a package.json holds a JSON object", { location: { file } });
  return pkg;
}

/**
 * The environment of a package folder, from its package.json `rubricate` field:
 * `"rubricate": "env.yaml"`, or `{ "env": "env.yaml", "tests": "tests.yaml" }`.
 * @example readEnvManifest("node_modules/@acme/wordle-env").env // "env.yaml"
 */
export function readEnvManifest(dir: string, what = dir): EnvManifest {
  const pkg = readPackageJson(dir);
  if (!pkg) throw new RubricateError("PACKAGE_INVALID", `${what} has no package.json`);
  const name = typeof pkg.name === "string" ? pkg.name : undefined;
  const version = typeof pkg.version === "string" ? pkg.version : undefined;
  const label = `${name ?? what}${version ? `@${version}` : ""}`;
  const field = pkg.rubricate;
  let env: string | undefined;
  let tests: string | undefined;
  if (field === true) env = DEFAULT_ENV_FILE;
  else if (typeof field === "string") env = field;
  else if (typeof field === "object" && field !== null && typeof (field as { env?: unknown }).env === "string") {
    env = (field as { env: string }).env;
    const t = (field as { tests?: unknown }).tests;
    if (typeof t === "string") tests = t;
  }
  if (field === undefined) throw new RubricateError("PACKAGE_INVALID", `${label} is not a rubricate environment: its package.json has no "rubricate" field (its author adds "rubricate": "env.yaml", the environment file)`);
  if (!env) throw new RubricateError("PACKAGE_INVALID", `${label}: the package.json "rubricate" field must name the environment file ("rubricate": "env.yaml" or { "env": "env.yaml" })`);
  if (!name || !version) throw new RubricateError("PACKAGE_INVALID", `${what}: package.json needs a "name" and a "version"`);
  if (!existsSync(resolve(dir, env))) throw new RubricateError("PACKAGE_INVALID", `${label}: its "rubricate" field names ${env}, which the package does not contain`);
  if (tests === undefined && existsSync(join(dir, DEFAULT_TESTS_FILE))) tests = DEFAULT_TESTS_FILE;
  return {
    name,
    version,
    env,
    ...(tests ? { tests } : {}),
    ...(isRecord(pkg.peerDependencies) ? { peerDependencies: pkg.peerDependencies as Record<string, string> } : {}),
    ...(isRecord(pkg.dependencies) ? { dependencies: pkg.dependencies as Record<string, string> } : {}),
    ...(Array.isArray(pkg.files) ? { files: pkg.files as string[] } : {}),
    ...(isRecord(pkg.scripts) ? { scripts: pkg.scripts as Record<string, string> } : {}),
  };
}

/** `name@version`, the label an installed environment goes by in tables and file names. */
export const packageLabel = (p: Pick<EnvPackage, "name" | "version">): string => `${p.name}@${p.version}`;

/** One line naming an environment's package for summaries and reports. */
export function describePackage(p: EnvPackage): string {
  const from = p.integrity ? `integrity ${p.integrity}` : p.resolved ? `from ${p.resolved}` : "local folder";
  return `${packageLabel(p)} (${from})`;
}

/** The folder of the running rubricate package (src/ under tsx, dist/ when built): the peer an installed environment imports. */
export function rubricateRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = existsSync(join(dir, "package.json")) ? (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string }) : undefined;
    if (pkg?.name === "rubricate") return dir;
    const up = dirname(dir);
    if (up === dir) throw new RubricateError("INTERNAL", "cannot find rubricate's own package.json");
    dir = up;
  }
}

/** The running rubricate's version. */
export function rubricateVersion(): string {
  return (JSON.parse(readFileSync(join(rubricateRoot(), "package.json"), "utf8")) as { version: string }).version;
}

/** Links `<root>/node_modules/rubricate` to the running rubricate, so hooks that import it share its registries. */
export function linkRubricatePeer(root: string): void {
  const link = join(root, "node_modules", "rubricate");
  mkdirSync(dirname(link), { recursive: true });
  if (!existsSync(link)) symlinkSync(rubricateRoot(), link, "junction");
}

/** A file name for a label: `@acme/wordle-env@1.1.0` → `@acme+wordle-env@1.1.0`. */
export const labelFile = (label: string): string => label.replace(/[^A-Za-z0-9._@-]+/g, "+");

/**
 * Where an eval's rollouts go without `--out`: a folder per environment version, a file per set
 * of models (and training step), so the same eval with another model, or at the next step of a
 * training run, is a new file, not "already exists".
 * @example defaultEvalOut("@acme/times-env@0.1.0", ["openai:gpt-4.1-mini"]) // ".rubricate/evals/@acme+times-env@0.1.0/openai+gpt-4.1-mini.jsonl"
 */
export function defaultEvalOut(envLabel: string, models: string[], step?: number): string {
  return join(".rubricate", "evals", labelFile(envLabel), `${labelFile(models.join(","))}${step !== undefined ? `@step${step}` : ""}.jsonl`);
}

/** The keyword every environment package carries, so a registry's search API finds them all. */
export const ENV_KEYWORD = "rubricate-environment";
