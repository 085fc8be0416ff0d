import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getEventListeners } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeHeaders, nodeHttpFetch, requestHeaders, responseHeaders } from "../../src/providers/http-fetch.js";

let server: Server;
let url: string;
const seen: { method?: string; body: string; type?: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method, body, type: req.headers["content-type"] });
      if (req.url === "/json") res.writeHead(201, { "content-type": "application/json", "x-request-id": "r1" }).end('{"ok":true,"n":2}');
      else if (req.url === "/text") res.writeHead(200, { "content-type": "text/plain" }).end("line 1\nline 2\n");
      else if (req.url === "/cut") {
        res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
        res.write('{"partial":');
        setTimeout(() => res.destroy(), 10);
      } else if (req.url === "/stall") {
        // Headers and half a body, then nothing: only an abort ends the call.
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"partial":');
      } else res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

describe("nodeHttpFetch", () => {
  it("sends JSON bodies with their length and reads JSON answers from the buffer", async () => {
    const res = await nodeHttpFetch(`${url}/json`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"q":"é"}' });
    expect(res.status).toBe(201);
    expect(res.ok).toBe(true);
    expect(res.headers.get("x-request-id")).toBe("r1");
    expect(await res.json()).toEqual({ ok: true, n: 2 });
    expect(seen.at(-1)).toEqual({ method: "POST", body: '{"q":"é"}', type: "application/json" });
  });

  it("gives other content types a readable body stream", async () => {
    const res = await nodeHttpFetch(`${url}/text`);
    const reader = res.body!.getReader();
    let text = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
    expect(text).toBe("line 1\nline 2\n");
  });

  it("answers 204 with no body", async () => {
    const res = await nodeHttpFetch(`${url}/empty`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });

  it("rejects a body cut short as a network failure, never as a short answer", async () => {
    // Node reports the reset itself ("aborted", ECONNRESET) or our end-of-body check does; both are network errors.
    const error = await nodeHttpFetch(`${url}/cut`).then(
      () => undefined,
      (e: { code?: string; cause?: { code?: string } }) => e,
    );
    expect(error?.code ?? error?.cause?.code).toBe("ECONNRESET");
  });

  it("an abort stops the call with an AbortError, before it starts or mid-body", async () => {
    const before = new AbortController();
    before.abort();
    await expect(nodeHttpFetch(`${url}/json`, { signal: before.signal })).rejects.toMatchObject({ name: "AbortError", code: "ABORT_ERR" });
    const during = new AbortController();
    const call = nodeHttpFetch(`${url}/stall`, { method: "POST", body: "{}", signal: during.signal });
    // Aborted once the server holds the request (it has sent headers and half a body by then).
    while (!seen.some((r) => r.body === "{}")) await new Promise((r) => setTimeout(r, 5));
    during.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError", code: "ABORT_ERR" });
    expect(getEventListeners(during.signal, "abort")).toHaveLength(0);
  });

  it("a settled call leaves no listener on its signal", async () => {
    const controller = new AbortController();
    await (await nodeHttpFetch(`${url}/json`, { method: "POST", body: "{}", signal: controller.signal })).json();
    await nodeHttpFetch(`${url}/cut`, { signal: controller.signal }).catch(() => undefined);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("sends uploads (non-string bodies) through the global fetch", async () => {
    const form = new FormData();
    form.append("purpose", "batch");
    const res = await nodeHttpFetch(`${url}/json`, { method: "POST", body: form });
    expect(await res.json()).toEqual({ ok: true, n: 2 });
    expect(seen.at(-1)?.type).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen.at(-1)?.body).toContain('name="purpose"');
  });
});

describe("response size cap", () => {
  it("a completion answer over the cap is a non-retryable PROVIDER_HTTP error, read no further", async () => {
    const { listen } = await import("../../src/testing/servers/common.js");
    const { createOpenAIProvider } = await import("../../src/providers/openai.js");
    let sent = 0;
    const srv = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (sent < 8 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end("{}");
      };
      res.on("close", () => undefined);
      pump();
    });
    process.env.RUBRICATE_MAX_RESPONSE_MB = "1";
    try {
      const provider = createOpenAIProvider({ apiKey: "sk-test-cap-000000", baseURL: `${srv.url}/v1` });
      const error = await provider.complete({ model: "m", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "PROVIDER_HTTP", retryable: false });
      expect(String((error as Error).message)).toMatch(/response body over 1 MB, not read further/);
    } finally {
      delete process.env.RUBRICATE_MAX_RESPONSE_MB;
      await srv.close();
    }
  });
});

describe("NodeHeaders (the light response's headers)", () => {
  // As node:http hands them over: lowercase names, set-cookie as a list.
  const raw = { "x-request-id": "r1", "content-type": "application/json", "set-cookie": ["a=1", "b=2"], "retry-after": "3", "a-first": "z" };
  const light = new NodeHeaders(raw);
  const undici = responseHeaders(raw);

  it("reads every header as an undici Headers built from the same response does, in any case", () => {
    for (const name of ["x-request-id", "X-Request-ID", "Content-Type", "set-cookie", "retry-after", "missing"]) {
      expect(light.get(name)).toBe(undici.get(name));
      expect(light.has(name)).toBe(undici.has(name));
    }
  });

  it("lists the same pairs in the same (sorted) order", () => {
    expect([...light.entries()]).toEqual([...undici.entries()]);
    expect([...light]).toEqual([...undici]);
    expect([...light.keys()]).toEqual([...undici.keys()]);
    const seen: string[] = [];
    light.forEach((value, key) => seen.push(`${key}=${value}`));
    expect(seen).toEqual([...undici.entries()].map(([k, v]) => `${k}=${v}`));
  });
});

describe("requestHeaders", () => {
  it("copies a Headers, a plain object and a pair list the same way, with the body's byte length", () => {
    const expected = { "content-type": "application/json", "x-stainless-retry-count": "0", "content-length": "10" };
    const body = '{"q":"é"}';
    expect(requestHeaders({ headers: new Headers({ "Content-Type": "application/json", "X-Stainless-Retry-Count": "0" }), body })).toEqual(expected);
    expect(requestHeaders({ headers: { "Content-Type": "application/json", "X-Stainless-Retry-Count": "0" }, body })).toEqual(expected);
    expect(requestHeaders({ headers: [["content-type", "application/json"], ["x-stainless-retry-count", "0"]], body })).toEqual(expected);
    expect(requestHeaders({})).toEqual({});
  });
});
