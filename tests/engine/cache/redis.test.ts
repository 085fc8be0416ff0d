import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RedisCache, openCache } from "../../../src/engine/cache/index.js";
import { createEngine } from "../../../src/engine/engine.js";
import type { SchedulerLimits } from "../../../src/engine/types.js";
import { RubricateError } from "../../../src/errors.js";
import type { CompletionRequest, CompletionResponse, Provider } from "../../../src/providers/types.js";
import { redisServer, startRedis, type LiveRedis } from "../../helpers/redis.js";

const limits: SchedulerLimits = { maxConcurrency: 64, maxRetries: 0, timeoutMs: 5000 };
const req = (q: string): CompletionRequest => ({ model: "m", messages: [{ role: "user", content: q }], temperature: 0 });
const answer = (text: string): CompletionResponse => ({ text, finishReason: "stop", usage: { inputTokens: 10, outputTokens: 1, cachedInputTokens: 0 } });
const API_KEY = "sk-never-stored-4b1e";

/** A provider that answers after `delayMs`, counting paid calls per prompt; `fail` makes a prompt's calls throw. */
function slowProvider(delayMs = 20, fail = new Set<string>()) {
  const paid = new Map<string, number>();
  const p = {
    name: "fake",
    baseURL: "http://fake.test/v1",
    apiKey: API_KEY,
    paid,
    calls: () => [...paid.values()].reduce((a, b) => a + b, 0),
    complete: async (r: CompletionRequest) => {
      const q = String(r.messages[0].content);
      await new Promise((res) => setTimeout(res, delayMs));
      if (fail.has(q)) throw new RubricateError("PROVIDER_HTTP", "judge down", { retryable: false });
      paid.set(q, (paid.get(q) ?? 0) + 1);
      return answer(`answer to ${q}`);
    },
  };
  return p satisfies Provider;
}

let redis: LiveRedis;
let n = 0;
const url = (extra = "") => `${redis.url}?prefix=t${++n}${extra}`;

