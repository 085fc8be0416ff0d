import Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAnthropicProvider } from "../../src/providers/anthropic.js";
import type { CompletionRequest, Provider } from "../../src/providers/types.js";
import { startAnthropicServer } from "../../src/testing/servers/anthropic-server.js";
import { failure as failWithout } from "./helpers.js";

const KEY = "sk-ant-test-0123456789abcdefSECRET";
type Srv = Awaited<ReturnType<typeof startAnthropicServer>>;

const failure = (p: Promise<unknown>) => failWithout(p, KEY);

const ask = (over: Partial<CompletionRequest> = {}): CompletionRequest => ({
  model: "claude-test",
  messages: [{ role: "user", content: "Is the sky blue?" }],
  ...over,
});
const schema = { type: "object", properties: { verdict: { type: "boolean" } }, required: ["verdict"] };

let srv: Srv;
let provider: Provider;
beforeEach(async () => {
  srv = await startAnthropicServer({ respond: () => "yes" });
  provider = createAnthropicProvider({ apiKey: KEY, baseURL: srv.url });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await srv.close();
});

describe("anthropic adapter: success", () => {
  it("maps text and every usage field; sends the key and anthropic-version, stores no key", async () => {
    srv.setBehavior({ respond: () => ({ text: "yes", usage: { input: 40, output: 3, cached: 900, cacheWrite: 100 } }) });
    const res = await provider.complete(ask());
    expect(res).toMatchObject({ text: "yes", finishReason: "stop", model: "claude-test" });
    // input_tokens (40) + cache reads (900) + cache writes (100): the total, as OpenAI reports it.
    expect(res.usage).toEqual({ inputTokens: 1040, outputTokens: 3, cachedInputTokens: 900, cacheWriteTokens: 100 });
    const rec = srv.requests[0];
    expect(rec).toMatchObject({ method: "POST", path: "/v1/messages", apiKeySent: true });
    // SDK 1.x sends the key as a bearer token; older ones as x-api-key. Either way it is redacted.
    expect(rec.headers["x-api-key"] ?? rec.headers.authorization).toBe("[redacted]");
    expect(rec.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(rec.body).toMatchObject({ model: "claude-test", max_tokens: 1024, messages: [{ role: "user", content: [{ type: "text", text: "Is the sky blue?" }] }] });
    expect(JSON.stringify(srv.requests)).not.toContain(KEY);
  });

  it("sends temperature and top_p when the request sets them (the SDK's types dropped them; the API takes them)", async () => {
    await provider.complete(ask({ temperature: 0, topP: 0.9 }));
    await provider.complete(ask());
    expect(srv.requests[0].body).toMatchObject({ temperature: 0, top_p: 0.9 });
    expect(srv.requests[1].body).not.toHaveProperty("temperature");
    expect(srv.requests[1].body).not.toHaveProperty("top_p");
  });

  it("structured output is a forced tool whose input comes back as the text", async () => {
    srv.setBehavior({ respond: () => '{"verdict":true}' });
    const res = await provider.complete(ask({ jsonSchema: { name: "verdicts", schema } }));
    expect(res).toMatchObject({ text: '{"verdict":true}', finishReason: "stop" });
    expect(res.toolCalls).toBeUndefined();
    expect(srv.requests[0].body).toMatchObject({
      tools: [{ name: "verdicts", input_schema: schema }],
      tool_choice: { type: "tool", name: "verdicts" },
    });
  });

  it("puts cache_control on cached parts in system and messages, and reads cache usage", async () => {
    const shared = "rubric text ".repeat(500);
    const req = ask({
      system: [{ text: "You are a judge.", cache: true }, { text: " Be brief." }],
      messages: [{ role: "user", content: [{ text: shared, cache: true }, { text: "Question 1?" }] }],
    });
    const first = await provider.complete(req);
    const second = await provider.complete({ ...req, messages: [{ role: "user", content: [{ text: shared, cache: true }, { text: "Question 2?" }] }] });
    const body = srv.requests[0].body as { system: unknown; messages: { content: unknown }[] };
    expect(body.system).toEqual([
      { type: "text", text: "You are a judge.", cache_control: { type: "ephemeral" } },
      { type: "text", text: " Be brief." },
    ]);
    expect(body.messages[0].content).toEqual([
      { type: "text", text: shared, cache_control: { type: "ephemeral" } },
      { type: "text", text: "Question 1?" },
    ]);
    expect(first.usage.cacheWriteTokens).toBeGreaterThan(1000);
    expect(first.usage.cachedInputTokens).toBe(0);
    expect(second.usage.cachedInputTokens).toBe(first.usage.cacheWriteTokens);
    expect(second.usage.cacheWriteTokens).toBe(0);
  });

  it("sends tool_use and merged tool_result blocks, and reads tool calls back", async () => {
    srv.setBehavior({ respond: () => ({ text: "Let me check.", toolCalls: [{ id: "toolu_9", name: "lookup", arguments: { q: "sky" } }] }) });
    const res = await provider.complete(
      ask({
        tools: [{ name: "lookup", description: "search", parameters: { type: "object" } }],
        messages: [
          { role: "user", content: "Look both up" },
          {
            role: "assistant",
            content: "",
            toolCalls: [
              { id: "toolu_1", name: "lookup", arguments: '{"q":"a"}' },
              { id: "toolu_2", name: "lookup", arguments: '{"q":"b"}' },
            ],
          },
          { role: "tool", toolCallId: "toolu_1", content: "A" },
          { role: "tool", toolCallId: "toolu_2", content: "B" },
        ],
      }),
    );
    expect(res).toMatchObject({ text: "Let me check.", finishReason: "tool_calls" });
    expect(res.toolCalls).toEqual([{ id: "toolu_9", name: "lookup", arguments: '{"q":"sky"}' }]);
    const body = srv.requests[0].body as { messages: unknown[]; tools: unknown[]; tool_choice?: unknown };
    expect(body.tools).toEqual([{ name: "lookup", description: "search", input_schema: { type: "object" } }]);
    expect(body.tool_choice).toBeUndefined();
    expect(body.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_1", name: "lookup", input: { q: "a" } },
          { type: "tool_use", id: "toolu_2", name: "lookup", input: { q: "b" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "A" },
          { type: "tool_result", tool_use_id: "toolu_2", content: "B" },
        ],
      },
    ]);
  });

  it("stop_reason refusal becomes finishReason refusal, with no answer text", async () => {
    srv.setBehavior({ sequence: ["refusal"] });
    const res = await provider.complete(ask({ jsonSchema: { name: "verdicts", schema } }));
    expect(res).toMatchObject({ finishReason: "refusal", refusal: "I can't help with that.", text: "" });
  });

  it("streams SSE events the SDK assembles into a message", async () => {
    srv.setBehavior({ respond: () => "The sky is blue." });
    const client = new Anthropic({ apiKey: KEY, baseURL: srv.url, maxRetries: 0 });
    const msg = await client.messages.stream({ model: "m", max_tokens: 50, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(msg.content).toEqual([expect.objectContaining({ type: "text", text: "The sky is blue." })]);
    expect(msg.stop_reason).toBe("end_turn");
    srv.setBehavior({ respond: () => '{"verdict":true}' });
    const forced = await client.messages
      .stream({ model: "m", max_tokens: 50, messages: [{ role: "user", content: "hi" }], tools: [{ name: "v", input_schema: { type: "object" } }], tool_choice: { type: "tool", name: "v" } })
      .finalMessage();
    expect(forced.content[0]).toMatchObject({ type: "tool_use", name: "v", input: { verdict: true } });
    expect(forced.stop_reason).toBe("tool_use");
  });
});

describe("anthropic adapter: failures", () => {
  it("429 with retry-after becomes RATE_LIMITED with retryAfterMs", async () => {
    srv.setBehavior({ sequence: ["429"], retryAfterSeconds: 2 });
    const e = await failure(provider.complete(ask()));
    expect(e).toMatchObject({ code: "RATE_LIMITED", retryable: true, status: 429, retryAfterMs: 2000 });
    expect(e.message).toContain("rate_limit_error");
  });

  it.each([
    ["529", 529, "overloaded_error"],
    ["500", 500, "api_error"],
  ] as const)("%s is PROVIDER_HTTP retryable, and the SDK does not retry it", async (fault, status, type) => {
    srv.setBehavior({ sequence: [fault, fault, fault] });
    const e = await failure(provider.complete(ask()));
    expect(e).toMatchObject({ code: "PROVIDER_HTTP", retryable: true, status });
    expect(e.message).toContain(type);
    expect(srv.requests).toHaveLength(1);
  });

  it("401 is not retryable", async () => {
    srv.setBehavior({ expectedApiKey: "sk-ant-other-000000" });
    expect(await failure(provider.complete(ask()))).toMatchObject({ code: "PROVIDER_HTTP", retryable: false, status: 401 });
  });

  it("a hung server hits the per-call timeout", async () => {
    srv.setBehavior({ sequence: ["hang"] });
    expect(await failure(provider.complete(ask(), { timeoutMs: 150 }))).toMatchObject({ code: "PROVIDER_TIMEOUT", retryable: true });
  });

  it("the caller's abort is ABORTED", async () => {
    srv.setBehavior({ sequence: ["hang"] });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    expect(await failure(provider.complete(ask(), { signal: ac.signal }))).toMatchObject({ code: "ABORTED" });
  });

  it.each(["reset", "drop"] as const)("a connection %s is PROVIDER_NETWORK retryable", async (fault) => {
    srv.setBehavior({ sequence: [fault] });
    expect(await failure(provider.complete(ask()))).toMatchObject({ code: "PROVIDER_NETWORK", retryable: true });
  });

  it.each(["truncated", "garbage", "html"] as const)("a %s body is PROVIDER_HTTP retryable", async (fault) => {
    srv.setBehavior({ sequence: [fault] });
    expect(await failure(provider.complete(ask()))).toMatchObject({ code: "PROVIDER_HTTP", retryable: true });
  });

  it("scrubs the key when the server echoes it", async () => {
    srv.setBehavior({
      respond: () => {
        throw new Error(`invalid x-api-key ${KEY}`);
      },
    });
    expect((await failure(provider.complete(ask()))).message).toContain("[redacted]");
  });

  it("MISSING_API_KEY names the variable when it is unset", () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "");
    expect(() => createAnthropicProvider({ baseURL: srv.url })).toThrow(/ANTHROPIC_API_KEY/);
    vi.stubEnv("JUDGE_KEY", KEY);
    expect(createAnthropicProvider({ baseURL: srv.url, apiKeyEnv: "JUDGE_KEY" }).name).toBe("anthropic");
  });
});

describe("anthropic adapter: base URL", () => {
  it("states the base URL the SDK's client uses (the option, else ANTHROPIC_BASE_URL, else Anthropic's) before the SDK loads", () => {
    for (const env of [undefined, " https://env.example ", ""]) {
      vi.stubEnv("ANTHROPIC_BASE_URL", env);
      for (const given of [undefined, "http://given.example", ""]) {
        expect(createAnthropicProvider({ apiKey: KEY, baseURL: given }).baseURL).toBe(new Anthropic({ apiKey: KEY, baseURL: given }).baseURL);
      }
    }
  });
});
