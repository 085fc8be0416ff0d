import http from "node:http";
import https from "node:https";

import { RubricateError } from "../errors.js";

/**
 * Largest response body read for a request that sends one (a completion): a judge answer is a few
 * kilobytes, and a server streaming hundreds of megabytes must not take the process's memory.
 * Downloads (GET, e.g. batch result files) are not capped. `RUBRICATE_MAX_RESPONSE_MB` overrides.
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Keep-alive connection pools, one per protocol, shared by the live and the batch fetch. */
export const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

/** A request's headers as node:http takes them, with the content length of a string body. */
export function requestHeaders(init: RequestInit): Record<string, string> {
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, key) => (headers[key] = value));
  if (typeof init.body === "string") headers["content-length"] = String(Buffer.byteLength(init.body));
  return headers;
}

/** A node:http response's headers as a fetch `Headers` (repeated ones joined with ", "). */
export function responseHeaders(res: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(", ") : value);
  return headers;
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
  if (process.env.RUBRICATE_HTTP === "fetch" || input instanceof Request || !plainBody) return fetch(input, init);
  const url = new URL(input as string | URL);
  if (url.protocol !== "http:" && url.protocol !== "https:") return fetch(input, init);
  const headers = requestHeaders(init);
  const body = init.body as string | undefined | null;
  const client = url.protocol === "https:" ? https : http;
  return new Promise<Response>((resolve, reject) => {
    const method = init.method ?? "GET";
    const limit = method === "GET" ? Number.POSITIVE_INFINITY : Number(process.env.RUBRICATE_MAX_RESPONSE_MB) * 1024 * 1024 || MAX_RESPONSE_BYTES;
    const request = client.request(url, { method, headers, agent: agents[url.protocol as "http:"], signal: init.signal ?? undefined }, (res) => {
      const chunks: Buffer[] = [];
      let received = 0;
      res.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received > limit) {
          res.destroy();
          // Not retryable: the same server would send the same again.
          reject(new RubricateError("PROVIDER_HTTP", `${url.host}: response body over ${Math.round(limit / 1024 / 1024)} MB, not read further (RUBRICATE_MAX_RESPONSE_MB raises the limit)`, { retryable: false }));
          return;
        }
        chunks.push(chunk);
      });
      res.on("error", reject);
      res.on("end", () => {
        if (received > limit) return;
        // A body cut short is a network failure (retryable), as undici reports it.
        if (!res.complete) return reject(Object.assign(new TypeError("terminated"), { cause: { code: "ECONNRESET" } }));
        const status = res.statusCode ?? 502;
        const init = { status, statusText: res.statusMessage, headers: responseHeaders(res) };
        const nullBody = status === 204 || status === 304;
        const isJson = /\bjson\b/i.test(String(res.headers["content-type"] ?? ""));
        resolve(nullBody ? new Response(null, init) : isJson ? bufferedJsonResponse(Buffer.concat(chunks), init) : new Response(Buffer.concat(chunks), init));
      });
    });
    request.on("error", reject);
    request.end(body ?? undefined);
  });
};

/**
 * A JSON response whose body is already in memory: `json()` and `text()` read the buffer
 * directly instead of through a web stream (the SDKs call only these for JSON). Its `body` is
 * null, which both SDKs accept for non-streaming calls; streams and files get a plain Response.
 * A function rather than a `class … extends Response`: naming the global `Response` at module
 * load makes Node load undici (~50 ms), which `import "rubricate"` must not pay.
 */
function bufferedJsonResponse(buffer: Buffer, init: ResponseInit): Response {
  const text = async () => buffer.toString("utf8");
  // Own properties rather than methods: the DOM typings declare these as function-valued members.
  return Object.assign(new Response(null, init), {
    text,
    json: async () => JSON.parse(await text()),
    arrayBuffer: async () => buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength),
  });
}
