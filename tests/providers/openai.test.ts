import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RubricateError } from "../../src/errors.js";
import { createOpenAIProvider } from "../../src/providers/openai.js";
import type { CompletionRequest, Provider } from "../../src/providers/types.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { failure as failWithout } from "./helpers.js";

const KEY = "sk-test-0123456789abcdefSECRET";
type Srv = Awaited<ReturnType<typeof startOpenAIServer>>;

const failure = (p: Promise<unknown>) => failWithout(p, KEY);

const ask = (over: Partial<CompletionRequest> = {}): CompletionRequest => ({
  model: "gpt-test",
  messages: [{ role: "user", content: "Is the sky blue?" }],
  ...over,
});

let srv: Srv;
let provider: Provider;
beforeEach(async () => {
  srv = await startOpenAIServer({ respond: () => "yes" });
  provider = createOpenAIProvider({ apiKey: KEY, baseURL: srv.url });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await srv.close();
});

describe("openai adapter: success", () => {
  it("maps text, usage with cached tokens and the model; sends the key but the server stores none", async () => {
    srv.setBehavior({ respond: () => ({ text: '{"verdict":true}', usage: { input: 50, output: 7, cached: 32 } }) });
    const res = await provider.complete(ask());
    expect(res).toMatchObject({ text: '{"verdict":true}', finishReason: "stop", model: "gpt-test" });
    expect(res.usage).toEqual({ inputTokens: 50, outputTokens: 7, cachedInputTokens: 32 });
    expect(srv.requests).toHaveLength(1);
    expect(srv.requests[0]).toMatchObject({ method: "POST", path: "/v1/chat/completions", apiKeySent: true });
    expect(srv.requests[0].headers.authorization).toBe("[redacted]");
    expect(JSON.stringify(srv.requests)).not.toContain(KEY);
  });

  it("builds the structured-output, logprobs and system request shape", async () => {
    await provider.complete(
      ask({
        system: [{ text: "You judge. ", cache: true }, { text: "Answer in JSON." }],
        jsonSchema: { name: "verdicts", schema: { type: "object", properties: { v: { type: "boolean" } } } },
        logprobs: true,
        maxTokens: 64,
        temperature: 0,
        seed: 3,
      }),
    );
    const body = srv.requests[0].body as Record<string, unknown>;
    expect(body.messages).toEqual([
      { role: "system", content: "You judge. Answer in JSON." },
      { role: "user", content: "Is the sky blue?" },
    ]);
    expect(body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "verdicts", schema: { type: "object", properties: { v: { type: "boolean" } } }, strict: true },
    });
    expect(body).toMatchObject({ logprobs: true, top_logprobs: 5, max_completion_tokens: 64, temperature: 0, seed: 3 });
    expect(body).not.toHaveProperty("max_tokens");
  });

  it("maps logprobs with their alternatives", async () => {
    srv.setBehavior({
      respond: () => ({
        text: "yes",
        logprobs: [{ token: "yes", logprob: -0.1, top: [{ token: "yes", logprob: -0.1 }, { token: "no", logprob: -2.4 }] }],
      }),
    });
    const res = await provider.complete(ask({ logprobs: true, topLogprobs: 2 }));
    expect(res.logprobs).toEqual([{ token: "yes", logprob: -0.1, top: [{ token: "yes", logprob: -0.1 }, { token: "no", logprob: -2.4 }] }]);
  });

  it("reports the server's automatic prefix cache on a repeated long prompt", async () => {
    const long = ask({ messages: [{ role: "user", content: "context ".repeat(1200) }] });
    const first = await provider.complete(long);
    const second = await provider.complete(long);
    expect(first.usage.cachedInputTokens).toBe(0);
    expect(second.usage.cachedInputTokens).toBeGreaterThanOrEqual(1024);
    expect(second.usage.cachedInputTokens % 128).toBe(0);
  });

  it("sends tools, assistant tool calls and tool results, and reads tool calls back", async () => {
    srv.setBehavior({ respond: () => ({ toolCalls: [{ id: "call_9", name: "lookup", arguments: { q: "sky" } }] }) });
    const res = await provider.complete(
      ask({
        tools: [{ name: "lookup", description: "search", parameters: { type: "object" } }],
        messages: [
          { role: "user", content: "Look it up" },
          { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "lookup", arguments: '{"q":"a"}' }] },
          { role: "tool", toolCallId: "call_1", content: [{ text: "found " }, { text: "a" }] },
        ],
      }),
    );
    expect(res.finishReason).toBe("tool_calls");
    expect(res.toolCalls).toEqual([{ id: "call_9", name: "lookup", arguments: '{"q":"sky"}' }]);
    const body = srv.requests[0].body as { messages: unknown[]; tools: unknown[] };
    expect(body.tools).toEqual([{ type: "function", function: { name: "lookup", description: "search", parameters: { type: "object" } } }]);
    expect(body.messages.slice(1)).toEqual([
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":"a"}' } }] },
      { role: "tool", tool_call_id: "call_1", content: "found a" },
    ]);
  });

  it("turns message.refusal into finishReason refusal", async () => {
    srv.setBehavior({ sequence: ["refusal"] });
    const res = await provider.complete(ask());
    expect(res).toMatchObject({ finishReason: "refusal", refusal: "I can't help with that.", text: "" });
  });

  it("streams SSE chunks the SDK assembles, with usage", async () => {
    srv.setBehavior({ respond: () => "The sky is blue." });
    const client = new OpenAI({ apiKey: KEY, baseURL: srv.url, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } });
    let text = "";
    let finish: string | null = null;
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("The sky is blue.");
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
  });

  it("streams tool calls the SDK's stream helper assembles, and a reset mid-stream fails the stream", async () => {
    srv.setBehavior({ respond: () => ({ toolCalls: [{ id: "call_s", name: "lookup", arguments: { q: "sky" } }] }) });
    const client = new OpenAI({ apiKey: KEY, baseURL: srv.url, maxRetries: 0 });
    const params = { model: "m", messages: [{ role: "user" as const, content: "hi" }], tools: [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object" } } }] };
    const done = await client.chat.completions.stream(params).finalChatCompletion();
    expect(done.choices[0].finish_reason).toBe("tool_calls");
    expect(done.choices[0].message.tool_calls).toEqual([{ id: "call_s", type: "function", function: { name: "lookup", arguments: '{"q":"sky"}' } }]);
    srv.setBehavior({ respond: () => "a b c d e f g h", sequence: ["reset"] });
    await expect(client.chat.completions.stream(params).finalChatCompletion()).rejects.toThrow();
  });
});

