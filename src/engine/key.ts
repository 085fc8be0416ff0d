import { createHash } from "node:crypto";
import type { CompletionRequest } from "../providers/types.js";

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
  return createHash("sha256").update(canonicalJson(body)).digest("hex");
}

/**
 * JSON with object keys sorted at every depth and undefined members dropped; equal values give equal text.
 * Written out directly (no sorted copy, then `JSON.stringify`): this is on every cache lookup's
 * path and the copy doubled its cost. The text is byte-identical to `JSON.stringify` of a sorted
 * copy, including its ordering of integer-like keys first, so existing cache keys stay valid.
 */
export function canonicalJson(value: unknown): string {
  return write(value) ?? "null";
}

function write(value: unknown): string | undefined {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
    case "boolean":
    case "bigint": // JSON.stringify throws for a bigint, as before
      return JSON.stringify(value);
    case "object":
      break;
    default:
      return undefined; // undefined, functions and symbols are dropped
  }
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i > 0 ? "," : "") + (write(value[i]) ?? "null");
    return `${out}]`;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return write((value as { toJSON(): unknown }).toJSON());
  let out = "";
  for (const k of orderedKeys(Object.keys(value))) {
    const text = write((value as Record<string, unknown>)[k]);
    if (text !== undefined) out += `${out ? "," : ""}${JSON.stringify(k)}:${text}`;
  }
  return `{${out}}`;
}

const INDEX = /^(?:0|[1-9]\d{0,9})$/;

/** Sorted keys in the order JSON.stringify lists an object built in that order: array-index keys first, ascending. */
function orderedKeys(keys: string[]): string[] {
  keys.sort();
  if (!keys.some((k) => INDEX.test(k) && Number(k) < 4294967295)) return keys;
  const isIndex = (k: string) => INDEX.test(k) && Number(k) < 4294967295;
  return [...keys.filter(isIndex).sort((a, b) => Number(a) - Number(b)), ...keys.filter((k) => !isIndex(k))];
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
