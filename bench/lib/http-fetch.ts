/**
 * A minimal `fetch` over `node:http(s)` with keep-alive agents, for the throughput benchmark's
 * transport comparison: the OpenAI SDK's default (Node's undici fetch, a WHATWG streams body
 * pipeline) costs about a quarter more CPU per call. Buffers whole bodies; no streaming.
 */
import http from "node:http";
import https from "node:https";

const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

/** `fetch` for non-streaming JSON APIs. */
export async function httpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((v, k) => (headers[k] = v));
  const body = typeof init.body === "string" ? init.body : undefined;
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  const mod = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(url, { method: init.method ?? "GET", headers, agent: agents[url.protocol as "http:"], signal: init.signal ?? undefined }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        if (!res.complete) return reject(Object.assign(new TypeError("terminated"), { cause: { code: "ECONNRESET" } }));
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(", ") : v);
        resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, statusText: res.statusMessage, headers: h }));
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}
