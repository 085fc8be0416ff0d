import http from "node:http";
import type https from "node:https";
import { createRequire } from "node:module";

import { RubricateError } from "../errors.js";
import { DeadlineError } from "./call.js";

/**
 * Largest response body read for a request that sends one (a completion): a judge answer is a few
 * kilobytes, and a server streaming hundreds of megabytes must not take the process's memory.
 * Downloads (GET, e.g. batch result files) are not capped. `RUBRICATE_MAX_RESPONSE_MB` overrides.
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** How requests of one protocol go out: node:http(s)'s `request` and the protocol's keep-alive pool. */
export interface Transport {
  request: typeof http.request;
  agent: http.Agent;
}

const transports: Partial<Record<"http:" | "https:", Transport>> = {};
const requireBuiltin = createRequire(import.meta.url);

/**
 * The transport of a protocol, shared by the live and the batch fetch: one keep-alive pool each.
 * node:https (and TLS with it, ~12 ms of a start-up's CPU) loads on the first https request, so a
 * run against a local http judge never loads it.
 */
export function transport(protocol: "http:" | "https:"): Transport {
  return (transports[protocol] ??= protocol === "https:" ? httpsTransport() : { request: http.request, agent: new http.Agent({ keepAlive: true }) });
}

function httpsTransport(): Transport {
  const { request, Agent } = requireBuiltin("node:https") as typeof https;
  return { request: request as typeof http.request, agent: new Agent({ keepAlive: true }) };
}

/**
 * A request's headers as node:http takes them, with the content length of a string body. The
 * SDKs hand over a `Headers`; it is read in place rather than copied into another one (a copy per
 * call was a measurable part of the per-call CPU, BENCHMARKS.md).
 */
export function requestHeaders(init: RequestInit): Record<string, string> {
  const headers = plainHeaders(init.headers);
  if (typeof init.body === "string") headers["content-length"] = String(Buffer.byteLength(init.body));
  return headers;
}

/**
 * True of a `Headers` of any kind (undici's, or the bundled SDK's stand-in, sdk-web.ts), told
 * apart by tag: `instanceof Headers` would load undici. Not imported from sdk-web.ts, which then
 * stays inside the SDK's own chunk rather than a chunk of its own that the package root reads.
 */
const isHeaders = (value: unknown): value is Headers => Object.prototype.toString.call(value) === "[object Headers]";

/**
 * Fetch headers as a plain object of lower-case names, read in place when they are a `Headers`
 * (the SDKs' own, sdk-web.ts, or undici's: told apart by tag, as `instanceof Headers` would load undici).
 */
function plainHeaders(given: RequestInit["headers"]): Record<string, string> {
  const headers: Record<string, string> = {};
  const source = given === undefined || isHeaders(given) ? given : new Headers(given);
  source?.forEach((value, key) => (headers[key] = value));
  return headers;
}

/** A node:http response's headers as a fetch `Headers` (repeated ones joined with ", ", as `NodeHeaders` reads them). */
export function responseHeaders(headers: http.IncomingHttpHeaders): Headers {
  return new Headers([...new NodeHeaders(headers)]);
}

/**
 * A `fetch` for the SDKs over `node:http(s)` with keep-alive agents. Node's global fetch
 * (undici) pushes every body through WHATWG streams and costs about a quarter more CPU per call,
 * which is what caps throughput at high concurrency (BENCHMARKS.md). JSON requests take this
 * path; anything else (file uploads, streams, `Request` objects) goes to the global fetch.
 * `RUBRICATE_HTTP=fetch` in the environment forces the global fetch everywhere.
 * @example new OpenAI({ fetch: nodeHttpFetch })
 */
