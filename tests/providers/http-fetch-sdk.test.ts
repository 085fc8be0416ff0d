/**
 * The live fetch hands both SDKs a light response (`BufferedResponse`, `NodeHeaders`) instead of an
 * undici `Response`, and the OpenAI provider's default live call leaves the SDK out altogether
 * (openai-http.ts). Differential: each scenario runs once through the SDK over the global fetch (a
 * real Response, `RUBRICATE_HTTP=fetch`) and once the provider's usual way, and it must give the
 * same answer or the same error (code, status, retryable, retry-after, message) both ways.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAnthropicProvider } from "../../src/providers/anthropic.js";
import { nodeHttpFetch } from "../../src/providers/http-fetch.js";
import { createOpenAIProvider } from "../../src/providers/openai.js";
import type { CompletionRequest, Provider } from "../../src/providers/types.js";
import { startAnthropicServer } from "../../src/testing/servers/anthropic-server.js";
import type { FaultOptions } from "../../src/testing/servers/common.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";

const KEY = "sk-test-differential-0000";
const ask: CompletionRequest = { model: "m", messages: [{ role: "user", content: "Is the sky blue?" }] };

interface Wire {
  setBehavior(b: FaultOptions & { expectedApiKey?: string }): void;
  close(): Promise<void>;
  url: string;
}

const scenarios: [string, FaultOptions & { expectedApiKey?: string }][] = [
  ["an answer", {}],
  ["429 with retry-after seconds", { sequence: ["429"], retryAfterSeconds: 3 }],
  ["429 with retry-after-ms", { sequence: ["429"], retryAfterMs: 1500 }],
  ["500", { sequence: ["500"] }],
  ["529", { sequence: ["529"] }],
  ["401", { expectedApiKey: "sk-someone-else-0000" }],
  ["an HTML error body", { sequence: ["html"] }],
  ["a garbage body", { sequence: ["garbage"] }],
];

/**
 * Failures the transport words its own way (undici "terminated" vs node:http ECONNRESET, as before
 * this response type) or whose message holds a per-request position: same code and retry fields.
 */
const transportScenarios: [string, FaultOptions, RegExp][] = [
  ["a truncated body", { sequence: ["truncated"] }, /not valid JSON/],
  ["a reset connection", { sequence: ["reset"] }, /connection (lost|failed)/],
];

/** What a caller sees of one call: the answer, or the error's fields that drive retries and messages. */
async function outcome(provider: Provider): Promise<unknown> {
  try {
    const r = await provider.complete(ask, { timeoutMs: 5000 });
    return { answer: r.text, usage: r.usage, finishReason: r.finishReason, model: r.model };
  } catch (e) {
    const { code, status, retryable, retryAfterMs, message } = e as Record<string, unknown>;
    // The server numbers its requests: the id differs between the two runs, its presence must not.
    return { code, status, retryable, retryAfterMs, message: String(message).replace(/\breq_\w+/g, "req_<id>") };
  }
}

describe.each([
  ["openai (its default, without the SDK)", () => startOpenAIServer({ respond: () => "yes" }), (url: string) => createOpenAIProvider({ apiKey: KEY, baseURL: url })],
  ["openai (the SDK over nodeHttpFetch)", () => startOpenAIServer({ respond: () => "yes" }), (url: string) => createOpenAIProvider({ apiKey: KEY, baseURL: url, fetch: nodeHttpFetch })],
  ["anthropic (the SDK over nodeHttpFetch)", () => startAnthropicServer({ respond: () => "yes" }), (url: string) => createAnthropicProvider({ apiKey: KEY, baseURL: url })],
] as const)("%s against the SDK over undici", (_name, start, create) => {
  let srv: Wire;
  beforeEach(async () => {
    srv = (await start()) as unknown as Wire;
  });
  afterEach(() => srv.close());

  it.each(scenarios)("%s: the same outcome as through a real fetch Response", async (_label, behavior) => {
    srv.setBehavior({ sequence: [], ...behavior });
    // Read when the provider is made (the OpenAI provider's choice of transport too).
    vi.stubEnv("RUBRICATE_HTTP", "fetch");
    const viaUndici = await outcome(create(srv.url));
    vi.unstubAllEnvs();
    srv.setBehavior({ sequence: [], ...behavior });
    const viaNodeHttp = await outcome(create(srv.url));
    expect(viaNodeHttp).toEqual(viaUndici);
    // The scenario did what it says (an error scenario that answered would compare two answers).
    if (behavior.sequence?.length || behavior.expectedApiKey) expect(viaNodeHttp).toHaveProperty("code");
    else expect(viaNodeHttp).toMatchObject({ answer: expect.any(String) });
  });

  it.each(transportScenarios)("%s: the same error fields as through a real fetch Response", async (_label, behavior, wording) => {
    srv.setBehavior(behavior);
    vi.stubEnv("RUBRICATE_HTTP", "fetch");
    const { message: undiciMessage, ...viaUndici } = (await outcome(create(srv.url))) as { message: string };
    vi.unstubAllEnvs();
    srv.setBehavior(behavior);
    const { message, ...viaNodeHttp } = (await outcome(create(srv.url))) as { message: string; code: string };
    expect(viaNodeHttp).toEqual(viaUndici);
    expect(viaNodeHttp.code).toMatch(/^PROVIDER_/);
    expect(message).toMatch(wording);
    expect(undiciMessage).toMatch(wording);
  });
});