describe("openai adapter: failures", () => {
  it("429 with retry-after seconds becomes RATE_LIMITED with retryAfterMs, one request only", async () => {
    srv.setBehavior({ sequence: ["429"], retryAfterSeconds: 3 });
    const e = await failure(provider.complete(ask()));
    expect(e).toMatchObject({ code: "RATE_LIMITED", retryable: true, status: 429, retryAfterMs: 3000 });
    expect(srv.requests).toHaveLength(1);
  });

  it("prefers retry-after-ms", async () => {
    srv.setBehavior({ sequence: ["429"], retryAfterMs: 1500 });
    expect(await failure(provider.complete(ask()))).toMatchObject({ retryAfterMs: 1500 });
  });

  it("a server rpm limit answers 429 past the limit", async () => {
    srv.setBehavior({ rpm: 2 });
    await provider.complete(ask());
    await provider.complete(ask());
    const e = await failure(provider.complete(ask()));
    expect(e.code).toBe("RATE_LIMITED");
    expect(e.retryAfterMs).toBeGreaterThan(0);
  });

  it("500 is PROVIDER_HTTP retryable, and the SDK does not retry it", async () => {
    srv.setBehavior({ sequence: ["500", "500", "500"] });
    const e = await failure(provider.complete(ask()));
    expect(e).toMatchObject({ code: "PROVIDER_HTTP", retryable: true, status: 500 });
    expect(srv.requests).toHaveLength(1);
  });

  it("401 is PROVIDER_HTTP and not retryable", async () => {
    srv.setBehavior({ expectedApiKey: "sk-other-key-000000" });
    expect(await failure(provider.complete(ask()))).toMatchObject({ code: "PROVIDER_HTTP", retryable: false, status: 401 });
  });

  it("a hung server hits the per-call timeout as PROVIDER_TIMEOUT", async () => {
    srv.setBehavior({ sequence: ["hang"] });
    const e = await failure(provider.complete(ask(), { timeoutMs: 150 }));
    // The server never answers: the error is the call's own deadline, the one asked for.
    expect(e).toMatchObject({ code: "PROVIDER_TIMEOUT", retryable: true });
    expect(e.message).toContain("no answer within 150 ms");
  });

  it("the caller's AbortSignal stops the call as ABORTED, before or during it", async () => {
    srv.setBehavior({ sequence: ["hang"] });
    const ac = new AbortController();
    const call = provider.complete(ask(), { signal: ac.signal, timeoutMs: 5000 });
    // Aborted once the server holds the request (a fixed delay lost the race under load).
    while (srv.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    expect(await failure(call)).toMatchObject({ code: "ABORTED", retryable: false });
    expect(await failure(provider.complete(ask(), { signal: ac.signal }))).toMatchObject({ code: "ABORTED" });
    expect(srv.requests).toHaveLength(1);
  });

  it.each(["reset", "drop"] as const)("a connection %s is PROVIDER_NETWORK retryable", async (fault) => {
    srv.setBehavior({ sequence: [fault] });
    expect(await failure(provider.complete(ask()))).toMatchObject({ code: "PROVIDER_NETWORK", retryable: true });
  });

  it.each(["truncated", "garbage", "html"] as const)("a %s body is PROVIDER_HTTP retryable", async (fault) => {
    srv.setBehavior({ sequence: [fault] });
    expect(await failure(provider.complete(ask()))).toMatchObject({ code: "PROVIDER_HTTP", retryable: true });
  });

  it("scrubs the key when the server echoes it in an error", async () => {
    srv.setBehavior({
      respond: () => {
        throw new Error(`Incorrect API key provided: ${KEY}`);
      },
    });
    const e = await failure(provider.complete(ask()));
    expect(e.message).toContain("[redacted]");
  });
});

describe("openai adapter: keys", () => {
  it("reads OPENAI_API_KEY, or fails with MISSING_API_KEY naming the variable", async () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    const e = (() => {
      try {
        createOpenAIProvider({ baseURL: srv.url });
      } catch (err) {
        return err as RubricateError;
      }
    })();
    expect(e).toMatchObject({ code: "MISSING_API_KEY" });
    expect(e?.message).toContain("OPENAI_API_KEY");
    vi.stubEnv("MY_JUDGE_KEY", KEY);
    srv.setBehavior({ expectedApiKey: KEY });
    await expect(createOpenAIProvider({ baseURL: srv.url, apiKeyEnv: "MY_JUDGE_KEY" }).complete(ask())).resolves.toMatchObject({ text: "yes" });
  });

  it("never sends OPENAI_API_KEY to an openai-compatible server", async () => {
    vi.stubEnv("OPENAI_API_KEY", KEY);
    srv.setBehavior({ expectedApiKey: "not-needed" });
    const local = createOpenAIProvider({ name: "openai-compatible", baseURL: srv.url });
    await expect(local.complete(ask({ maxTokens: 10 }))).resolves.toMatchObject({ text: "yes" });
    expect(srv.requests[0].body).toMatchObject({ max_tokens: 10 });
    expect(local.baseURL).toBe(srv.url);
  });
});

describe("openai adapter: base URL", () => {
  it("states the base URL the SDK's client uses (the option, else OPENAI_BASE_URL, else OpenAI's) before the SDK loads", () => {
    for (const env of [undefined, " https://env.example/v1 ", ""]) {
      vi.stubEnv("OPENAI_BASE_URL", env);
      for (const given of [undefined, "http://given.example/v1", ""]) {
        expect(createOpenAIProvider({ apiKey: KEY, baseURL: given }).baseURL).toBe(new OpenAI({ apiKey: KEY, baseURL: given }).baseURL);
      }
    }
  });
});
