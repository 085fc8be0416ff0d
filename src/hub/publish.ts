import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RubricateError } from "../errors.js";
import { parseJsonOrUndefined } from "../text/json.js";
import { npmError, runNpm, type NpmResult } from "./npm.js";
import { semverLib } from "./lazy.js";
import { readEnvManifest } from "./package.js";
import { packedFiles } from "./packlist.js";

// In package.ts (light: `env init` writes it without loading npm), exported here too.
export { ENV_KEYWORD } from "./package.js";

/** What `--bump` accepts: the parts of a version `npm version` increments. */
export const BUMPS = ["patch", "minor", "major", "prerelease"] as const;
export type Bump = (typeof BUMPS)[number];

/** Options of `publishEnvPackage`. */
export interface PublishOptions {
  /** Overrides the registry npm would use for the package's scope (`.npmrc`: project, user, global). */
  registry?: string;
  bump?: Bump;
  /** `public` or `restricted` (npm's `--access`). */
  access?: string;
  /** Where the install command points people to a page of the package (`--hub`, `$RUBRICATE_HUB`). */
  hub?: string;
  onNotice?: (line: string) => void;
}

/** What was published. */
export interface Published {
  name: string;
  version: string;
  registry: string;
  integrity?: string;
  /** The content hash of the packed files (package.json's version left out). */
  contentHash: string;
  /** `npx rubricate eval name@version` */
  install: string;
  /** The package's page on the hub, when a hub was named. */
  hubUrl?: string;
}

/**
 * Publishes an environment package with npm, to the registry npm would use for its scope (or
 * `registry`). Refuses before publishing when the packed content (every file npm would ship,
 * package.json without its version) equals the registry's latest version: a new version number
 * on the same bytes would only split that version's results. Refuses a version that is already
 * published with the hint to `--bump`; with `bump`, bumps the version first as `npm version <bump>` does.
 * npm's auth and conflict errors come back as one line saying what to do.
 * @example await publishEnvPackage("times-env", { bump: "patch" }) // { name, version: "0.1.1", … }
 */
export async function publishEnvPackage(dir: string, options: PublishOptions = {}): Promise<Published> {
  const manifest = readEnvManifest(dir);
  const regFlags = registryFlags(manifest.name, options.registry);
  // Independent: npm's config, the registry's versions and the local files, side by side.
  const registryRead = options.registry !== undefined ? Promise.resolve(options.registry) : registryFor(manifest.name, dir);
  const [registry, viewed, local] = await Promise.all([registryRead, viewVersions(manifest.name, dir, regFlags), localContentHash(dir)]);
  const published = publishedVersions(manifest.name, registry, viewed);
  if (published.latest) {
    const latestHash = await publishedContentHash(`${manifest.name}@${published.latest}`, dir, regFlags, registry);
    if (latestHash === local) {
      throw new RubricateError("BAD_INPUT", `${manifest.name}: the packed files are the same as the published ${published.latest} (content ${local.slice(0, 19)}…); nothing to publish: change the environment, then \`rubricate env push --bump patch\``);
    }
  }
  let version = manifest.version;
  const before = readFileSync(join(dir, "package.json"));
  if (options.bump) {
    version = await bumpVersion(dir, options.bump);
    options.onNotice?.(`version ${manifest.version} → ${version}`);
  } else if (published.versions.includes(version)) {
    throw new RubricateError("BAD_INPUT", `${manifest.name}@${version} is already published and its content changed: pass --bump patch (or minor, major, prerelease) to publish it as a new version`);
  }
  const args = ["publish", "--json", ...regFlags, ...(options.access ? ["--access", options.access] : [])];
  const result = await runNpm(args, { cwd: dir });
  if (result.code !== 0) {
    // Nothing was published: the version goes back to what it was, so a retry bumps from there again.
    if (options.bump) writeFileSync(join(dir, "package.json"), before);
    throw publishFailure(`${manifest.name}@${version}`, registry, result);
  }
  // npm 10 prints the package's entry; npm 11 keys it by name.
  const out = parseJsonOrUndefined(result.stdout) as ({ integrity?: string } & Record<string, { integrity?: string }>) | undefined;
  const integrity = out?.integrity ?? out?.[manifest.name]?.integrity;
  const hub = options.hub?.replace(/\/+$/, "");
  return {
    name: manifest.name,
    version,
    registry,
    ...(integrity ? { integrity } : {}),
    contentHash: local,
    install: `npx rubricate eval ${manifest.name}@${version}`,
    ...(hub ? { hubUrl: `${hub}/envs/${manifest.name}` } : {}),
  };
}