redisServer.describe("RedisCache (a cache shared by several processes)", () => {
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("opens from a redis:// --cache value and stores an answer another cache then reads without paying", async () => {
    const a = openCache({ path: url() });
    expect(a).toBeInstanceOf(RedisCache);
    const b = RedisCache.open((a as RedisCache).url + `?prefix=${(a as RedisCache).prefix}`);
    const p = slowProvider(1);
    const first = await createEngine({ cache: a, limits }).complete(p, req("q"));
    const second = await createEngine({ cache: b, limits }).complete(p, req("q"));
    expect(first.cached).toBe(false);
    expect(second).toMatchObject({ cached: true, response: { text: "answer to q" } });
    expect(p.calls()).toBe(1);
    await Promise.all([a.close(), b.close()]);
  });

  it("pays once for identical calls in flight on two caches at once (300 prompts asked by both)", async () => {
    const u = url();
    const [a, b] = [RedisCache.open(u), RedisCache.open(u)];
    const p = slowProvider(15);
    const ea = createEngine({ cache: a, limits });
    const eb = createEngine({ cache: b, limits });
    const prompts = Array.from({ length: 300 }, (_, i) => `q${i}`);
    const results = await Promise.all([...prompts.map((q) => ea.complete(p, req(q))), ...prompts.map((q) => eb.complete(p, req(q)))]);
    expect(p.calls()).toBe(300);
    expect([...p.paid.values()].every((c) => c === 1)).toBe(true);
    expect(results.filter((r) => !r.cached)).toHaveLength(300);
    results.forEach((r, i) => expect(r.response.text).toBe(`answer to ${prompts[i % 300]}`));
    expect(ea.stats().usage.calls + eb.stats().usage.calls).toBe(300);
    await Promise.all([a.close(), b.close()]);
  });

  it("never stores an error: the waiter pays after the holder's call failed, and nothing is kept", async () => {
    const u = url();
    const [a, b] = [RedisCache.open(u), RedisCache.open(u)];
    const failing = slowProvider(30, new Set(["q"]));
    const working = slowProvider(1);
    const ea = createEngine({ cache: a, limits });
    const raw = new Redis(redis.url);
    const first = ea.complete(failing, req("q"));
    // b asks only once a holds the claim, however loaded the machine (a fixed wait raced b to it).
    while ((await raw.keys(`${a.prefix}:claim:*`)).length === 0) await new Promise((r) => setTimeout(r, 2));
    const second = createEngine({ cache: b, limits }).complete(working, req("q"));
    await expect(first).rejects.toMatchObject({ code: "PROVIDER_HTTP" });
    expect((await second).cached).toBe(false); // b paid: the failure released the claim without an answer
    expect(working.calls()).toBe(1);
    const values = await raw.keys(`${a.prefix}:answer:*`);
    expect(values).toHaveLength(1);
    expect(await raw.get(values[0])).toContain("answer to q");
    await raw.quit();
    await Promise.all([a.close(), b.close()]);
  });

  it("a claim whose holder died expires: the next process pays after lock_ms, not never", async () => {
    const u = url("&lock_ms=300");
    const dead = RedisCache.open(u);
    const claim = await dead.claim("k");
    expect("release" in claim).toBe(true);
    await dead.close(); // never releases, never renews: as if SIGKILLed (close stops the renewal with the connection)
    const alive = RedisCache.open(u);
    const started = Date.now();
    const next = await alive.claim("k");
    expect("release" in next).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150); // it waited for the expiry rather than paying at once
    if ("release" in next) await next.release();
    await alive.close();
  });

  it("stores no API key: Redis holds content-hash keys and the provider's answers only", async () => {
    const u = url();
    const c = RedisCache.open(u);
    await createEngine({ cache: c, limits }).complete(slowProvider(1), req("secret-free prompt"));
    await c.close();
    const raw = new Redis(redis.url);
    const keys = await raw.keys(`${c.prefix}:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) {
      expect(k).not.toContain(API_KEY);
      expect(String(await raw.get(k))).not.toContain(API_KEY);
    }
    await raw.quit();
  });

  it("with Redis unreachable the run goes on and pays (told once), and ready() names the URL", async () => {
    const errors: RubricateError[] = [];
    const c = RedisCache.open("redis://127.0.0.1:1/0", { onError: (e) => errors.push(e) });
    // The cause, not ioredis's "max retries per request" (that one hid ECONNREFUSED in a warning above).
    await expect(c.ready()).rejects.toThrow(/cannot reach the Redis cache at redis:\/\/127\.0\.0\.1:1\/0: .*ECONNREFUSED/);
    const p = slowProvider(1);
    const r = await createEngine({ cache: c, limits }).complete(p, req("q"));
    expect(r.cached).toBe(false);
    expect(p.calls()).toBe(1);
    expect(errors.length).toBeGreaterThan(0);
    await c.close();
  });

  it.each([
    ["not an object", "1"],
    ["a response of the wrong type", '{"response":1,"createdAt":1}'],
    ["a response without text", '{"response":{"answer":"yes"},"createdAt":1}'],
    ["usage missing", '{"response":{"text":"yes","finishReason":"stop"},"createdAt":1}'],
  ])("a stored value that is valid JSON of the wrong shape (%s) is a miss, and the answer paid for replaces it", async (_name, stored) => {
    const u = url();
    const c = RedisCache.open(u);
    const raw = new Redis(redis.url);
    await raw.set(`${c.prefix}:answer:k1`, stored);
    const claim = await c.claim("k1");
    expect("entry" in claim).toBe(false);
    const entry = { response: answer("yes"), createdAt: 5 };
    if (!("entry" in claim)) await claim.release(entry);
    expect(JSON.parse(String(await raw.get(`${c.prefix}:answer:k1`)))).toEqual(entry);
    const other = RedisCache.open(u);
    expect(await other.claim("k1")).toEqual({ entry });
    await Promise.all([c.close(), other.close(), raw.quit()]);
  });

  it("a Redis that stops answering (SIGSTOP) stalls no call: degraded with the reason, memory and paying meanwhile; back once it answers", async () => {
    const own = await startRedis();
    const events: string[] = [];
    const c = RedisCache.open(own.url, { commandTimeoutMs: 200, probeMs: 50 });
    c.onHealthChange((_h, message) => events.push(message));
    const p = slowProvider(1);
    const engine = createEngine({ cache: c, limits });
    await engine.complete(p, req("first"));
    own.child.kill("SIGSTOP");
    try {
      const during = await Promise.all(Array.from({ length: 20 }, (_, i) => engine.complete(p, req(`during ${i}`))));
      expect(during.every((r) => !r.cached)).toBe(true);
      expect(c.health).toMatchObject({ status: "degraded", reason: expect.stringMatching(/no answer within 200 ms/) });
      expect(c.stats).toMatchObject({ status: "degraded" });
      // An answer this process already has is still answered from its memory.
      expect(await engine.complete(p, req("during 3"))).toMatchObject({ cached: true });
    } finally {
      own.child.kill("SIGCONT");
    }
    while (c.health.status !== "ok") await new Promise((r) => setTimeout(r, 20));
    expect(events[0]).toMatch(/is unreachable \(no answer within 200 ms/);
    expect(events.at(-1)).toMatch(/is back after \d+ s/);
    expect(await engine.complete(p, req("after"))).toMatchObject({ cached: false });
    await c.close();
    await own.stop();
  });

  it("answers paid while Redis was down are written to it once it is back: another process does not pay for them again", async () => {
    const own = await startRedis();
    const c = RedisCache.open(own.url, { commandTimeoutMs: 200, probeMs: 50 });
    await c.ready();
    const p = slowProvider(1);
    const engine = createEngine({ cache: c, limits });
    own.child.kill("SIGSTOP");
    try {
      await Promise.all(Array.from({ length: 5 }, (_, i) => engine.complete(p, req(`outage ${i}`))));
      expect(c.health.status).toBe("degraded");
    } finally {
      own.child.kill("SIGCONT");
    }
    while (c.health.status !== "ok") await new Promise((r) => setTimeout(r, 20));
    await c.close(); // sends the pending writes
    const other = RedisCache.open(own.url);
    const q = slowProvider(1);
    const again = await Promise.all(Array.from({ length: 5 }, (_, i) => createEngine({ cache: other, limits }).complete(q, req(`outage ${i}`))));
    expect(again.every((r) => r.cached)).toBe(true);
    expect(q.calls()).toBe(0);
    await other.close();
    await own.stop();
  });

  it("closing while Redis answers nothing ends (pending writes time out) instead of waiting forever", async () => {
    const own = await startRedis();
    const c = RedisCache.open(own.url, { commandTimeoutMs: 200 });
    await c.ready();
    own.child.kill("SIGSTOP");
    try {
      c.set("k", { response: answer("x"), createdAt: 1 });
      await c.close();
      expect(c.stats.writeErrors).toBe(1);
    } finally {
      own.child.kill("SIGCONT");
      await own.stop();
    }
  });
});
