/**
 * Shared machinery of the local wire-format servers: fault planning (seeded, scripted or by
 * rate), an RPM limiter, request recording with secrets redacted, and response writers for
 * JSON, broken bodies and SSE. Provider files only shape bodies.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createHash } from "node:crypto";
import { seededRandom } from "../../stats/rng.js";

/** What a server may do to one request instead of (or besides) answering it well. */
export type FaultKind =
  | "none"
  | "429"
  | "500"
  | "529"
  | "hang"
  | "reset"
  | "drop"
  | "truncated"
  | "garbage"
  | "html"
  | "refusal";

/** One tool call in a scripted reply; `arguments` may be an object (serialised) or raw text. */
export interface ReplyToolCall {
  id?: string;
  name: string;
  arguments: string | Record<string, unknown>;
}

/** What the test's `respond` callback returns: plain text, or a fuller description of the answer. */
export type Reply =
  | string
  | {
      text?: string;
      toolCalls?: ReplyToolCall[];
      refusal?: string;
      finishReason?: string;
      /** Explicit logprobs for the text's tokens; when absent and asked for, tokens are synthesised. */
      logprobs?: { token: string; logprob: number; top?: { token: string; logprob: number }[] }[];
      /** Overrides the simulated usage; `cached` is OpenAI cached_tokens / Anthropic cache_read_input_tokens. */
      usage?: { input?: number; output?: number; cached?: number; cacheWrite?: number };
      /** Force this fault for this request (overrides the plan). */
      fault?: FaultKind;
    };

/** One request as the server saw it; credentials are never stored, only whether they were sent. */
export interface RecordedRequest {
  index: number;
  method: string;
  path: string;
  /** Lower-cased headers; `authorization` and `x-api-key` values replaced by "[redacted]". */
  headers: Record<string, string>;
  /** True when an `authorization` or `x-api-key` header was present and non-empty. */
  apiKeySent: boolean;
  body: unknown;
  /** The fault the server applied. */
  fault: FaultKind;
}

/** Fault injection and timing, shared by both servers. */
export interface FaultOptions {
  /** Added before answering: a number, or [min, max] drawn from the seeded PRNG. */
  latencyMs?: number | [number, number];
  /** Probability of each fault per request (checked in a fixed order, first hit wins). */
  rates?: Partial<Record<Exclude<FaultKind, "none">, number>>;
  /** Scripted faults: request i gets sequence[i]; past its end the rates apply. */
  sequence?: FaultKind[];
  /** Seed of the PRNG behind rates and latency ranges (default 1), so runs are reproducible. */
  seed?: number;
  /** `retry-after` seconds sent with 429/529 (default 1); `retryAfterMs` adds `retry-after-ms`. */
  retryAfterSeconds?: number;
  retryAfterMs?: number;
  /** Requests per minute before answering 429 (sliding 60 s window). */
  rpm?: number;
  /** When set, requests must carry this key (Bearer or x-api-key) or get a 401. */
  expectedApiKey?: string;
}

/** The library's seeded PRNG, so fault schedules and latencies are reproducible. */
export { seededRandom } from "../../stats/rng.js";

const FAULT_ORDER: Exclude<FaultKind, "none">[] = ["429", "500", "529", "hang", "reset", "drop", "truncated", "garbage", "html", "refusal"];

/** Decides each request's fault and latency from FaultOptions; `set` swaps options at run time. */
export class FaultPlan {
  private random: () => number;
  private window: number[] = [];
  /** Index of the first request under the current options: sequences restart at each `set`. */
  private offset = 0;
  constructor(public options: FaultOptions = {}) {
    this.random = seededRandom(options.seed ?? 1);
  }
  /** Replaces the options (and reseeds), keeping the request count. */
  set(options: FaultOptions, atIndex = 0): void {
    this.options = options;
    this.offset = atIndex;
    this.random = seededRandom(options.seed ?? 1);
    this.window = [];
  }
  /** The fault for request number `index` (0-based). */
  pick(index: number): FaultKind {
    const seq = this.options.sequence;
    const i = index - this.offset;
    if (seq && i < seq.length) return seq[i];
    const rates = this.options.rates;
    if (!rates) return "none";
    for (const kind of FAULT_ORDER) {
      const p = rates[kind];
      if (p !== undefined && p > 0 && this.random() < p) return kind;
    }
    return "none";
  }
  /** Milliseconds to wait before answering. */
  latency(): number {
    const l = this.options.latencyMs;
    if (l === undefined) return 0;
    if (typeof l === "number") return l;
    return l[0] + this.random() * (l[1] - l[0]);
  }
  /** Seconds until a slot frees when over `rpm`, else undefined (and the request is counted). */
  overRpm(now = Date.now()): number | undefined {
    const rpm = this.options.rpm;
    if (!rpm) return undefined;
    while (this.window.length > 0 && now - this.window[0] >= 60_000) this.window.shift();
    if (this.window.length >= rpm) return Math.max(1, Math.ceil((60_000 - (now - this.window[0])) / 1000));
    this.window.push(now);
    return undefined;
  }
  /** Headers telling the client when to come back. */
  retryHeaders(seconds?: number): Record<string, string> {
    const h: Record<string, string> = { "retry-after": String(seconds ?? this.options.retryAfterSeconds ?? 1) };
    if (this.options.retryAfterMs !== undefined) h["retry-after-ms"] = String(this.options.retryAfterMs);
    return h;
  }
}

