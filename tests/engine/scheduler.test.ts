import { describe, expect, it } from "vitest";
import { RubricateError } from "../../src/errors.js";
import { ManualClock } from "../../src/engine/clock.js";
import { Scheduler } from "../../src/engine/scheduler.js";
import { FinishInFlight } from "../../src/engine/abort.js";
import type { SchedulerLimits } from "../../src/engine/types.js";

const limits = (over: Partial<SchedulerLimits> = {}): SchedulerLimits => ({ maxConcurrency: 4, maxRetries: 3, timeoutMs: 60_000, backoffBaseMs: 100, backoffMaxMs: 1000, ...over });
const rateLimited = (retryAfterMs?: number) => new RubricateError("RATE_LIMITED", "429", { retryable: true, status: 429, retryAfterMs });
const http500 = () => new RubricateError("PROVIDER_HTTP", "500", { retryable: true, status: 500 });

/** A task that takes `ms` of manual-clock time and tracks how many run at once. */
function tracker(clock: ManualClock) {
  const t = { active: 0, max: 0, calls: 0 };
  const task = (ms: number, fail?: () => Error) => (signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      t.calls++;
      t.active++;
      t.max = Math.max(t.max, t.active);
      const h = clock.setTimeout(() => {
        t.active--;
        signal.removeEventListener("abort", onAbort);
        const e = fail?.();
        if (e) reject(e);
        else resolve("ok");
      }, ms);
      const onAbort = () => {
        clock.clearTimeout(h);
        t.active--;
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
    });
  return { t, task };
}

