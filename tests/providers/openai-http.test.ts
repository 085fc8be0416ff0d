/**
 * The live OpenAI call without the SDK (src/providers/openai-http.ts) against the SDK itself: the
 * same request on the wire (minus the SDK's telemetry headers), the same parsed answer, the same
 * error for every kind of body a failing server sends. The SDK path is forced with a `fetch`
 * option (the SDK over `nodeHttpFetch`); tests/providers/http-fetch-sdk.test.ts compares the
 * default path with the SDK over undici on the fake servers' faults.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { getEventListeners } from "node:events";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { nodeHttpFetch } from "../../src/providers/http-fetch.js";
import { createOpenAIProvider } from "../../src/providers/openai.js";
import type { CompletionRequest, Provider } from "../../src/providers/types.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";

const KEY = "sk-test-openai-http-0000";
const ask: CompletionRequest = { model: "m", messages: [{ role: "user", content: "Is the sky blue?" }], maxTokens: 8, temperature: 0 };

type Srv = Awaited<ReturnType<typeof startOpenAIServer>>;
let srv: Srv;
beforeEach(async () => {
  srv = await startOpenAIServer({ respond: () => "yes" });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await srv.close();
});

const direct = (url: string, over: Parameters<typeof createOpenAIProvider>[0] = {}) => createOpenAIProvider({ apiKey: KEY, baseURL: url, ...over });
const viaSdk = (url: string, over: Parameters<typeof createOpenAIProvider>[0] = {}) => createOpenAIProvider({ apiKey: KEY, baseURL: url, fetch: nodeHttpFetch, ...over });

/** The SDK's telemetry headers and its user agent: what the direct call leaves out or words its own way. */
const sdkOnly = (name: string) => name.startsWith("x-stainless-") || name === "user-agent";
const withoutSdkOnly = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !sdkOnly(name) && name !== "connection"));

/** The request both ways: what the server received from the direct call, then from the SDK. */
async function bothRequests(create: (url: string) => Provider = (url) => direct(url), sdk: (url: string) => Provider = (url) => viaSdk(url)) {
  await create(srv.url).complete(ask);
  await sdk(srv.url).complete(ask);
  expect(srv.requests).toHaveLength(2);
  return { direct: srv.requests[0], sdk: srv.requests[1] };
}

describe("the direct call's request", () => {
  it("is the SDK's: method, path, body, key, accept and content type; only the SDK's telemetry headers differ", async () => {
    const { direct: d, sdk: s } = await bothRequests();
    expect(d.method).toBe(s.method);
    expect(d.path).toBe(s.path);
    expect(d.body).toEqual(s.body);
    expect(d.apiKeySent).toBe(true);
    expect(withoutSdkOnly(d.headers)).toEqual(withoutSdkOnly(s.headers));
    // The comparison sees a difference where there is one: the SDK's path sends its telemetry.
    expect(Object.keys(s.headers).some((name) => name.startsWith("x-stainless-"))).toBe(true);
    expect(Object.keys(d.headers).some((name) => name.startsWith("x-stainless-"))).toBe(false);
    expect(d.headers["user-agent"]).toBe("rubricate");
  });

  it("carries OPENAI_ORG_ID, OPENAI_PROJECT_ID and OPENAI_CUSTOM_HEADERS as the SDK does (custom lines replace defaults)", async () => {
    vi.stubEnv("OPENAI_ORG_ID", " org-123 ");
    vi.stubEnv("OPENAI_PROJECT_ID", "proj-456");
    vi.stubEnv("OPENAI_CUSTOM_HEADERS", "X-Gateway-Tenant: team-a\nAccept: application/json; charset=utf-8\nnot a header line");
    const { direct: d, sdk: s } = await bothRequests();
    expect(d.headers).toMatchObject({ "openai-organization": "org-123", "openai-project": "proj-456", "x-gateway-tenant": "team-a", accept: "application/json; charset=utf-8" });
    expect(withoutSdkOnly(d.headers)).toEqual(withoutSdkOnly(s.headers));
  });

  it("goes to the base URL with or without its trailing slash, as the SDK's does", async () => {
    const { direct: d, sdk: s } = await bothRequests((url) => direct(`${url}/`), (url) => viaSdk(`${url}/`));
    expect(d.path).toBe("/v1/chat/completions");
    expect(s.path).toBe(d.path);
  });

  it("refuses a header from the environment that HTTP cannot carry, naming it but not its value", async () => {
    vi.stubEnv("OPENAI_CUSTOM_HEADERS", "X-Token: secret-value\rmore");
    const e = await direct(srv.url).complete(ask).catch((err: unknown) => err);
    expect(e).toMatchObject({ code: "JUDGE_CONFIG" });
    expect(String((e as Error).message)).toContain('"x-token"');
    expect(String((e as Error).message)).not.toContain("secret-value");
    expect(srv.requests).toHaveLength(0);
  });

  it("refuses a base URL that is not http(s) as JUDGE_CONFIG", async () => {
    for (const baseURL of ["ftp://example.com/v1", "not a url"]) {
      await expect(direct(baseURL).complete(ask)).rejects.toMatchObject({ code: "JUDGE_CONFIG" });
    }
  });

  it("leaves the SDK to answer when OPENAI_LOG asks for its request log, or RUBRICATE_HTTP=fetch for the global fetch", async () => {
    for (const [variable, value] of [["OPENAI_LOG", "warn"], ["RUBRICATE_HTTP", "fetch"]] as const) {
      vi.stubEnv(variable, value);
      const before = srv.requests.length;
      await direct(srv.url, { timeoutMs: 5000 }).complete(ask);
      expect(Object.keys(srv.requests[before].headers).some((name) => name.startsWith("x-stainless-"))).toBe(true);
      vi.unstubAllEnvs();
    }
  });
});