/**
 * Reads and parses a JSON request body (undefined when empty or not JSON). Data and end events
 * rather than `for await`: the stream's async iterator (and its end-of-stream watcher) cost the
 * benchmark server a measurable share of its CPU per request (BENCHMARKS.md, issue 31).
 */
export function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("error", reject);
    req.on("end", () => {
      const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString("utf8");
      if (!text) return resolve(undefined);
      try {
        resolve(JSON.parse(text));
      } catch {
        resolve(text);
      }
    });
  });
}

/**
 * Records a request without its credentials. The header copy is made when a test first reads
 * it: most requests of a benchmark are only counted, never read.
 */
export function record(req: IncomingMessage, index: number, body: unknown, fault: FaultKind): RecordedRequest {
  const raw = req.headers;
  const apiKeySent = [raw.authorization, raw["x-api-key"]].some((v) => v !== undefined && String(v).replace(/^Bearer\s*/i, "") !== "");
  let headers: Record<string, string> | undefined;
  return {
    index,
    method: req.method ?? "",
    path: (req.url ?? "").split("?")[0],
    get headers() {
      return (headers ??= redactedHeaders(raw));
    },
    set headers(value) {
      headers = value;
    },
    apiKeySent,
    body,
    fault,
  };
}

/** A request's headers as strings, with credentials replaced by "[redacted]". */
function redactedHeaders(raw: IncomingMessage["headers"]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    const value = Array.isArray(v) ? v.join(", ") : (v ?? "");
    headers[k] = k === "authorization" || k === "x-api-key" ? "[redacted]" : value;
  }
  return headers;
}

/** The key a request carried, read for the comparison only and never kept. */
export function presentedKey(req: IncomingMessage): string {
  const x = req.headers["x-api-key"];
  if (typeof x === "string" && x) return x;
  return (req.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
}

/** Writes a JSON body with the given status and headers. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** Applies the body-level faults shared by both APIs; returns true when it handled the response. */
export function sendBrokenBody(res: ServerResponse, fault: FaultKind, goodBody: unknown, headers: Record<string, string>): boolean {
  if (fault === "truncated") {
    const text = JSON.stringify(goodBody);
    const cut = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
    // A correct content-length for the cut text: the client gets a complete but invalid JSON body.
    res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(cut)), ...headers });
    res.end(cut);
    return true;
  }
  if (fault === "garbage") {
    const text = "<html><body>502 Bad Gateway</body></html> not json";
    res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers });
    res.end(text);
    return true;
  }
  if (fault === "html") {
    // A proxy's error page with a 200 and the wrong content type: the SDKs hand back a string.
    const text = "<html><body>upstream unavailable</body></html>";
    res.writeHead(200, { "content-type": "text/html", "content-length": String(Buffer.byteLength(text)), ...headers });
    res.end(text);
    return true;
  }
  if (fault === "reset") {
    // Headers and half the body go out, then the socket dies: a reset mid-response.
    const text = JSON.stringify(goodBody);
    res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers });
    res.write(text.slice(0, Math.floor(text.length / 2)), () => res.socket?.destroy());
    return true;
  }
  return false;
}

/** Starts an SSE response. */
export function startSse(res: ServerResponse, headers: Record<string, string>): (event: string | null, data: unknown) => void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", ...headers });
  return (event, data) => {
    const payload = typeof data === "string" ? data : JSON.stringify(data);
    res.write(`${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`);
  };
}

/** A rough token count (4 characters a token), cheap enough for benchmarks. */
export function roughTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Splits a text into token-like pieces (words with their leading space, and punctuation). */
export function pseudoTokens(text: string): string[] {
  return text.match(/\s*[A-Za-z0-9_]+|\s*[^A-Za-z0-9_\s]|\s+$/g) ?? [];
}

/** A short random-looking id with a provider prefix. */
export function makeId(prefix: string, n: number): string {
  return `${prefix}${n.toString(36).padStart(8, "0")}${Math.random().toString(36).slice(2, 10)}`;
}

/** Normalises a Reply to its object form. */
export function normalizeReply(r: Reply): Exclude<Reply, string> {
  return typeof r === "string" ? { text: r } : r;
}

/** A running test server. */
export interface TestServer<B> {
  url: string;
  /** Every request, in arrival order (bodies omitted when `recordBodies` is false). */
  requests: RecordedRequest[];
  /**
   * Counters kept even without bodies, for benchmarks: requests seen, faults applied, requests
   * received and not yet answered, and the most of those at once (a benchmark resets `peakInFlight`
   * to `inFlight` before a run, to check the client kept to its concurrency).
   */
  stats: { requests: number; faults: Partial<Record<FaultKind, number>>; inFlight: number; peakInFlight: number };
  /** Swaps fault options (and optionally the responder) at run time. */
  setBehavior(b: Partial<B>): void;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:0 and tracks sockets so `close` never waits on a hung request. */
export async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer(handler);
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return { server, url: `http://127.0.0.1:${port}`, close };
}

/** Resolves after `ms` (immediately for 0, to keep fast paths fast). */
export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}

/** Remembers prompt prefixes to imitate provider prompt caches; bounded so benchmarks stay flat. */
export class PrefixCache {
  private seen = new Set<string>();
  constructor(private readonly limit = 50_000) {}
  /** True when `key` was seen before; remembers it either way. */
  hit(text: string): boolean {
    const key = createHash("sha1").update(text).digest("base64");
    if (this.seen.has(key)) return true;
    if (this.seen.size >= this.limit) this.seen.clear();
    this.seen.add(key);
    return false;
  }
}
