/**
 * The hub's view of its npm registries: search and package documents, asked with the visitor's
 * own token. The hub keeps no token and caches nothing across visitors, so a private package is
 * shown only to someone the registry itself lets read it.
 */
import { RubricateError } from "../errors.js";

/** Keywords that mark an environment package (`env push` adds the first; `env init` scaffolds the second). */
export const ENV_KEYWORDS = ["rubricate-env", "rubricate-environment"] as const;

/** One version of a package as the registry's document gives it (the package.json plus `dist`). */
export interface VersionDoc {
  name: string;
  version: string;
  description?: string;
  keywords?: string[];
  rubricate?: unknown;
  readme?: string;
  dist: { integrity?: string; tarball?: string };
}

/** A package document (packument): every version, the dist-tags, the README of the latest. */
export interface Packument {
  name: string;
  versions: Record<string, VersionDoc>;
  "dist-tags"?: Record<string, string>;
  time?: Record<string, string>;
  readme?: string;
  /** Which of the hub's registries answered (its URL with a trailing slash). */
  registry: string;
}

/**
 * One version's document, or undefined when the package does not publish that version. Own keys
 * only: a version a visitor names (`?version=constructor`, `toString`) must not find what every
 * object inherits.
 */
export function versionDoc(doc: Pick<Packument, "versions">, version: string): VersionDoc | undefined {
  return Object.hasOwn(doc.versions, version) ? doc.versions[version] : undefined;
}

/** A line of the environment list. */
export interface EnvListing {
  name: string;
  version: string;
  description: string;
  registry: string;
}

/** True when a version is a rubricate environment: the keyword, or a `rubricate` field in its package.json. */
export function isEnvironment(doc: Pick<VersionDoc, "keywords" | "rubricate">): boolean {
  return doc.rubricate !== undefined || (doc.keywords ?? []).some((k) => (ENV_KEYWORDS as readonly string[]).includes(k));
}

/** Candidates without the keyword whose package.json one search reads for a `rubricate` field. */
export const MAX_FIELD_LOOKUPS = 25;

const withSlash = (url: string) => (url.endsWith("/") ? url : `${url}/`);

/** The path npm uses for a package document: a scoped name's slash encoded. */
const docPath = (name: string) => (name.startsWith("@") ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name));

export interface RegistryClientOptions {
  /** The registries, asked in order: the first that has a package answers for it. */
  registries: string[];
  fetch?: typeof fetch;
  /** Per request (default 10 s). */
  timeoutMs?: number;
}

/** The largest tarball the hub reads to describe a version (its YAML, dataset and README). */
export const MAX_TARBALL_BYTES = 20 * 1024 * 1024;

/** Reads packages from one or more registries on behalf of a visitor (`token`: theirs, or none). */
export class RegistryClient {
  readonly registries: string[];
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;

  constructor(options: RegistryClientOptions) {
    if (options.registries.length === 0) throw new RubricateError("BAD_INPUT", "the hub needs at least one --registry");
    this.registries = options.registries.map(withSlash);
    this.fetchImpl = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /**
   * The package document from the first registry that shows it to this token; undefined when none
   * does. A registry that refuses the token (401/403) is treated as not having the package, so a
   * private package and a missing one look the same to a visitor.
   */
  async packument(name: string, token?: string): Promise<Packument | undefined> {
    for (const registry of this.registries) {
      const res = await this.get(registry, docPath(name), token);
      if (res.status === 200) return { ...((await res.json()) as Omit<Packument, "registry">), registry };
      await res.body?.cancel();
      if (res.status >= 500) throw new RubricateError("REGISTRY_DOWN", `${registry} answered ${res.status} for ${name}`, { retryable: true });
    }
    return undefined;
  }

  /**
   * Environments matching `text` (all of them for an empty text), across every registry: the
   * registry's search finds candidates, and a candidate without the keyword is kept only when its
   * package.json has a `rubricate` field.
   */
  async search(text: string, token?: string): Promise<EnvListing[]> {
    const found = new Map<string, EnvListing>();
    // Reading a document per candidate is the slow path (npm's search matches any package): bounded.
    let lookups = MAX_FIELD_LOOKUPS;
    for (const registry of this.registries) {
      for (const query of searchQueries(text)) {
        const res = await this.get(registry, `-/v1/search?text=${encodeURIComponent(query)}&size=250`, token);
        if (res.status !== 200) {
          await res.body?.cancel();
          if (res.status >= 500) throw new RubricateError("REGISTRY_DOWN", `${registry} search answered ${res.status}`, { retryable: true });
          continue;
        }
        const body = (await res.json()) as { objects?: { package: { name: string; version: string; description?: string; keywords?: string[] } }[] };
        for (const { package: p } of body.objects ?? []) {
          if (found.has(p.name)) continue;
          if (!isEnvironment(p)) {
            if (lookups-- <= 0) continue;
            // The search API does not return arbitrary package.json fields: read the document.
            const doc = await this.packument(p.name, token);
            const latest = doc && versionDoc(doc, doc["dist-tags"]?.latest ?? p.version);
            if (!latest || !isEnvironment(latest)) continue;
          }
          found.set(p.name, { name: p.name, version: p.version, description: p.description ?? "", registry });
        }
      }
    }
    return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * The tarball of one version, fetched with the visitor's token from the registry that served its
   * document. Undefined when it is refused, over `maxBytes`, or named on another host than that
   * registry (a visitor's token goes to the registry and nowhere else).
   */
  async tarball(doc: Packument, version: string, token?: string, maxBytes = MAX_TARBALL_BYTES): Promise<Buffer | undefined> {
    const url = versionDoc(doc, version)?.dist.tarball;
    if (!url || !URL.canParse(url) || new URL(url).origin !== new URL(doc.registry).origin) return undefined;
    let res: Response;
    try {
      res = await this.fetchImpl(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch {
      return undefined;
    }
    if (res.status !== 200 || !res.body || Number(res.headers.get("content-length") ?? 0) > maxBytes) {
      await res.body?.cancel();
      return undefined;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += chunk.byteLength;
      if (size > maxBytes) return undefined; // leaving the loop cancels the stream
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  /** True when some registry accepts this token (npm's whoami); the user name it answers for. */
  async whoami(token: string): Promise<string | undefined> {
    for (const registry of this.registries) {
      const res = await this.get(registry, "-/whoami", token);
      if (res.status === 200) {
        const body = (await res.json()) as { username?: string };
        if (body.username) return body.username;
      } else await res.body?.cancel();
    }
    return undefined;
  }

  private async get(registry: string, path: string, token: string | undefined): Promise<Response> {
    try {
      return await this.fetchImpl(`${registry}${path}`, {
        headers: { accept: "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      throw new RubricateError("REGISTRY_DOWN", `cannot reach ${registry} (${(e as Error).message})`, { retryable: true });
    }
  }
}

/**
 * What to ask the search API: the visitor's words when given (then filtered to environments),
 * else everything. npm's registry matches `keywords:x` exactly but lists nothing for an empty
 * text; Verdaccio ignores `keywords:` and lists every package the token may read for an empty one.
 */
function searchQueries(text: string): string[] {
  const words = text.trim();
  return words ? [words] : ["", ...ENV_KEYWORDS.map((k) => `keywords:${k}`)];
}