describe("the direct call's answer", () => {
  it("is the SDK's for an answer with usage, logprobs and tool calls", async () => {
    srv.setBehavior({
      respond: () => ({
        text: "yes",
        usage: { input: 12, output: 3, cached: 4 },
        logprobs: [{ token: "yes", logprob: -0.1, top: [{ token: "yes", logprob: -0.1 }] }],
      }),
    });
    const request = { ...ask, logprobs: true, topLogprobs: 1 };
    expect(await direct(srv.url).complete(request)).toEqual(await viaSdk(srv.url).complete(request));
  });

  it("falls under the provider's timeout when the call gives none (the SDK's client-wide timeout)", async () => {
    srv.setBehavior({ sequence: ["hang"] });
    await expect(direct(srv.url, { timeoutMs: 150 }).complete(ask)).rejects.toMatchObject({ code: "PROVIDER_TIMEOUT", retryable: true });
  });

  it("times out a server that sends its headers and then stalls the body, as PROVIDER_TIMEOUT (not a network error)", async () => {
    const stalling = await serve((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"id":"x",');
    });
    try {
      await expect(direct(stalling.url).complete(ask, { timeoutMs: 150 })).rejects.toMatchObject({ code: "PROVIDER_TIMEOUT", retryable: true, message: "openai: no answer within 150 ms" });
    } finally {
      stalling.server.closeAllConnections();
      await new Promise<void>((resolve) => stalling.server.close(() => resolve()));
    }
  });

  it("leaves no listener on the caller's signal, whether the call answers, fails or times out", async () => {
    const ac = new AbortController();
    const provider = direct(srv.url);
    srv.setBehavior({ sequence: ["500", "hang"] });
    await provider.complete(ask, { signal: ac.signal }).catch(() => undefined);
    await expect(provider.complete(ask, { signal: ac.signal, timeoutMs: 100 })).rejects.toMatchObject({ code: "PROVIDER_TIMEOUT", message: "openai: no answer within 100 ms" });
    for (let i = 0; i < 20; i++) await provider.complete(ask, { signal: ac.signal });
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
  });

  it("reads a completion whose headers are written in any case, among many, as the SDK does", async () => {
    const completion = { id: "c1", object: "chat.completion", created: 0, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "yes" }, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } };
    const body = JSON.stringify(completion);
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`X-Ratelimit-Extra-${i}`, String(i)]));
    const shouting = await serve((res) => {
      res.writeHead(200, { ...many, "Content-Type": "application/json; charset=utf-8", "Content-Length": String(Buffer.byteLength(body)) });
      res.end(body);
    });
    try {
      const d = await direct(shouting.url).complete(ask);
      // Read as text (its content type missed), the answer would be no completion at all.
      expect(d.text).toBe("yes");
      expect(d).toEqual(await viaSdk(shouting.url).complete(ask));
    } finally {
      await new Promise<void>((resolve) => shouting.server.close(() => resolve()));
    }
  });

  it("stops reading a body over RUBRICATE_MAX_RESPONSE_MB, not retryable, as through the SDK", async () => {
    vi.stubEnv("RUBRICATE_MAX_RESPONSE_MB", "0.001");
    srv.setBehavior({ respond: () => "y".repeat(5000) });
    const d = await direct(srv.url).complete(ask).catch((e: unknown) => e);
    const s = await viaSdk(srv.url).complete(ask).catch((e: unknown) => e);
    expect(d).toMatchObject({ code: "PROVIDER_HTTP", retryable: false });
    expect(s).toMatchObject({ code: (d as { code: string }).code, retryable: false, message: (d as Error).message });
  });
});

