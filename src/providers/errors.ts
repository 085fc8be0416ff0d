/**
 * One mapping from whatever the OpenAI and Anthropic SDKs throw to `RubricateError`, so the
 * scheduler branches on codes and `retryable` only. Both SDKs are Stainless-generated and share
 * class names and fields, so the mapping goes by name and shape rather than `instanceof` per SDK.
 */
import type { CompletionResponse } from "./types.js";
import { RubricateError } from "../errors.js";

/** What the adapter knows about a failed call besides the thrown value. */
export interface ErrorContext {
  /** "openai", "anthropic", ... for messages. */
  provider: string;
  /** Values that must never appear in a message (the API key). */
  secrets?: string[];
  /** Our per-call deadline fired (the SDK then reports a user abort or an AbortError). */
  timedOut?: boolean;
  /** The caller's signal fired. */
  aborted?: boolean;
  timeoutMs?: number;
}

const KEY_LIKE = /\b(sk-(?:ant-)?[A-Za-z0-9_-]{6,}|Bearer\s+[A-Za-z0-9._~+/=-]{8,})/g;

/** Removes the given secrets and anything shaped like an API key or bearer token from a text. */
export function scrubSecrets(text: string, secrets: string[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join("[redacted]");
  return out.replace(KEY_LIKE, "[redacted]");
}

/**
 * A response with every occurrence of the given secrets (the API key the call was made with)
 * replaced by "[redacted]": a model that echoes the key must not put it in the cache, the results
 * or a report. Only exact secrets: a judge quoting a key-shaped string from a sample is left alone.
 */
export function scrubResponse(response: CompletionResponse, secrets: string[]): CompletionResponse {
  const live = secrets.filter((s) => s && s.length >= 4);
  if (live.length === 0) return response;
  const clean = (t: string) => {
    let out = t;
    for (const s of live) if (out.includes(s)) out = out.split(s).join("[redacted]");
    return out;
  };
  const out: CompletionResponse = { ...response, text: clean(response.text) };
  if (response.refusal !== undefined) out.refusal = clean(response.refusal);
  if (response.toolCalls) out.toolCalls = response.toolCalls.map((c) => JSON.parse(clean(JSON.stringify(c))) as typeof c);
  return out;
}

/** Reads `retry-after-ms`, else `retry-after` (seconds or an HTTP date), as milliseconds. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Math.round(Number(ms));
  const ra = headers.get("retry-after");
  if (ra === null || ra.trim() === "") return undefined;
  const seconds = Number(ra);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

interface ApiErrorShape {
  name?: string;
  message: string;
  status?: number;
  headers?: { get(name: string): string | null };
  requestID?: string | null;
  /** Anthropic only: the body's error.message and error.type, cleaner than its JSON message. */
  apiMessage?: string | null;
  type?: string | null;
}

function isApiError(e: unknown): e is Error & ApiErrorShape {
  return e instanceof Error && typeof (e as ApiErrorShape).status === "number";
}

const SDK_CLASSES = { APIConnectionTimeoutError: "timeout", APIConnectionError: "connection", APIUserAbortError: "abort" } as const;

/**
 * Which SDK class (of either SDK) an error is, by the class names on its prototype chain, nearest
 * first, as timeouts extend connection errors. By name rather than `instanceof`: the SDKs load only
 * when a provider is built (importing them here would load both on `import "rubricate"`), and a
 * name matches whichever copy (ESM or CommonJS) threw.
 */
function sdkClass(e: unknown): "timeout" | "connection" | "abort" | undefined {
  if (!(e instanceof Error)) return undefined;
  for (let proto = Object.getPrototypeOf(e); proto && proto !== Error.prototype; proto = Object.getPrototypeOf(proto)) {
    const name: unknown = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === "string" && Object.hasOwn(SDK_CLASSES, name)) return SDK_CLASSES[name as keyof typeof SDK_CLASSES];
  }
  return undefined;
}

