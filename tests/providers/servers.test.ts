/** The test servers themselves: determinism, scripting, rate limits, raw wire shapes. */
import { afterEach, describe, expect, it } from "vitest";
import { FaultPlan } from "../../src/testing/servers/common.js";
import { startAnthropicServer } from "../../src/testing/servers/anthropic-server.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body), signal });

describe("FaultPlan", () => {
  it("is deterministic for a seed and differs across seeds", () => {
    const run = (seed: number) => {
      const p = new FaultPlan({ seed, rates: { "429": 0.2, "500": 0.1, reset: 0.05 } });
      return Array.from({ length: 200 }, (_, i) => p.pick(i));
    };
    expect(run(42)).toEqual(run(42));
    expect(run(42)).not.toEqual(run(43));
    const counts = run(42).reduce<Record<string, number>>((m, f) => ({ ...m, [f]: (m[f] ?? 0) + 1 }), {});
    expect(counts["429"]).toBeGreaterThan(20);
    expect(counts["429"]).toBeLessThan(60);
  });

  it("plays a sequence first, then the rates", () => {
    const p = new FaultPlan({ sequence: ["500", "hang"], rates: { "429": 1 } });
    expect([0, 1, 2].map((i) => p.pick(i))).toEqual(["500", "hang", "429"]);
  });

  it("limits requests per minute with a retry-after until a slot frees", () => {
    const p = new FaultPlan({ rpm: 2 });
    expect(p.overRpm(0)).toBeUndefined();
    expect(p.overRpm(10_000)).toBeUndefined();
    expect(p.overRpm(20_000)).toBe(40);
    expect(p.overRpm(60_000)).toBeUndefined();
  });
});

describe("requests in flight", () => {
  it("counts requests held at once, and the most of them; an answer or a dropped connection ends one", async () => {
    // Every answer waits on the gate: the five are held at once however slowly they arrive.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const srv = await startOpenAIServer({ respond: () => gate.then(() => "hi") });
    closers.push(srv.close);
    const url = `${srv.url}/chat/completions`;
    const answers = Array.from({ length: 5 }, () => post(url, { model: "m", messages: [] }));
    await expect.poll(() => srv.stats.inFlight, { timeout: 10_000 }).toBe(5);
    expect(srv.stats.peakInFlight).toBe(5);
    open();
    expect((await Promise.all(answers)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    await expect.poll(() => srv.stats.inFlight, { timeout: 10_000 }).toBe(0);
    expect(srv.stats.peakInFlight).toBe(5);

    // A request the server never answers leaves only when its client gives up.
    srv.setBehavior({ sequence: ["hang"] });
    srv.stats.peakInFlight = srv.stats.inFlight;
    const controller = new AbortController();
    const hung = post(url, { model: "m", messages: [] }, {}, controller.signal).catch((e: unknown) => e);
    await expect.poll(() => srv.stats.inFlight, { timeout: 10_000 }).toBe(1);
    controller.abort();
    expect(await hung).toBeInstanceOf(Error);
    await expect.poll(() => srv.stats.inFlight, { timeout: 10_000 }).toBe(0);
    expect(srv.stats.peakInFlight).toBe(1);
  });
});

describe("openai server wire format", () => {
  it("answers the chat completions shape, errors in OpenAI's format, and restarts sequences on setBehavior", async () => {
    const srv = await startOpenAIServer({ respond: () => "hi", sequence: ["429"], retryAfterSeconds: 5, retryAfterMs: 4500 });
    closers.push(srv.close);
    const r1 = await post(`${srv.url}/chat/completions`, { model: "m", messages: [] });
    expect(r1.status).toBe(429);
    expect(r1.headers.get("retry-after")).toBe("5");
    expect(r1.headers.get("retry-after-ms")).toBe("4500");
    expect(r1.headers.get("x-request-id")).toMatch(/^req_/);
    expect(await r1.json()).toEqual({ error: { message: expect.any(String), type: "requests", param: null, code: "rate_limit_exceeded" } });
    const ok = (await (await post(`${srv.url}/chat/completions`, { model: "m", messages: [], logprobs: true, top_logprobs: 2 })).json()) as { choices: { logprobs: { content: unknown[] } }[] };
    expect(ok).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-/),
      object: "chat.completion",
      created: expect.any(Number),
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: "hi", refusal: null }, finish_reason: "stop" }],
      usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number), prompt_tokens_details: { cached_tokens: 0 } },
    });
    expect(ok.choices[0].logprobs.content[0]).toEqual({ token: "hi", logprob: expect.any(Number), bytes: [104, 105], top_logprobs: [expect.objectContaining({ token: "hi" }), expect.any(Object)] });
    srv.setBehavior({ sequence: ["500"] });
    expect((await post(`${srv.url}/chat/completions`, { model: "m", messages: [] })).status).toBe(500);
    expect((await post(`${srv.url}/nope`, {})).status).toBe(404);
    expect(srv.requests.map((r) => r.fault)).toEqual(["429", "none", "500", "none"]);
  });

  it("counts requests and faults, and can drop bodies for benchmarks", async () => {
    const srv = await startOpenAIServer({ recordBodies: false, sequence: ["500", "none", "429"], latencyMs: [1, 5], seed: 3 });
    closers.push(srv.close);
    for (let i = 0; i < 4; i++) await post(`${srv.url}/chat/completions`, { model: "m", messages: [{ role: "user", content: "secret sample" }] });
    expect(srv.stats).toEqual({ requests: 4, faults: { "500": 1, none: 2, "429": 1 }, inFlight: 0, peakInFlight: 1 });
    expect(srv.requests.every((r) => r.body === undefined)).toBe(true);
  });

  it("ends an SSE stream with [DONE]", async () => {
    const srv = await startOpenAIServer({ respond: () => "a b" });
    closers.push(srv.close);
    const text = await (await post(`${srv.url}/chat/completions`, { model: "m", messages: [], stream: true })).text();
    expect(text.trim().endsWith("data: [DONE]")).toBe(true);
    expect(text).toContain('"object":"chat.completion.chunk"');
  });
});

describe("anthropic server wire format", () => {
  it("answers the messages shape and overloaded errors in Anthropic's format", async () => {
    const srv = await startAnthropicServer({ respond: () => "hi", sequence: ["529"] });
    closers.push(srv.close);
    const r1 = await post(`${srv.url}/v1/messages`, { model: "m", max_tokens: 5, messages: [] });
    expect(r1.status).toBe(529);
    expect(r1.headers.get("request-id")).toMatch(/^req_/);
    expect(await r1.json()).toMatchObject({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    const ok = await (await post(`${srv.url}/v1/messages`, { model: "m", max_tokens: 5, messages: [] })).json();
    expect(ok).toMatchObject({
      id: expect.stringMatching(/^msg_/),
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "hi" }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number), cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  it("answers 401 in Anthropic's format when the key is wrong, and records no key", async () => {
    const srv = await startAnthropicServer({ expectedApiKey: "right-key" });
    closers.push(srv.close);
    const r = await post(`${srv.url}/v1/messages`, { model: "m", messages: [] }, { "x-api-key": "wrong-key-value" });
    expect(r.status).toBe(401);
    expect(await r.json()).toMatchObject({ error: { type: "authentication_error" } });
    expect(srv.requests[0]).toMatchObject({ apiKeySent: true, headers: { "x-api-key": "[redacted]" } });
    expect(JSON.stringify(srv.requests)).not.toContain("wrong-key-value");
  });
});
