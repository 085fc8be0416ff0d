import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { flushMicrotasks } from "../../src/engine/clock.js";
import { Scheduler } from "../../src/engine/scheduler.js";

const limits = { maxConcurrency: 64, maxRetries: 3, timeoutMs: 30_000 };

describe("Scheduler resources", () => {
  it("leaves no listener or timer behind over 10,000 calls sharing one signal (real timers)", async () => {
    const s = new Scheduler(limits);
    const ac = new AbortController();
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    for (let round = 0; round < 10; round++) {
      await Promise.all(Array.from({ length: 1000 }, (_, i) => s.run(async () => i, { signal: ac.signal })));
    }
    await flushMicrotasks();
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
    expect(process.getActiveResourcesInfo().filter((r) => r === "Timeout").length).toBeLessThanOrEqual(timersBefore);
    expect(s.stats).toMatchObject({ started: 10_000, succeeded: 10_000, inFlight: 0, queued: 0 });
  });

  it("an abort of 5,000 queued and running calls rejects them all and leaves nothing behind", async () => {
    const s = new Scheduler({ ...limits, maxConcurrency: 4 });
    const ac = new AbortController();
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    let started = 0;
    const never = (signal: AbortSignal) =>
      new Promise((_, reject) => {
        started++;
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    const all = Promise.allSettled(Array.from({ length: 5000 }, () => s.run(never, { signal: ac.signal })));
    await flushMicrotasks();
    ac.abort();
    const settled = await all;
    await flushMicrotasks();
    expect(settled.every((r) => r.status === "rejected" && (r.reason as { code: string }).code === "ABORTED")).toBe(true);
    expect(started).toBe(4);
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
    expect(process.getActiveResourcesInfo().filter((r) => r === "Timeout").length).toBeLessThanOrEqual(timersBefore);
    expect(s.stats).toMatchObject({ failed: 5000, inFlight: 0, queued: 0 });
  });
});