function networkCode(e: unknown): string | undefined {
  // undici nests the socket error: TypeError("terminated" | "fetch failed") -> cause { code }.
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string" && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Maps an SDK (or fetch) error to a `RubricateError` with a scrubbed message.
 * 429 → RATE_LIMITED (retryAfterMs); 408/409/5xx/529 → PROVIDER_HTTP retryable; other 4xx →
 * PROVIDER_HTTP final; timeouts → PROVIDER_TIMEOUT; resets → PROVIDER_NETWORK; abort → ABORTED;
 * an unparseable body → PROVIDER_HTTP retryable (a proxy or a cut connection, worth another try).
 */
export function toProviderError(e: unknown, ctx: ErrorContext): RubricateError {
  if (e instanceof RubricateError) return e;
  // Our own fetch's verdict (e.g. an oversized body), wrapped by the SDK as a connection error.
  const cause = (e as { cause?: unknown } | undefined)?.cause;
  if (cause instanceof RubricateError && !ctx.aborted && !ctx.timedOut) return cause;
  const p = ctx.provider;
  const clean = (s: string) => scrubSecrets(s, ctx.secrets);
  // The caller's abort wins over our deadline: they asked to stop, retrying would be wrong.
  if (ctx.aborted) return new RubricateError("ABORTED", `${p}: request aborted`);
  if (ctx.timedOut) return new RubricateError("PROVIDER_TIMEOUT", `${p}: no answer within ${ctx.timeoutMs ?? "?"} ms`, { retryable: true });
  const cls = sdkClass(e);
  if (cls === "timeout") return new RubricateError("PROVIDER_TIMEOUT", `${p}: request timed out`, { retryable: true });
  if (cls === "abort" || (e instanceof Error && e.name === "AbortError"))
    return new RubricateError("ABORTED", `${p}: request aborted`);
  if (cls === "connection") {
    const code = networkCode(e);
    return new RubricateError("PROVIDER_NETWORK", clean(`${p}: connection failed${code ? ` (${code})` : ""}: ${(e as Error).message}`), {
      retryable: true,
    });
  }
  if (isApiError(e)) {
    const status = e.status as number;
    const rid = e.requestID ? ` [request ${e.requestID}]` : "";
    const detail = e.apiMessage ? `${status} ${e.type ? `${e.type}: ` : ""}${e.apiMessage}` : e.message;
    const msg = clean(`${p}: HTTP ${detail}${rid}`);
    if (status === 429) {
      return new RubricateError("RATE_LIMITED", msg, { retryable: true, status, retryAfterMs: parseRetryAfter(e.headers) });
    }
    const retryable = status === 408 || status === 409 || status >= 500;
    const retryAfterMs = retryable ? parseRetryAfter(e.headers) : undefined;
    return new RubricateError("PROVIDER_HTTP", msg, { retryable, status, retryAfterMs });
  }
  if (e instanceof SyntaxError) {
    return new RubricateError("PROVIDER_HTTP", clean(`${p}: response body is not valid JSON: ${e.message.slice(0, 200)}`), {
      retryable: true,
    });
  }
  const code = networkCode(e);
  if (code || (e instanceof TypeError && /terminated|fetch failed|socket|network/i.test(e.message))) {
    return new RubricateError("PROVIDER_NETWORK", clean(`${p}: connection lost${code ? ` (${code})` : ""}: ${(e as Error).message}`), {
      retryable: true,
    });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new RubricateError("INTERNAL", clean(`${p}: ${message}`));
}

/** The error for a 200 answer whose body is not the object the API promises (e.g. an HTML page). */
export function malformedResponse(provider: string, what: string): RubricateError {
  return new RubricateError("PROVIDER_HTTP", `${provider}: malformed response (${what})`, { retryable: true, status: 200 });
}

/** Every step of an iteration (list pages after the first, lines of a streamed body) through `guard`. */
export async function* guardedSteps<T>(iterable: AsyncIterable<T>, guard: <R>(run: () => Promise<R>) => Promise<R>): AsyncGenerator<T> {
  const iterator = iterable[Symbol.asyncIterator]();
  try {
    for (;;) {
      const step = await guard(() => iterator.next());
      if (step.done) return;
      yield step.value;
    }
  } finally {
    await iterator.return?.().catch(() => undefined);
  }
}
