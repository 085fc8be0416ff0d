import http from "node:http";
import https from "node:https";

const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

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
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, key) => (headers[key] = value));
  const body = init.body as string | undefined | null;
  if (typeof body === "string") headers["content-length"] = String(Buffer.byteLength(body));
  const client = url.protocol === "https:" ? https : http;
  return new Promise<Response>((resolve, reject) => {
    const request = client.request(url, { method: init.method ?? "GET", headers, agent: agents[url.protocol as "http:"], signal: init.signal ?? undefined }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        // A body cut short is a network failure (retryable), as undici reports it.
        if (!res.complete) return reject(Object.assign(new TypeError("terminated"), { cause: { code: "ECONNRESET" } }));
        const responseHeaders = new Headers();
        for (const [key, value] of Object.entries(res.headers)) if (value !== undefined) responseHeaders.set(key, Array.isArray(value) ? value.join(", ") : value);
        const status = res.statusCode ?? 502;
        const nullBody = status === 204 || status === 304;
        resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage, headers: responseHeaders }));
      });
    });
    request.on("error", reject);
    request.end(body ?? undefined);
  });
};