export const nodeHttpFetch: typeof fetch = async (input, init = {}) => {
  const plainBody = init.body === undefined || init.body === null || typeof init.body === "string";
  // A `Request` is told apart from a URL without naming the global, which would load undici.
  const isRequest = typeof input !== "string" && !(input instanceof URL);
  if (process.env.RUBRICATE_HTTP === "fetch" || isRequest || !plainBody) return fetch(input, init);
  const target = requestTarget(input as string | URL);
  if (!target) return fetch(input, init);
  // Encoded once: its length is the content length, and node:http writes the bytes as they are
  // (a string body was scanned for its byte length, then encoded again on the socket).
  const body = typeof init.body === "string" ? Buffer.from(init.body) : undefined;
  const headers = plainHeaders(init.headers);
  if (body) headers["content-length"] = String(body.length);
  const method = init.method ?? "GET";
  const res = await sendBuffered(target, { method, headers, body, signal: init.signal ?? undefined, limit: method === "GET" ? Number.POSITIVE_INFINITY : responseLimit() });
  const nullBody = res.status === 204 || res.status === 304;
  const isJson = /\bjson\b/i.test(String(res.headers["content-type"] ?? ""));
  if (nullBody || isJson) return new BufferedResponse(target.href, res.status, res.statusText, new NodeHeaders(res.headers), nullBody ? null : res.body) as unknown as Response;
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers: responseHeaders(res.headers) });
};

/** The largest response body read for a request that sends one (`RUBRICATE_MAX_RESPONSE_MB`, else `MAX_RESPONSE_BYTES`). */
export function responseLimit(): number {
  return Number(process.env.RUBRICATE_MAX_RESPONSE_MB) * 1024 * 1024 || MAX_RESPONSE_BYTES;
}

/** A whole answer read into memory, as node:http gave it. */
export interface BufferedAnswer {
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request for `sendBuffered`. */
export interface BufferedRequest {
  method: string;
  headers: http.OutgoingHttpHeaders;
  body: Buffer | undefined;
  signal: AbortSignal | undefined;
  /** The most bytes of answer read. */
  limit: number;
  /** Gives up after this long, with a `DeadlineError`. */
  timeoutMs?: number;
}

/**
 * Sends one request whose body is in memory over the keep-alive agents and reads the whole answer,
 * at most `limit` bytes of it. Settles once: with the answer, or with the socket's error, a body
 * cut short (a TypeError "terminated" with ECONNRESET, as undici reports it: retryable), an
 * oversized body (not retryable), the signal's abort (an AbortError) or the deadline (a
 * `DeadlineError`). The deadline is a timer here rather than one more signal to follow: an
 * AbortController and its listener per call were a measurable part of a call's CPU.
 */
export function sendBuffered(target: RequestTarget, { method, headers, body, signal, limit, timeoutMs }: BufferedRequest): Promise<BufferedAnswer> {
  return new Promise<BufferedAnswer>((resolveCall, rejectCall) => {
    // One abort listener of our own, removed when the call settles, rather than http.request's
    // `signal` option, which also sets up a stream-end watcher per request to remove its listener.
    // The call settles with the abort or the deadline itself, whatever error the socket reports next.
    const stop = (reason: Error) => {
      reject(reason);
      request.destroy(reason);
    };
    const onAbort = () => stop(abortError(signal!));
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => stop(new DeadlineError(timeoutMs)), timeoutMs);
    const settle = () => {
      signal?.removeEventListener("abort", onAbort);
      if (timer) clearTimeout(timer);
    };
    const resolve = (answer: BufferedAnswer) => {
      settle();
      resolveCall(answer);
    };
    const reject = (error: unknown) => {
      settle();
      rejectCall(error);
    };
    const { request: send, agent } = transport(target.protocol);
    const request = send({ ...target.options, method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      let received = 0;
      res.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received > limit) {
          res.destroy();
          // Not retryable: the same server would send the same again.
          reject(new RubricateError("PROVIDER_HTTP", `${target.options.host}: response body over ${Math.round(limit / 1024 / 1024)} MB, not read further (RUBRICATE_MAX_RESPONSE_MB raises the limit)`, { retryable: false }));
          return;
        }
        chunks.push(chunk);
      });
      res.on("error", reject);
      res.on("end", () => {
        if (received > limit) return;
        // A body cut short is a network failure (retryable), as undici reports it.
        if (!res.complete) return reject(Object.assign(new TypeError("terminated"), { cause: { code: "ECONNRESET" } }));
        const buffer = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 502, statusText: res.statusMessage ?? "", headers: res.headers, body: buffer });
      });
    });
    request.on("error", reject);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    request.end(body);
  });
}

