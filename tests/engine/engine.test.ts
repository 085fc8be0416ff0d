import { getEventListeners } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryCache, openCache } from "../../src/engine/cache/index.js";
import { FinishInFlight } from "../../src/engine/abort.js";
import { createEngine } from "../../src/engine/engine.js";
import { cacheKey } from "../../src/engine/key.js";
import type { SchedulerLimits } from "../../src/engine/types.js";
import { RubricateError } from "../../src/errors.js";
import type { CompletionRequest, CompletionResponse, Provider } from "../../src/providers/types.js";

const limits: SchedulerLimits = { maxConcurrency: 4, maxRetries: 2, timeoutMs: 5000, backoffBaseMs: 1, backoffMaxMs: 2 };
const req = (q = "q1"): CompletionRequest => ({ model: "m", messages: [{ role: "user", content: q }], temperature: 0 });
const answer = (text: string): CompletionResponse => ({ text, finishReason: "stop", usage: { inputTokens: 1000, outputTokens: 100, cachedInputTokens: 400 } });

/** A fake provider: `impl` answers; calls are counted; each answer can be held until released. */
function fakeProvider(impl: (r: CompletionRequest, n: number) => Promise<CompletionResponse> | CompletionResponse = (r) => answer(String(r.messages[0].content))) {
  const p = {
    name: "fake",
    baseURL: "http://fake.test/v1",
    calls: 0,
    signals: [] as AbortSignal[],
    complete: async (r: CompletionRequest, o?: { signal?: AbortSignal }) => {
      p.signals.push(o!.signal!);
      return impl(r, ++p.calls);
    },
  };
  return p satisfies Provider;
}
const deferred = <T>() => {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};

