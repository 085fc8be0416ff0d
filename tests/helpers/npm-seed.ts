/**
 * Fills a test registry with the packages a project's production dependencies need, packed from
 * its own node_modules, so a clean install from the registry works with no other registry.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** The installed folders of `root`'s production dependency tree (each name@version once). */
export function productionDependencyDirs(root: string): string[] {
  // `npm ls` exits non-zero on any tree warning (an extraneous dev package); the list is still whole.
  const out = spawnSync(NPM, ["ls", "--omit=dev", "--all", "--parseable"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 16 * 1024 * 1024 }).stdout;
  const seen = new Set<string>();
  const dirs: string[] = [];
  for (const dir of out.split("\n").slice(1).filter(Boolean)) {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string; version: string };
    const key = `${pkg.name}@${pkg.version}`;
    if (!seen.has(key)) {
      seen.add(key);
      dirs.push(dir);
    }
  }
  return dirs;
}

/** A package to seed a registry with: its published tarball and the manifest to publish it under. */
export interface SeedPackage {
  tarball: string;
  manifest: Record<string, unknown>;
}

/**
 * The tarballs of `root`'s production dependencies, in `dest`. Each is the very tarball the
 * registry served (the one package-lock.json's integrity names), read from npm's cache, where
 * `npm ci`/`npm install` left it: one `npm pack --offline` of the name@version specs copies them
 * without network or gzip. Packing the installed folders instead (`packDirs`) costs ~100 s of
 * CPU on two cores for ~140 packages; it remains the fallback when the cache has lost one.
 */
export function dependencyTarballs(root: string, dest: string): SeedPackage[] {
  const dirs = productionDependencyDirs(root);
  const manifests = dirs.map((dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>);
  mkdirSync(dest, { recursive: true });
  const specs = manifests.map((m) => `${String(m.name)}@${String(m.version)}`);
  const offline = spawnSync(NPM, ["pack", "--offline", "--ignore-scripts", "--json", "--pack-destination", dest, ...specs], { cwd: dest, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 * 1024 * 1024 });
  const tarballs = offline.status === 0 ? tarballsBySpec(offline.stdout, dest) : undefined;
  if (tarballs && specs.every((spec) => tarballs.has(spec))) return specs.map((spec, i) => ({ tarball: tarballs.get(spec)!, manifest: manifests[i] }));
  return packDirs(dirs, dest).map((tarball, i) => ({ tarball, manifest: manifests[i] }));
}

/** `npm pack --json`'s report as name@version → tarball path. */
function tarballsBySpec(json: string, dest: string): Map<string, string> {
  const packed = JSON.parse(json) as { name: string; version: string; filename: string }[];
  return new Map(packed.map((p) => [`${p.name}@${p.version}`, join(dest, tarballFile(p.filename))]));
}

/** npm names a scoped package's tarball `scope-name-1.0.0.tgz` on disk but reports `@scope/name-1.0.0.tgz`. */
const tarballFile = (reported: string) => reported.replace(/^@/, "").replace("/", "-");

/** Packs folders with one `npm pack` (no scripts run); returns the tarball paths. */
export function packDirs(dirs: string[], dest: string): string[] {
  mkdirSync(dest, { recursive: true });
  const out = execFileSync(NPM, ["pack", "--ignore-scripts", "--json", "--pack-destination", dest, ...dirs], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 * 1024 * 1024 });
  return (JSON.parse(out) as { filename: string }[]).map((p) => join(dest, tarballFile(p.filename)));
}

/**
 * Publishes a tarball with npm's publish request (what libnpmpublish sends: one PUT of the
 * packument with the tarball attached) — the manifest is the folder's package.json.
 */
export async function publishTarball(registry: string, token: string, tarball: string, manifest: Record<string, unknown>): Promise<void> {
  const data = readFileSync(tarball);
  const name = String(manifest.name);
  const version = String(manifest.version);
  const file = `${name}-${version}.tgz`;
  const dist = {
    integrity: `sha512-${createHash("sha512").update(data).digest("base64")}`,
    shasum: createHash("sha1").update(data).digest("hex"),
    tarball: `${registry}${name}/-/${file.replace(/^@[^/]+\//, "")}`,
  };
  const body = {
    _id: name,
    name,
    "dist-tags": { latest: version },
    versions: { [version]: { ...manifest, _id: `${name}@${version}`, dist } },
    _attachments: { [file]: { content_type: "application/octet-stream", data: data.toString("base64"), length: data.length } },
  };
  const res = await fetch(`${registry}${name.replace("/", "%2f")}`, { method: "PUT", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  if (!res.ok && res.status !== 409) throw new Error(`publishing ${name}@${version} failed: ${res.status} ${await res.text()}`);
}