/**
 * The registry npm uses for `name` from `cwd`: the scope's (`@acme:registry`), else `registry`, read
 * through npm's own config in one `npm config get` (given two keys, npm prints `key=value` lines).
 */
export async function registryFor(name: string, cwd: string): Promise<string> {
  const scope = /^(@[^/]+)\//.exec(name)?.[1];
  if (!scope) return (await runNpm(["config", "get", "registry"], { cwd })).stdout.trim();
  const values = configLines((await runNpm(["config", "get", `${scope}:registry`, "registry"], { cwd })).stdout);
  const scoped = values.get(`${scope}:registry`);
  return scoped && scoped !== "undefined" ? scoped : (values.get("registry") ?? "");
}

/**
 * The `key=value` lines `npm config get` prints for several keys, split at the first `=` (a key
 * has none; a registry URL may).
 * @example configLines("@acme:registry=undefined\nregistry=https://registry.npmjs.org/\n").get("registry") // "https://registry.npmjs.org/"
 */
export function configLines(stdout: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of stdout.split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) values.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  return values;
}

/** `--registry` for npm, and the scope's registry too: a scope line in .npmrc would win over `--registry` alone. */
export function registryFlags(name: string, registry: string | undefined): string[] {
  if (!registry) return [];
  const scope = /^(@[^/]+)\//.exec(name)?.[1];
  return ["--registry", registry, ...(scope ? [`--${scope}:registry=${registry}`] : [])];
}

/** `npm view` of `name`'s versions and dist-tags. */
function viewVersions(name: string, cwd: string, regFlags: string[]): Promise<NpmResult> {
  return runNpm(["view", name, "versions", "dist-tags", "--json", ...regFlags], { cwd });
}

/** The published versions and the `latest` tag of `name` from `npm view`; none when the registry has never heard of it. */
function publishedVersions(name: string, registry: string, result: NpmResult): { versions: string[]; latest?: string } {
  if (result.code !== 0) {
    if (npmError(result).code === "E404") return { versions: [] };
    throw publishFailure(name, registry, result);
  }
  const view = parseJsonOrUndefined(result.stdout) as { versions?: string[] | string; "dist-tags"?: { latest?: string } } | undefined;
  const versions = view?.versions === undefined ? [] : Array.isArray(view.versions) ? view.versions : [view.versions];
  return { versions, ...(view?.["dist-tags"]?.latest ? { latest: view["dist-tags"].latest } : {}) };
}

/** The content hash of what `npm pack` would ship from `dir`. */
async function localContentHash(dir: string): Promise<string> {
  const files = await packedFiles(dir);
  return contentHash(files.map((path) => ({ path, data: readFileSync(join(dir, path)) })));
}