/** A local server that reads each request whole, then answers it with `answer`; its base URL ends in /v1. */
async function serve(answer: (res: ServerResponse) => void): Promise<{ url: string; server: Server }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

/** A server answering every request with one status, content type and body. */
function fixedServer(status: number, contentType: string | undefined, body: string, headers: Record<string, string> = {}): Promise<{ url: string; server: Server }> {
  return serve((res) => {
    res.writeHead(status, { ...(contentType ? { "content-type": contentType } : {}), "content-length": String(Buffer.byteLength(body)), ...headers });
    res.end(body);
  });
}

/** Error bodies as servers send them: the SDK builds its message from each differently. */
const bodies: [string, number, string | undefined, string, Record<string, string>?][] = [
  ["an error with a message", 400, "application/json", JSON.stringify({ error: { message: "bad model", type: "invalid_request_error" } })],
  ["an error whose message is not a string", 422, "application/json", JSON.stringify({ error: { message: ["field", "missing"] } })],
  ["an error object without a message", 403, "application/json", JSON.stringify({ error: { code: "forbidden" } })],
  ["JSON without an error", 404, "application/json", JSON.stringify({ detail: "Not Found" })],
  ["JSON null", 500, "application/json", "null"],
  ["plain text", 502, "text/plain", "upstream connect error"],
  ["no body", 503, undefined, ""],
  ["a 429 with a request id and retry-after", 429, "application/json", JSON.stringify({ error: { message: "slow down" } }), { "x-request-id": "req_abc", "retry-after": "2" }],
  ["a 200 that is not JSON", 200, "text/html", "<html>proxy</html>"],
  ["a 200 JSON that is not a completion", 200, "application/vnd.api+json", JSON.stringify({ ok: true })],
  ["a 200 JSON with an empty body", 200, "application/json", ""],
];

describe.each(bodies)("a server answering %s", (_label, status, contentType, body, headers) => {
  let fixed: { url: string; server: Server };
  beforeEach(async () => {
    fixed = await fixedServer(status, contentType, body, headers);
  });
  afterEach(() => new Promise<void>((resolve) => fixed.server.close(() => resolve())));

  it("gives the same error as the SDK: code, status, retryable, retry-after and message", async () => {
    const outcome = async (provider: Provider) => {
      const e = (await provider.complete(ask).then(() => undefined, (err: unknown) => err)) as Record<string, unknown> | undefined;
      expect(e, "the call must fail").toBeDefined();
      const { code, status: s, retryable, retryAfterMs, message } = e!;
      return { code, status: s, retryable, retryAfterMs, message };
    };
    const d = await outcome(direct(fixed.url));
    expect(d).toEqual(await outcome(viaSdk(fixed.url)));
    expect(d.code).toMatch(/^(PROVIDER_HTTP|RATE_LIMITED)$/);
  });
});