/** The error node:http destroys an aborted request with (its `signal` option's), so callers see the same. */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error("The operation was aborted", { cause: signal.reason }), { name: "AbortError", code: "ABORT_ERR" });
}

/** Where a request goes, as node:http takes it, with the protocol picked out. */
export interface RequestTarget {
  href: string;
  protocol: "http:" | "https:";
  options: { protocol: string; host: string; hostname: string; port: string; path: string; auth?: string };
}

/** Parsed targets by URL string: the SDKs call the same few URLs again and again. */
const targets = new Map<string, RequestTarget>();
const MAX_TARGETS = 256;

/** The http(s) target of a URL (parsed once per distinct string), or undefined for another protocol. */
export function requestTarget(input: string | URL): RequestTarget | undefined {
  const key = String(input);
  const known = targets.get(key);
  if (known) return known;
  const url = new URL(key);
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  // Square brackets are for URLs only: node:http connects to the bare IPv6 address.
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const auth = url.username || url.password ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined;
  const target: RequestTarget = {
    href: url.href,
    protocol: url.protocol,
    options: { protocol: url.protocol, host: url.host, hostname, port: url.port, path: `${url.pathname}${url.search}`, ...(auth ? { auth } : {}) },
  };
  if (targets.size >= MAX_TARGETS) targets.clear();
  targets.set(key, target);
  return target;
}

/**
 * A node:http response's headers behind the read side of the fetch `Headers` API, read in place
 * (repeated ones joined with ", "; `responseHeaders` copies them into a real `Headers`). Building
 * an undici `Headers` for every answer was a measurable part of the per-call CPU; the SDKs only
 * read these.
 */
export class NodeHeaders {
  constructor(private readonly raw: http.IncomingHttpHeaders) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
  }

  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }

  getSetCookie(): string[] {
    return this.raw["set-cookie"] ?? [];
  }

  forEach(fn: (value: string, key: string, headers: NodeHeaders) => void): void {
    for (const [key, value] of this.pairs()) fn(value, key, this);
  }

  /** Name and value pairs sorted by name, as `Headers` iterates (the OpenAI SDK spreads them on every call). */
  entries(): IterableIterator<[string, string]> {
    return this.pairs()[Symbol.iterator]();
  }

  keys(): IterableIterator<string> {
    return this.pairs().map(([key]) => key)[Symbol.iterator]();
  }

  values(): IterableIterator<string> {
    return this.pairs().map(([, value]) => value)[Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  /** The pairs as an array: a plain loop, where generators allocated a frame and a result per header. */
  private pairs(): [string, string][] {
    const out: [string, string][] = [];
    for (const key of Object.keys(this.raw).sort()) {
      const value = this.get(key);
      if (value !== null) out.push([key, value]);
    }
    return out;
  }
}

/**
 * A fetch response whose body is already in memory (JSON, or none for 204/304): what both SDKs
 * read of a non-streaming answer (status, ok, url, headers, text(), json(), a null `body`), without
 * the undici `Response` and `Headers` built per call (BENCHMARKS.md). Streams and files keep a
 * real Response. Not a `class … extends Response`: naming the global `Response` at module load
 * makes Node load undici (~50 ms), which `import "rubricate"` must not pay.
 */
export class BufferedResponse {
  readonly type = "basic";
  readonly redirected = false;
  readonly body = null;
  readonly bodyUsed = false;
  readonly ok: boolean;

  constructor(
    readonly url: string,
    readonly status: number,
    readonly statusText: string,
    readonly headers: NodeHeaders,
    private readonly buffer: Buffer | null,
  ) {
    this.ok = status >= 200 && status < 300;
  }

  async text(): Promise<string> {
    return this.buffer ? this.buffer.toString("utf8") : "";
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.buffer ?? Buffer.alloc(0);
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.arrayBuffer());
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.arrayBuffer()], { type: this.headers.get("content-type") ?? "" });
  }

  clone(): BufferedResponse {
    return new BufferedResponse(this.url, this.status, this.statusText, this.headers, this.buffer);
  }
}