/** The content hash of a published version: its tarball fetched by npm (the project's auth applies) and read in memory. */
async function publishedContentHash(spec: string, cwd: string, regFlags: string[], registry: string): Promise<string> {
  const dest = mkdtempSync(join(tmpdir(), "rubricate-pack-"));
  try {
    const result = await runNpm(["pack", spec, "--json", "--pack-destination", dest, ...regFlags], { cwd });
    if (result.code !== 0) throw publishFailure(spec, registry, result);
    const tarball = readdirSync(dest).find((f) => f.endsWith(".tgz"));
    if (!tarball) throw new RubricateError("PACKAGE_INVALID", `${spec}: npm pack wrote no tarball`);
    const { list } = await import("tar");
    const files: { path: string; data: Buffer }[] = [];
    await list({
      file: join(dest, tarball),
      onReadEntry: (entry) => {
        const chunks: Buffer[] = [];
        entry.on("data", (c: Buffer) => chunks.push(c));
        entry.on("end", () => files.push({ path: entry.path.replace(/^package\//, ""), data: Buffer.concat(chunks) }));
      },
    });
    return contentHash(files);
  } finally {
    rmSync(dest, { recursive: true, force: true });
  }
}

/**
 * sha256 over the packed files, sorted by path: each path and its bytes, package.json parsed and
 * its `version` left out (so a bump alone does not count as a change).
 * @example contentHash([{ path: "env.yaml", data }]) // "sha256-…"
 */
export function contentHash(files: { path: string; data: Buffer }[]): string {
  const hash = createHash("sha256");
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    let data = f.data;
    if (f.path === "package.json") {
      const { version: _version, ...rest } = JSON.parse(data.toString("utf8")) as Record<string, unknown>;
      data = Buffer.from(JSON.stringify(rest));
    }
    hash.update(`${f.path}\0${data.length}\0`).update(data);
  }
  return `sha256-${hash.digest("hex")}`;
}

/**
 * `npm version <bump>` without git or scripts. A patch, minor or major bump of a package without a
 * lockfile is written here, as npm writes it (its indent and line ends kept, a final newline):
 * one npm start fewer per push. A prerelease (npm's `preid` config names its tag) or a lockfile
 * (npm updates its version too) is left to npm.
 */
async function bumpVersion(dir: string, bump: Bump): Promise<string> {
  if (bump !== "prerelease" && !existsSync(join(dir, "package-lock.json")) && !existsSync(join(dir, "npm-shrinkwrap.json"))) {
    const file = join(dir, "package.json");
    const text = readFileSync(file, "utf8");
    const bumped = bumpedManifest(text, bump);
    if (!bumped) throw new RubricateError("PACKAGE_INVALID", `${dir}: npm version ${bump} failed (the version in package.json is not semver)`);
    writeFileSync(file, bumped.text);
    return bumped.version;
  }
  const result = await runNpm(["version", bump, "--no-git-tag-version", "--ignore-scripts"], { cwd: dir });
  if (result.code !== 0) throw new RubricateError("PACKAGE_INVALID", `${dir}: npm version ${bump} failed (${npmError(result).summary})`);
  return readEnvManifest(dir).version;
}

/**
 * package.json's text with its version bumped, written as npm's `npm version` writes it: the
 * file's own indent and line ends, a final newline. `undefined` when the version is not semver.
 * @example bumpedManifest('{\n  "name": "x",\n  "version": "0.1.0"\n}\n', "minor") // { version: "0.2.0", text: … }
 */
export function bumpedManifest(text: string, bump: Exclude<Bump, "prerelease">): { version: string; text: string } | undefined {
  const json = text.replace(/^\uFEFF/, "");
  const pkg = JSON.parse(json) as Record<string, unknown>;
  const version = typeof pkg.version === "string" ? semverLib().inc(pkg.version, bump) : null;
  if (!version) return undefined;
  // npm's reading of the format (json-parse-even-better-errors): the first line break and the indent after it; none when minified.
  const [, newline = "", indent = ""] = /^\s*[{[]((?:\r?\n)+)([\s\t]*)/.exec(json) ?? [];
  return { version, text: `${JSON.stringify({ ...pkg, version }, null, indent)}\n`.replace(/\n/g, newline) };
}

/** One line saying why npm would not publish and what to do about it. */
export function publishFailure(what: string, registry: string, result: NpmResult): RubricateError {
  const { code, summary } = npmError(result);
  const why = summary || `npm exited with code ${result.code}`;
  if (code === "ENEEDAUTH" || code === "E401") {
    return new RubricateError("REGISTRY_AUTH", `${what}: ${registry} wants a login (${code}: ${why}); run \`npm login --registry ${registry}\`, or put //<registry host>/:_authToken=\${NPM_TOKEN} in .npmrc with NPM_TOKEN set`);
  }
  if (code === "E403") return new RubricateError("REGISTRY_AUTH", `${what}: ${registry} refused (E403: ${why}); your user may not publish this name or scope: ask its owner, or publish under your own scope`);
  if (/cannot publish over/i.test(why) || code === "EPUBLISHCONFLICT") {
    return new RubricateError("BAD_INPUT", `${what} is already published (${why}); pass --bump patch (or minor, major, prerelease) to publish a new version`);
  }
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET/.test(`${code} ${why}`)) {
    return new RubricateError("REGISTRY_DOWN", `${what}: cannot reach ${registry} (${why}); is it running, and is the registry in .npmrc right?`, { retryable: true });
  }
  return new RubricateError("PACKAGE_INVALID", `${what}: npm publish failed (${code || result.code}: ${why})`);
}
