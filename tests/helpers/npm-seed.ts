/**
 * Fills a test registry without npm's publish: folders packed with one `npm pack`, each tarball
 * put with the request npm's publish sends (tests/site's fixtures).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

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
  const put = () => fetch(`${registry}${name.replace("/", "%2f")}`, { method: "PUT", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  // A kept-alive connection the registry closed while idle fails the request sent on it ("other
  // side closed"; seen under a loaded .ci/run). Sent again once: a version the first one did
  // publish answers 409, which is taken as done.
  const res = await put().catch((e: unknown) => (staleConnection(e) ? put() : Promise.reject(e)));
  if (!res.ok && res.status !== 409) throw new Error(`publishing ${name}@${version} failed: ${res.status} ${await res.text()}`);
}

/** True when fetch failed because the server had closed the connection it reused. */
const staleConnection = (e: unknown) => ["UND_ERR_SOCKET", "ECONNRESET"].includes(String((e as { cause?: { code?: unknown } }).cause?.code));
