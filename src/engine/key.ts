import { createHash } from "node:crypto";
import type { CompletionRequest } from "../judge/providers/types.js";

/** Everything that can change a provider's answer; never credentials. */
export interface CacheKeyParts {
  /** The provider's name ("openai", "anthropic", "openai-compatible", ...). */
  provider: string;
  /** The server; credentials in it (user:password@, ?api_key=) are removed before hashing. */
  baseURL?: string;
  request: CompletionRequest;
  /** Which of a judge's n votes this is: votes must not share one cached answer. */
  voteIndex?: number;
  /** Anything else that should separate answers, e.g. a criterion's version. */
  extra?: unknown;
}

/** Bumped when the key's recipe changes, so old entries are never misread as new ones. */
const KEY_VERSION = "rubricate-cache-key/1";

const SECRET_PARAM = /key|token|secret|auth|sig|password|credential/i;

/**
 * The cache key of a call: sha256 (hex) of a canonical JSON (sorted keys, undefined fields
 * dropped) of the parts. The request type carries no API key and the base URL loses its
 * credentials, so rotating a key neither leaks it nor invalidates the cache.
 * @example
 * cacheKey({ provider: "openai", baseURL, request, voteIndex: 0, extra: { criterion: "c1@3" } })
 */
export function cacheKey(parts: CacheKeyParts): string {
  const body = {
    v: KEY_VERSION,
    provider: parts.provider,
    baseURL: parts.baseURL === undefined ? undefined : sanitizeBaseURL(parts.baseURL),
    request: parts.request,
    voteIndex: parts.voteIndex ?? 0,
    extra: parts.extra,
  };
  return createHash("sha256").update(canonicalJson(body)).digest("hex");
}

/** JSON with object keys sorted at every depth and undefined members dropped; equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortDeep(value)) ?? "null";
}

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (value === null || typeof value !== "object") return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return sortDeep((value as { toJSON(): unknown }).toJSON());
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined && typeof v !== "function") out[k] = sortDeep(v);
  }
  return out;
}

/** A base URL without credentials or a trailing slash (the same server, however it is written). */
export function sanitizeBaseURL(baseURL: string): string {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return baseURL.replace(/\/+$/, "");
  }
  url.username = "";
  url.password = "";
  for (const name of [...url.searchParams.keys()]) if (SECRET_PARAM.test(name)) url.searchParams.delete(name);
  url.hash = "";
  return url.toString().replace(/\/+$/, "").replace(/\/\?/, "?");
}