describe("Scheduler", () => {
  it("never runs more than maxConcurrency at once, and runs everything", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits({ maxConcurrency: 4 }), { clock });
    const { t, task } = tracker(clock);
    const all = Promise.all(Array.from({ length: 50 }, (_, i) => s.run(task(10 + (i % 7)))));
    await clock.advance(1000);
    expect(await all).toHaveLength(50);
    expect(t.max).toBe(4);
    expect(s.stats).toMatchObject({ started: 50, succeeded: 50, failed: 0, inFlight: 0, queued: 0 });
    expect(clock.pendingTimers).toBe(0);
  });

  it("halves concurrency once per window of 429s, not once per 429, and never below 1", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits({ maxConcurrency: 8, maxRetries: 10 }), { clock, random: () => 0, growAfter: 1000 });
    const { t, task } = tracker(clock);
    let failures = 8; // the first window of 8 all answer 429
    const runs = Array.from({ length: 8 }, () => s.run(task(10, () => (failures-- > 0 ? rateLimited() : undefined) as Error)));
    await clock.advance(5);
    expect(t.active).toBe(8);
    await clock.advance(10);
    expect(s.stats.currentConcurrency).toBe(4);
    expect(s.stats.rateLimited).toBe(8);
    await clock.advance(100);
    await Promise.all(runs);
    expect(t.max).toBe(8);

    // Each later window that still hits 429 halves again, down to 1 and no lower.
    for (const expected of [2, 1, 1]) {
      const r = s.run(task(10, () => rateLimited()));
      await clock.advance(15);
      expect(s.stats.currentConcurrency).toBe(expected);
      r.catch(() => {});
      await clock.advance(10_000);
    }
  });

  it("grows back by one per window of successes up to maxConcurrency (AIMD)", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits({ maxConcurrency: 4, maxRetries: 5 }), { clock, random: () => 0 });
    const { t, task } = tracker(clock);
    let storm = true;
    const first = Array.from({ length: 4 }, () => s.run(task(10, () => (storm ? rateLimited() : undefined) as Error)));
    await clock.advance(10);
    storm = false;
    expect(s.stats.currentConcurrency).toBe(2);
    await clock.advance(100);
    await Promise.all(first);
    const seen: number[] = [];
    t.max = 0;
    for (let i = 0; i < 12; i++) {
      const batch = Array.from({ length: 8 }, () => s.run(task(10)));
      await clock.advance(200);
      await Promise.all(batch);
      seen.push(s.stats.currentConcurrency);
    }
    expect(seen.at(-1)).toBe(4);
    expect(seen).toEqual([...seen].sort((a, b) => a - b)); // only grows while all succeed
    expect(Math.max(...seen)).toBe(4);
    expect(t.max).toBeLessThanOrEqual(4);
  });

  it("waits at least retryAfterMs before retrying, and pauses other work meanwhile", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits({ maxConcurrency: 2 }), { clock, random: () => 0.999 });
    const starts: { id: string; at: number }[] = [];
    let first = true;
    const a = s.run(async () => {
      starts.push({ id: "a", at: clock.now() });
      if (first) {
        first = false;
        throw rateLimited(5000);
      }
      return "a";
    });
    await clock.advance(1);
    const b = s.run(async () => {
      starts.push({ id: "b", at: clock.now() });
      return "b";
    });
    await clock.advance(10_000);
    expect(await a).toBe("a");
    expect(await b).toBe("b");
    expect(starts[0]).toEqual({ id: "a", at: 0 });
    expect(starts.filter((x) => x.id === "a")[1].at).toBeGreaterThanOrEqual(5000);
    expect(starts.find((x) => x.id === "b")!.at).toBeGreaterThanOrEqual(5000);
  });

  it("a retry-after past the limit fails that call at once, saying how long the server asked for, and pauses nobody", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits({ maxRetryWaitMs: 60_000 }), { clock, random: () => 0.5 });
    let calls = 0;
    const a = s.run(async () => {
      calls++;
      throw rateLimited(100_000_000);
    });
    const failure = a.catch((e: RubricateError) => e);
    await clock.advance(1);
    const b = s.run(async () => "b");
    await clock.advance(1);
    const e = await failure;
    expect(e.code).toBe("RATE_LIMITED");
    expect(e.retryable).toBe(false);
    expect(e.message).toMatch(/asked to wait 27\.8 h, more than the judge's limit of 60 s/);
    expect(calls).toBe(1);
    expect(await b).toBe("b");
    expect(clock.now()).toBeLessThan(1000);
    // Within the limit it is honoured as before.
    const s2 = new Scheduler(limits({ maxRetryWaitMs: 60_000 }), { clock, random: () => 0.5 });
    let n = 0;
    const start = clock.now();
    const c = s2.run(async () => {
      if (n++ === 0) throw rateLimited(59_000);
      return clock.now() - start;
    });
    await clock.advance(70_000);
    expect(await c).toBeGreaterThanOrEqual(59_000);
  });

  it("honours retryAfterMs on other retryable errors too (503 with retry-after)", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits(), { clock, random: () => 0.5 });
    const at: number[] = [];
    const r = s.run(async () => {
      at.push(clock.now());
      if (at.length === 1) throw new RubricateError("PROVIDER_HTTP", "503", { retryable: true, status: 503, retryAfterMs: 3000 });
      return "ok";
    });
    await clock.advance(10_000);
    expect(await r).toBe("ok");
    expect(at).toEqual([0, 3000]);
  });

  it("backs off exponentially with full jitter under the cap", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits({ maxRetries: 5, backoffBaseMs: 100, backoffMaxMs: 500 }), { clock, random: () => 0.5 });
    const at: number[] = [];
    const r = s.run(async () => {
      at.push(clock.now());
      throw http500();
    });
    r.catch(() => {});
    await clock.advance(10_000);
    await expect(r).rejects.toMatchObject({ code: "PROVIDER_HTTP" });
    const gaps = at.slice(1).map((t, i) => t - at[i]);
    expect(gaps).toEqual([50, 100, 200, 250, 250]); // 0.5 × min(500, 100·2^n)
  });

  it("caps retries at maxRetries and reports the last error", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits({ maxRetries: 3 }), { clock, random: () => 0 });
    let calls = 0;
    const r = s.run(async () => {
      calls++;
      throw http500();
    });
    r.catch(() => {});
    await clock.advance(10_000);
    await expect(r).rejects.toMatchObject({ code: "PROVIDER_HTTP", status: 500 });
    expect(calls).toBe(4);
    expect(s.stats).toMatchObject({ retries: 3, failed: 1, succeeded: 0 });
  });

  it("does not retry non-retryable errors, and wraps foreign throws as INTERNAL", async () => {
    const s = new Scheduler(limits());
    let calls = 0;
    await expect(
      s.run(async () => {
        calls++;
        throw new RubricateError("PROVIDER_HTTP", "400", { status: 400 });
      }),
    ).rejects.toMatchObject({ code: "PROVIDER_HTTP", status: 400 });
    await expect(s.run(() => { calls++; throw new TypeError("boom"); })).rejects.toMatchObject({ code: "INTERNAL" });
    expect(calls).toBe(2);
    expect(s.stats.retries).toBe(0);
  });

  it("times out an attempt with PROVIDER_TIMEOUT, aborts its signal and retries it", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits({ timeoutMs: 1000, maxRetries: 1 }), { clock, random: () => 0 });
    const signals: AbortSignal[] = [];
    const r = s.run((signal) => {
      signals.push(signal);
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    });
    r.catch(() => {});
    await clock.advance(999);
    expect(signals).toHaveLength(1);
    expect(signals[0].aborted).toBe(false);
    await clock.advance(1);
    expect(signals[0].aborted).toBe(true);
    await clock.advance(1000);
    await expect(r).rejects.toMatchObject({ code: "PROVIDER_TIMEOUT", retryable: true });
    expect(signals).toHaveLength(2);
    expect(clock.pendingTimers).toBe(0);
    expect(s.stats.inFlight).toBe(0);
  });

  it("times out a task that ignores its signal, but keeps its slot until it really ends", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits({ maxConcurrency: 1, timeoutMs: 100, maxRetries: 0 }), { clock });
    let release!: () => void;
    const stuck = s.run(() => new Promise<void>((r) => (release = r)));
    stuck.catch(() => {});
    let nextStarted = false;
    const next = s.run(async () => {
      nextStarted = true;
    });
    await clock.advance(100);
    await expect(stuck).rejects.toMatchObject({ code: "PROVIDER_TIMEOUT" });
    expect(nextStarted).toBe(false); // the stuck request is still on the wire
    expect(s.stats.inFlight).toBe(1);
    release();
    await clock.advance(1);
    await next;
    expect(nextStarted).toBe(true);
  });

  it("enforces rpm with a token bucket", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits({ maxConcurrency: 10, rpm: 60 }), { clock });
    const at: number[] = [];
    const all = Promise.all(Array.from({ length: 5 }, () => s.run(async () => at.push(clock.now()))));
    await clock.advance(10_000);
    await all;
    expect(at).toEqual([0, 1000, 2000, 3000, 4000]);
  });

  it("charges tpm with the estimate and refunds it with real usage", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits({ maxConcurrency: 10, tpm: 6000 }), { clock }); // 100 tokens/s
    const at: number[] = [];
    const job = () => s.run(async () => at.push(clock.now()), { estimatedTokens: 100 });
    const a = job();
    const b = job();
    await clock.advance(500);
    expect(at).toEqual([0]); // b waits for the bucket
    s.recordUsage(100, 40); // a used less than estimated: 60 tokens back
    await clock.advance(1);
    await Promise.all([a, b]);
    expect(at).toEqual([0, 500]);
  });

  it("rejects at once on caller abort: queued work never runs, running work sees its signal aborted", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits({ maxConcurrency: 1 }), { clock });
    const { t, task } = tracker(clock);
    const ac = new AbortController();
    const running = s.run(task(1000), { signal: ac.signal });
    const queued = s.run(task(1000), { signal: ac.signal });
    await clock.advance(10);
    expect(t.calls).toBe(1);
    ac.abort();
    await expect(running).rejects.toMatchObject({ code: "ABORTED" });
    await expect(queued).rejects.toMatchObject({ code: "ABORTED" });
    await clock.advance(5000);
    expect(t.calls).toBe(1);
    expect(s.stats).toMatchObject({ inFlight: 0, queued: 0, failed: 2 });
    expect(clock.pendingTimers).toBe(0);
    await expect(s.run(task(1), { signal: ac.signal })).rejects.toMatchObject({ code: "ABORTED" });
  });

  // Aborted before (the first Ctrl-C): the answer of a call already sent, maybe paid, was lost.
  it("a stop that lets calls in flight finish: the sent call answers, the queued one never runs, a failing one is not sent again", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits({ maxConcurrency: 2 }), { clock, random: () => 0.5 });
    const { t, task } = tracker(clock);
    const ac = new AbortController();
    const running = s.run(task(1000), { signal: ac.signal });
    const failing = s.run(task(500, http500), { signal: ac.signal });
    const queued = s.run(task(1000), { signal: ac.signal });
    await clock.advance(10);
    expect(t.calls).toBe(2);
    const settled = Promise.allSettled([running, failing, queued]);
    ac.abort(new FinishInFlight("SIGINT: stopped"));
    await clock.advance(1000);
    const [ran, failed, notSent] = await settled;
    expect(ran).toEqual({ status: "fulfilled", value: "ok" });
    expect(failed).toMatchObject({ status: "rejected", reason: { code: "ABORTED" } });
    expect(notSent).toMatchObject({ status: "rejected", reason: { code: "ABORTED", message: "SIGINT: stopped" } });
    await clock.advance(10_000);
    expect(t.calls).toBe(2);
    expect(s.stats).toMatchObject({ inFlight: 0, queued: 0 });
    expect(clock.pendingTimers).toBe(0);
    await expect(s.run(task(1), { signal: ac.signal })).rejects.toMatchObject({ code: "ABORTED" });
  });

  it("abort during a backoff clears the backoff timer", async () => {
    const clock = new ManualClock();
    const s = new Scheduler(limits({ maxRetries: 5 }), { clock, random: () => 0.9 });
    const ac = new AbortController();
    let calls = 0;
    const r = s.run(async () => {
      calls++;
      throw http500();
    }, { signal: ac.signal });
    await clock.advance(1);
    expect(clock.pendingTimers).toBe(1); // the backoff
    ac.abort();
    await expect(r).rejects.toMatchObject({ code: "ABORTED" });
    expect(clock.pendingTimers).toBe(0);
    expect(s.stats.queued).toBe(0);
    await clock.advance(10_000);
    expect(calls).toBe(1);
  });

});
