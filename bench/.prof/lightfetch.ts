import http from "node:http";
import https from "node:https";
const agents = { "http:": new http.Agent({ keepAlive: true, maxSockets: Infinity }), "https:": new https.Agent({ keepAlive: true, maxSockets: Infinity }) };
export async function lightFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  const mod = url.protocol === "https:" ? https : http;
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((v, k) => (headers[k] = v));
  const body = init.body as string | undefined;
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = mod.request(url, { method: init.method ?? "GET", headers, agent: agents[url.protocol as "http:"], signal: init.signal ?? undefined }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(", ") : v);
        resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, statusText: res.statusMessage, headers: h }));
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}