describe("engine", () => {
  it("pays once, then serves hits from the cache, with usage and cost totals", async () => {
    const engine = createEngine({ cache: new MemoryCache(100), limits, price: { input: 2, output: 10, cached_input: 1 } });
    const p = fakeProvider();
    const a = await engine.complete(p, req());
    const b = await engine.complete(p, req());
    const c = await engine.complete(p, req("q2"));
    expect([a.cached, b.cached, c.cached]).toEqual([false, true, false]);
    expect(b.response).toEqual(a.response);
    expect(p.calls).toBe(2);
    const { usage, cache } = engine.stats();
    expect(usage).toMatchObject({ calls: 2, cacheHits: 1, inputTokens: 2000, outputTokens: 200, cachedInputTokens: 800 });
    expect(usage.costUsd).toBeCloseTo(2 * (600 * 2 + 400 * 1 + 100 * 10) / 1e6, 12);
    expect(cache).toMatchObject({ hits: 1, misses: 2, writes: 2 });
  });

  it("classifies each call's usage, paid or cached, and its totals are the sum of those", async () => {
    const price = { input: 2, output: 10, cached_input: 1 };
    const engine = createEngine({ cache: new MemoryCache(100), limits });
    const p = fakeProvider();
    const paid = await engine.complete(p, req(), { price });
    const hit = await engine.complete(p, req(), { price });
    expect(paid.usage).toEqual({ calls: 1, cacheHits: 0, inputTokens: 1000, outputTokens: 100, cachedInputTokens: 400, costUsd: (600 * 2 + 400 * 1 + 100 * 10) / 1e6 });
    expect(hit.usage).toEqual({ calls: 0, cacheHits: 1, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0 });
    const gate = deferred<void>();
    const slow = fakeProvider(async () => (await gate.promise, answer("x")));
    const both = Promise.all([engine.complete(slow, req("m")), engine.complete(slow, req("m"))]);
    gate.resolve();
    const [leader, follower] = await both;
    expect([leader.usage.calls, follower.usage.calls, follower.usage.cacheHits]).toEqual([1, 0, 1]);
    const sum = [paid, hit, leader, follower].reduce((n, r) => n + r.usage.costUsd, 0);
    expect(engine.stats().usage).toMatchObject({ calls: 2, cacheHits: 2, inputTokens: 2000 });
    // The merged pair ran without a price: only the first paid call has a cost.
    expect(engine.stats().usage.costUsd).toBeCloseTo(sum, 15);
  });

  it("separates votes and key extras, and noCache always pays", async () => {
    const engine = createEngine({ cache: new MemoryCache(100), limits });
    const p = fakeProvider();
    await engine.complete(p, req(), { voteIndex: 0 });
    await engine.complete(p, req(), { voteIndex: 1 });
    await engine.complete(p, req(), { voteIndex: 1, keyExtra: { criterion: "c@2" } });
    expect(p.calls).toBe(3);
    const fresh = await engine.complete(p, req(), { voteIndex: 0, noCache: true });
    expect(fresh.cached).toBe(false);
    expect(p.calls).toBe(4);
  });

  it("without a cache pays every call, merges none, and still gives each call's key when asked", async () => {
    const engine = createEngine({ limits });
    const gate = deferred<void>();
    const p = fakeProvider(async () => {
      await gate.promise;
      return answer("each");
    });
    const all = Promise.all(Array.from({ length: 3 }, () => engine.complete(p, req(), { voteIndex: 1 })));
    gate.resolve();
    const results = await all;
    expect(p.calls).toBe(3);
    expect(results.map((r) => [r.cached, r.usage.calls])).toEqual([[false, 1], [false, 1], [false, 1]]);
    expect(engine.stats()).toMatchObject({ merged: 0, usage: { calls: 3, cacheHits: 0 } });
    expect(results[0].key).toBe(cacheKey({ provider: p.name, baseURL: p.baseURL, request: req(), voteIndex: 1 }));
  });

  it("merges 10 identical concurrent calls into one provider call", async () => {
    const engine = createEngine({ cache: new MemoryCache(100), limits });
    const gate = deferred<void>();
    const p = fakeProvider(async (r) => {
      await gate.promise;
      return answer("merged");
    });
    const all = Promise.all(Array.from({ length: 10 }, () => engine.complete(p, req())));
    gate.resolve();
    const results = await all;
    expect(p.calls).toBe(1);
    expect(results.every((r) => r.response.text === "merged")).toBe(true);
    expect(results.filter((r) => !r.cached)).toHaveLength(1);
    expect(engine.stats()).toMatchObject({ merged: 9, usage: { calls: 1, cacheHits: 9 } });
  });

  it("never caches errors: followers share the leader's error, the next call pays again", async () => {
    const engine = createEngine({ cache: new MemoryCache(100), limits });
    const gate = deferred<void>();
    const p = fakeProvider(async (_r, n) => {
      await gate.promise;
      if (n === 1) throw new RubricateError("PROVIDER_HTTP", "bad request", { status: 400 });
      return answer("ok");
    });
    const all = Promise.allSettled(Array.from({ length: 5 }, () => engine.complete(p, req())));
    gate.resolve();
    const settled = await all;
    expect(settled.every((s) => s.status === "rejected" && (s.reason as RubricateError).code === "PROVIDER_HTTP")).toBe(true);
    expect(p.calls).toBe(1);
    const again = await engine.complete(p, req());
    expect(again).toMatchObject({ cached: false, response: { text: "ok" } });
    expect(p.calls).toBe(2);
    expect(engine.stats().usage.calls).toBe(1); // only the successful call is paid
  });

  it("a refused key (401) stops that scheduler's calls: the queued and later ones fail unsent, others go on", async () => {
    const engine = createEngine({ limits });
    const p = fakeProvider((r) => {
      if (r.model === "m") throw new RubricateError("PROVIDER_HTTP", "fake: 401 invalid api key", { status: 401 });
      return answer("ok");
    });
    const settled = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => engine.complete(p, req(`q${i}`))));
    // Only the first wave (the scheduler's 4 slots) reached the provider.
    expect(p.calls).toBe(limits.maxConcurrency);
    expect(settled.every((s) => s.status === "rejected" && (s.reason as RubricateError).status === 401)).toBe(true);
    const unsent = settled.filter((s) => s.status === "rejected" && /not sent: the provider refused this key/.test((s.reason as Error).message));
    expect(unsent).toHaveLength(20 - limits.maxConcurrency);
    await expect(engine.complete(p, req("later"))).rejects.toMatchObject({ status: 401, retryable: false });
    expect(p.calls).toBe(limits.maxConcurrency);
    // Another model has its own scheduler, so its calls still go out.
    expect((await engine.complete(p, { ...req("x"), model: "other" })).response.text).toBe("ok");
  });

  it("a 400 or a 403 refuses nothing: the next call is sent", async () => {
    for (const status of [400, 403]) {
      const engine = createEngine({ limits });
      const p = fakeProvider((_r, n) => {
        if (n === 1) throw new RubricateError("PROVIDER_HTTP", `fake: ${status}`, { status });
        return answer("ok");
      });
      await expect(engine.complete(p, req("a"))).rejects.toMatchObject({ status });
      expect((await engine.complete(p, req("b"))).response.text).toBe("ok");
      expect(p.calls).toBe(2);
    }
  });

  it("retries retryable provider errors through the scheduler", async () => {
    const engine = createEngine({ cache: new MemoryCache(100), limits });
    const p = fakeProvider((r, n) => {
      if (n < 3) throw new RubricateError("RATE_LIMITED", "429", { retryable: true, status: 429 });
      return answer("third time");
    });
    expect((await engine.complete(p, req())).response.text).toBe("third time");
    const s = Object.values(engine.stats().schedulers)[0];
    expect(s).toMatchObject({ retries: 2, rateLimited: 2, succeeded: 1 });
  });

  it("one waiter's abort leaves the others served; the call is aborted only when all have left", async () => {
    const engine = createEngine({ cache: new MemoryCache(100), limits });
    const gate = deferred<void>();
    const p = fakeProvider(async () => {
      await gate.promise;
      return answer("late");
    });
    const a1 = new AbortController();
    const first = engine.complete(p, req(), { signal: a1.signal });
    const second = engine.complete(p, req());
    a1.abort();
    await expect(first).rejects.toMatchObject({ code: "ABORTED" });
    expect(p.signals[0].aborted).toBe(false);
    gate.resolve();
    expect((await second).response.text).toBe("late");

    const gate2 = deferred<void>();
    const q = fakeProvider(async () => {
      await gate2.promise;
      return answer("never");
    });
    const b1 = new AbortController();
    const b2 = new AbortController();
    const x = engine.complete(q, req("other"), { signal: b1.signal });
    const y = engine.complete(q, req("other"), { signal: b2.signal });
    b1.abort();
    b2.abort();
    await expect(x).rejects.toMatchObject({ code: "ABORTED" });
    await expect(y).rejects.toMatchObject({ code: "ABORTED" });
    expect(q.signals[0].aborted).toBe(true);
    gate2.resolve();
    // A newcomer after everyone left starts a fresh call rather than joining the aborted one.
    expect((await engine.complete(q, req("other"))).cached).toBe(false);
    expect(q.calls).toBe(2);
  });

  // The first Ctrl-C used to abort calls in flight: answers maybe paid, never kept.
  it("a stop that lets calls in flight finish: the sent call answers and is cached, a new call is refused, with the cache on and off", async () => {
    for (const cache of [new MemoryCache(100), openCache({ path: null })]) {
      const engine = createEngine({ cache, limits });
      const gate = deferred<void>();
      const p = fakeProvider(async () => (await gate.promise, answer("paid")));
      const stop = new AbortController();
      const inFlight = engine.complete(p, req(), { signal: stop.signal });
      await new Promise((r) => setImmediate(r));
      stop.abort(new FinishInFlight("SIGINT: stopped"));
      await expect(engine.complete(p, req("new"), { signal: stop.signal })).rejects.toMatchObject({ code: "ABORTED" });
      expect(p.signals[0].aborted).toBe(false);
      gate.resolve();
      expect((await inFlight).response.text).toBe("paid");
      expect(p.calls).toBe(1);
      if (cache instanceof MemoryCache) expect((await engine.complete(p, req())).cached).toBe(true);
    }
  });

  it("keeps separate schedulers (and limits) per id", async () => {
    const engine = createEngine({ cache: openCache({ path: null }), limits });
    engine.schedulerFor("judge", { ...limits, maxConcurrency: 1 });
    engine.schedulerFor("policy", { ...limits, maxConcurrency: 3 });
    let active = 0;
    let max = 0;
    const p = fakeProvider(async (r) => {
      max = Math.max(max, ++active);
      await new Promise((res) => setTimeout(res, 5));
      active--;
      return answer("x");
    });
    await Promise.all(Array.from({ length: 5 }, (_, i) => engine.complete(p, req(`j${i}`), { scheduler: "judge" })));
    expect(max).toBe(1);
    max = 0;
    await Promise.all(Array.from({ length: 9 }, (_, i) => engine.complete(p, req(`p${i}`), { scheduler: "policy" })));
    expect(max).toBe(3);
    expect(Object.keys(engine.stats().schedulers).sort()).toEqual(["judge", "policy"]);
  });

  it("leaves no abort listener or timer behind over 10,000 calls sharing one signal", async () => {
    const engine = createEngine({ cache: new MemoryCache(1000), limits: { ...limits, maxConcurrency: 64 } });
    const p = fakeProvider();
    const ac = new AbortController();
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timers();
    for (let round = 0; round < 10; round++) {
      // half distinct (paid), half repeats of the same round (hits or merged)
      await Promise.all(Array.from({ length: 1000 }, (_, i) => engine.complete(p, req(`r${round}-${i % 500}`), { signal: ac.signal })));
    }
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
    expect(timers()).toBeLessThanOrEqual(before);
    expect(engine.stats().usage).toMatchObject({ calls: 5000, cacheHits: 5000 });
    expect(Object.values(engine.stats().schedulers)[0]).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it("a re-run over the same SQLite file pays nothing for what was answered", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rubricate-engine-"));
    try {
      const path = join(dir, "c.db");
      const p = fakeProvider();
      const first = createEngine({ cache: openCache({ path }), limits });
      await Promise.all(Array.from({ length: 20 }, (_, i) => first.complete(p, req(`q${i}`))));
      first.close();
      const second = createEngine({ cache: openCache({ path }), limits });
      await Promise.all(Array.from({ length: 25 }, (_, i) => second.complete(p, req(`q${i}`))));
      expect(second.stats().usage).toMatchObject({ calls: 5, cacheHits: 20 });
      expect(p.calls).toBe(25);
      second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
