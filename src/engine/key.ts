import type { CompletionRequest } from "../providers/types.js";
import { canonicalJson } from "../text/canonical-json.js";
import { sha256Hex } from "../text/sha256.js";

export { canonicalJson };

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
    baseURL: parts.baseURL === undefined ? undefined : sanitizedOnce(parts.baseURL),
    request: parts.request,
    voteIndex: parts.voteIndex ?? 0,
    extra: parts.extra,
  };
  return sha256Hex(canonicalJson(body));
}

const sanitized = new Map<string, string>();

/** `sanitizeBaseURL`, remembered: a process talks to a handful of servers, and URL parsing is on every lookup. */
function sanitizedOnce(baseURL: string): string {
  let clean = sanitized.get(baseURL);
  if (clean === undefined) {
    if (sanitized.size >= 64) sanitized.clear();
    sanitized.set(baseURL, (clean = sanitizeBaseURL(baseURL)));
  }
  return clean;
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
