import * as AnthropicSdk from "@anthropic-ai/sdk";
import * as OpenAISdk from "openai";
import { describe, expect, it } from "vitest";
import { RubricateError } from "../../src/errors.js";
import { parseRetryAfter, scrubSecrets, toProviderError } from "../../src/providers/errors.js";

const KEY = "sk-proj-abcdefghijklmnop0123";
const ctx = { provider: "openai", secrets: [KEY] };
const headers = (h: Record<string, string>) => new Headers(h);

describe("parseRetryAfter", () => {
  it("prefers retry-after-ms, then seconds, then an HTTP date", () => {
    expect(parseRetryAfter(headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(parseRetryAfter(headers({ "retry-after": "2.5" }))).toBe(2500);
    const now = Date.parse("2026-11-29T12:00:00Z");
    expect(parseRetryAfter(headers({ "retry-after": "Sun, 29 Nov 2026 12:00:07 GMT" }), now)).toBe(7000);
    expect(parseRetryAfter(headers({ "retry-after": "Sun, 29 Nov 2026 11:00:00 GMT" }), now)).toBe(0);
  });

  it("ignores absent, empty, negative and unparseable values", () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter(headers({}))).toBeUndefined();
    expect(parseRetryAfter(headers({ "retry-after": "" }))).toBeUndefined();
    expect(parseRetryAfter(headers({ "retry-after": "-3" }))).toBeUndefined();
    expect(parseRetryAfter(headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfter(headers({ "retry-after-ms": "x", "retry-after": "1" }))).toBe(1000);
  });
});

describe("scrubSecrets", () => {
  it("removes given secrets and key-shaped or bearer tokens", () => {
    expect(scrubSecrets(`key ${KEY} end`, [KEY])).toBe("key [redacted] end");
    expect(scrubSecrets("Incorrect API key provided: sk-abc123456789.")).toBe("Incorrect API key provided: [redacted].");
    expect(scrubSecrets("x-api-key sk-ant-api03-XYZxyz_123")).toBe("x-api-key [redacted]");
    expect(scrubSecrets("Authorization: Bearer abcdefghijkl")).toBe("Authorization: [redacted]");
    expect(scrubSecrets("custom-secret-value here", ["custom-secret-value"])).toBe("[redacted] here");
    expect(scrubSecrets("nothing secret")).toBe("nothing secret");
  });
});

describe("toProviderError", () => {
  const status = (s: number, h: Record<string, string> = {}, body: object = { error: { message: `bad ${KEY}` } }) =>
    toProviderError(OpenAISdk.APIError.generate(s, body, undefined, headers(h)), ctx);

  it("429 is RATE_LIMITED, retryable, with retryAfterMs", () => {
    expect(status(429, { "retry-after": "4" })).toMatchObject({ code: "RATE_LIMITED", retryable: true, status: 429, retryAfterMs: 4000 });
    expect(status(429).retryAfterMs).toBeUndefined();
  });

  it.each([408, 409, 500, 502, 503, 504, 529])("%i is PROVIDER_HTTP retryable", (s) => {
    expect(status(s)).toMatchObject({ code: "PROVIDER_HTTP", retryable: true, status: s });
  });

  it.each([400, 401, 403, 404, 413, 422])("%i is PROVIDER_HTTP final", (s) => {
    expect(status(s)).toMatchObject({ code: "PROVIDER_HTTP", retryable: false, status: s });
  });

  it("never puts the key in the message, nor keeps the SDK error as cause", () => {
    const e = status(401);
    expect(e.message).not.toContain(KEY);
    expect(e.message).toContain("[redacted]");
    expect(e.cause).toBeUndefined();
  });

  it("uses Anthropic's error type and message, not the raw body", () => {
    const err = AnthropicSdk.APIError.generate(529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, undefined, headers({ "request-id": "req_1", "retry-after": "1" }));
    const e = toProviderError(err, { provider: "anthropic" });
    expect(e).toMatchObject({ code: "PROVIDER_HTTP", retryable: true, status: 529, retryAfterMs: 1000 });
    expect(e.message).toBe("anthropic: HTTP 529 overloaded_error: Overloaded [request req_1]");
  });

  it("maps both SDKs' timeout, connection and abort classes", () => {
    for (const sdk of [OpenAISdk, AnthropicSdk]) {
      expect(toProviderError(new sdk.APIConnectionTimeoutError(), ctx)).toMatchObject({ code: "PROVIDER_TIMEOUT", retryable: true });
      const reset = new sdk.APIConnectionError({ cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }) });
      const net = toProviderError(reset, ctx);
      expect(net).toMatchObject({ code: "PROVIDER_NETWORK", retryable: true });
      expect(net.message).toContain("ECONNRESET");
      expect(toProviderError(new sdk.APIUserAbortError(), ctx)).toMatchObject({ code: "ABORTED", retryable: false });
    }
  });

  it("a body cut mid-stream (undici TypeError) is PROVIDER_NETWORK; invalid JSON is PROVIDER_HTTP retryable", () => {
    const cut = new TypeError("terminated", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) });
    expect(toProviderError(cut, ctx)).toMatchObject({ code: "PROVIDER_NETWORK", retryable: true });
    expect(toProviderError(new SyntaxError("Unexpected end of JSON input"), ctx)).toMatchObject({ code: "PROVIDER_HTTP", retryable: true });
  });

  it("the call context decides between our deadline and the caller's abort", () => {
    const abort = new OpenAISdk.APIUserAbortError();
    expect(toProviderError(abort, { ...ctx, timedOut: true, timeoutMs: 10 })).toMatchObject({ code: "PROVIDER_TIMEOUT", retryable: true });
    expect(toProviderError(abort, { ...ctx, timedOut: true, aborted: true })).toMatchObject({ code: "ABORTED" });
    expect(toProviderError(new DOMException("x", "AbortError"), ctx)).toMatchObject({ code: "ABORTED" });
  });

  it("passes RubricateErrors through and wraps the unknown as INTERNAL, scrubbed", () => {
    const own = new RubricateError("JUDGE_PARSE", "x");
    expect(toProviderError(own, ctx)).toBe(own);
    const e = toProviderError(new Error(`weird ${KEY}`), ctx);
    expect(e).toMatchObject({ code: "INTERNAL", retryable: false });
    expect(e.message).not.toContain(KEY);
  });
});
