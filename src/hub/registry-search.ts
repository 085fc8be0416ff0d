import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { parse as parseYaml } from "yaml";
import { RubricateError } from "../errors.js";
import { isRecord } from "../text/json.js";
import { installFailure, npmError, runNpm } from "./npm.js";
import { ENV_KEYWORD, registryFlags } from "./publish.js";

/** One environment package as a registry's search lists it. */
export interface EnvListing {
  name: string;
  version: string;
  description: string;
  keywords: string[];
  date?: string;
}

/** Options of the registry queries: a registry other than the one npm would use, and where .npmrc is read from. */
export interface RegistryQueryOptions {
  registry?: string;
  cwd?: string;
  /** Most results to ask for (default 100). */
  limit?: number;
}

/**
 * Environment packages whose name, description or keywords match `query` (every environment
 * when it is empty), through npm's search (the registry's `/-/v1/search`, npm's auth). Only
 * packages carrying the `rubricate-environment` keyword are kept: npmjs.org understands
 * `keywords:` in the query, Verdaccio matches words, so the keyword filter is applied here too.
 * @example await searchEnvs("times") // [{ name: "@acme/times-env", version: "0.1.0", … }]
 */
export async function searchEnvs(query: string, options: RegistryQueryOptions = {}): Promise<EnvListing[]> {
  const cwd = options.cwd ?? process.cwd();
  const limit = String(options.limit ?? 100);
  const flags = options.registry ? ["--registry", options.registry] : [];
  // npmjs.org: the keyword qualifier; registries without qualifiers (Verdaccio): plain words. The
  // two npm processes run side by side: each is a second or more of npm's own start-up.
  const queries = [[`keywords:${ENV_KEYWORD}`, ...words(query)], words(query).length ? words(query) : ["rubricate"]];
  const results = await Promise.all(queries.map((terms) => runNpm(["search", "--json", "--searchlimit", limit, ...flags, ...terms], { cwd })));
  const found = new Map<string, EnvListing>();
  for (const result of results) {
    if (result.code !== 0) throw installFailure(`search ${query || "(all environments)"}`, result);
    for (const p of parseListing(result.stdout)) if (p.keywords.includes(ENV_KEYWORD) && !found.has(p.name)) found.set(p.name, p);
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

const words = (q: string) => q.split(/\s+/).filter(Boolean);

function parseListing(stdout: string): EnvListing[] {
  let rows: unknown;
  try {
    rows = JSON.parse(stdout.trim() || "[]");
  } catch {
    throw new RubricateError("PACKAGE_INVALID", `npm search printed something that is not JSON: ${stdout.slice(0, 200)}`);
  }
  if (!Array.isArray(rows)) return [];
  return rows.map((r: Record<string, unknown>) => {
    const tags = r["dist-tags"] as { latest?: string } | undefined;
    return {
      name: String(r.name),
      version: String(r.version ?? tags?.latest ?? ""),
      description: typeof r.description === "string" ? r.description : "",
      keywords: Array.isArray(r.keywords) ? r.keywords.map(String) : [],
      ...(typeof r.date === "string" ? { date: r.date } : (r.time as { modified?: string } | undefined)?.modified ? { date: (r.time as { modified: string }).modified } : {}),
    };
  });
}

/** What `env info` shows about one version of an environment package. */
export interface EnvInfo {
  name: string;
  version: string;
  description: string;
  /** Every published version, oldest first, and the dist-tags. */
  versions: string[];
  distTags: Record<string, string>;
  integrity?: string;
  /** The README's first lines. */
  readme: string;
  /** Tasks in the environment's dataset (unknown when the dataset is not a file of the package). */
  tasks?: number;
  /** The rubric's criteria: id, points, and the question or check kind. */
  criteria: { id: string; points?: number; what: string }[];
  install: string;
}

/**
 * One version of an environment package (default: latest): its versions, README excerpt, task
 * count and rubric criteria. The tarball is fetched with npm and read in memory; the environment
 * is read as YAML only — no hook of it is imported, so nothing of the package runs.
 * @example (await envInfo("@acme/times-env@0.1.0")).criteria.map((c) => c.id)
 */
export async function envInfo(spec: string, options: RegistryQueryOptions & { readmeLines?: number } = {}): Promise<EnvInfo> {
  const cwd = options.cwd ?? process.cwd();
  const at = spec.lastIndexOf("@");
  const name = at > 0 ? spec.slice(0, at) : spec;
  const flags = registryFlags(name, options.registry);
  const view = await runNpm(["view", spec, "name", "version", "description", "versions", "dist-tags", "dist.integrity", "readme", "rubricate", "--json", ...flags], { cwd });
  if (view.code !== 0) throw installFailure(spec, view);
  let doc = JSON.parse(view.stdout.trim() || "null") as Record<string, unknown> | Record<string, unknown>[] | null;
  // A range matching several versions: npm prints one object per version, oldest first.
  if (Array.isArray(doc)) doc = doc[doc.length - 1] ?? null;
  if (!doc) throw new RubricateError("PACKAGE_NOT_FOUND", `${spec}: no such version in the registry`);
  if (doc.rubricate === undefined) throw new RubricateError("PACKAGE_INVALID", `${spec} is not a rubricate environment: its package.json has no "rubricate" field`);
  const version = String(doc.version);
  const files = await tarballFiles(`${name}@${version}`, cwd, flags);
  const { tasks, criteria } = describeEnvironment(files, doc.rubricate);
  const readme = typeof doc.readme === "string" && doc.readme.trim() ? doc.readme : (files.get("README.md") ?? "");
  const versions = doc.versions === undefined ? [version] : Array.isArray(doc.versions) ? doc.versions.map(String) : [String(doc.versions)];
  return {
    name,
    version,
    description: typeof doc.description === "string" ? doc.description : "",
    versions,
    distTags: (doc["dist-tags"] as Record<string, string> | undefined) ?? {},
    ...(typeof doc["dist.integrity"] === "string" ? { integrity: doc["dist.integrity"] } : {}),
    readme: readme.split("\n").slice(0, options.readmeLines ?? 20).join("\n").trimEnd(),
    ...(tasks !== undefined ? { tasks } : {}),
    criteria,
    install: `npx rubricate eval ${name}@${version}`,
  };
}

/** The text files of a published version, by path inside the package. */
async function tarballFiles(spec: string, cwd: string, flags: string[]): Promise<Map<string, string>> {
  const dest = mkdtempSync(join(tmpdir(), "rubricate-info-"));
  try {
    const result = await runNpm(["pack", spec, "--json", "--pack-destination", dest, ...flags], { cwd });
    if (result.code !== 0) throw installFailure(spec, result);
    const tarball = readdirSync(dest).find((f) => f.endsWith(".tgz"));
    if (!tarball) throw new RubricateError("PACKAGE_INVALID", `${spec}: npm pack wrote no tarball (${npmError(result).summary})`);
    return await tarballTextFiles(readFileSync(join(dest, tarball)));
  } finally {
    rmSync(dest, { recursive: true, force: true });
  }
}

/** What `tarballTextFiles` reads at most: a published tarball is someone else's bytes. */
export interface TarballLimits {
  /** A file larger than this is left out (default 8 MB). */
  maxFileBytes?: number;
  /** Reading stops adding files past this many bytes in all (default 32 MB). */
  maxTotalBytes?: number;
}

/** The files describing an environment: its YAML and JSON, the dataset's JSONL, the README. */
const DESCRIBING = /\.(ya?ml|jsonl?|md)$/i;

/**
 * The describing text files of an npm tarball (.yaml, .json, .jsonl, .md), by path inside the
 * package, read in memory within `limits`; nothing is written to disk and nothing is run.
 * @example describeEnvironment(await tarballTextFiles(tgz), manifest.rubricate)
 */
export async function tarballTextFiles(tgz: Buffer, limits: TarballLimits = {}): Promise<Map<string, string>> {
  const maxFile = limits.maxFileBytes ?? 8 * 1024 * 1024;
  let budget = limits.maxTotalBytes ?? 32 * 1024 * 1024;
  const { Parser } = await import("tar");
  const files = new Map<string, string>();
  await new Promise<void>((done, fail) => {
    const parser = new Parser({
      onReadEntry: (entry) => {
        if (entry.type !== "File" || !DESCRIBING.test(entry.path) || entry.size > maxFile || entry.size > budget) return void entry.resume();
        budget -= entry.size;
        const chunks: Buffer[] = [];
        entry.on("data", (c: Buffer) => chunks.push(c));
        entry.on("end", () => files.set(entry.path.replace(/^package\//, ""), Buffer.concat(chunks).toString("utf8")));
      },
    });
    // tar only warns about bytes that are not an archive; here that is the answer.
    parser.on("warn", (code: string, message: string) => {
      if (code === "TAR_BAD_ARCHIVE" || code === "TAR_ABORT") fail(new RubricateError("PACKAGE_INVALID", `not a readable npm tarball (${message})`));
    });
    parser.on("end", () => done());
    parser.on("error", (e: Error) => fail(new RubricateError("PACKAGE_INVALID", `not a readable npm tarball (${e.message})`, { cause: e })));
    parser.end(tgz);
  });
  return files;
}

/** A package file's YAML as data, or undefined when it does not parse: a package is described as far as it reads, never trusted. */
function yamlData(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return parseYaml(text);
  } catch {
    return undefined;
  }
}

/**
 * Task count and criteria from the package's env.yaml, its dataset and its rubric, read as YAML
 * (nothing imported, so nothing of the package runs). `field` is package.json's `rubricate`.
 * @example describeEnvironment(files, { env: "env.yaml" }) // { tasks: 4, criteria: [{ id: "correct", … }] }
 */
export function describeEnvironment(files: Map<string, string>, field: unknown): { tasks?: number; criteria: EnvInfo["criteria"] } {
  const envPath = typeof field === "string" ? field : field === true ? "env.yaml" : typeof (field as { env?: unknown })?.env === "string" ? (field as { env: string }).env : "env.yaml";
  const envText = files.get(posix.normalize(envPath));
  if (envText === undefined) return { criteria: [] };
  const parsed = yamlData(envText);
  const env = (isRecord(parsed) ? parsed : {}) as { dataset?: unknown; rubric?: unknown };
  const base = posix.dirname(posix.normalize(envPath));
  const at = (p: string) => posix.normalize(posix.join(base, p));
  let tasks: number | undefined;
  if (Array.isArray(env.dataset)) tasks = env.dataset.length;
  else if (typeof env.dataset === "string" && files.has(at(env.dataset))) tasks = files.get(at(env.dataset))!.split("\n").filter((l) => l.trim()).length;
  const rubric = typeof env.rubric === "string" ? yamlData(files.get(at(env.rubric))) : env.rubric;
  const criteria = (isRecord(rubric) && Array.isArray(rubric.criteria) ? rubric.criteria.filter(isRecord) : []).map((c) => ({
    id: String(c.id),
    ...(typeof c.points === "number" ? { points: c.points } : {}),
    what: typeof c.question === "string" ? c.question : c.check !== undefined ? `check ${JSON.stringify(c.check)}` : "",
  }));
  return { ...(tasks !== undefined ? { tasks } : {}), criteria };
}
