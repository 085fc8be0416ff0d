import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { GuardedWorker, workerBootstrap, type StartWorker } from "../../src/checks/guarded-worker.js";
import { tsxLoaderURL } from "../../src/config/tsx-loader.js";
import { loopTurnsDuring } from "../helpers/event-loop.js";

const ENTRY = new URL("./fixtures/jobs-worker.ts", import.meta.url).href;

/** A worker serving tests/checks/math/fixtures/jobs-worker.ts's jobs; `extra` goes into its workerData. */
const jobsWorker =
  (extra: Record<string, unknown> = {}, entry = ENTRY, heapMb = 64): StartWorker =>
  (channel, transferList) =>
    new Worker(workerBootstrap(entry, tsxLoaderURL(import.meta.url)), { eval: true, execArgv: [], workerData: { ...channel, jobs: true, ...extra }, transferList, resourceLimits: { maxOldGenerationSizeMb: heapMb } });

const guards: GuardedWorker[] = [];
const guarded = (start: StartWorker = jobsWorker()) => {
  const guard = new GuardedWorker(start, 30_000);
  guards.push(guard);
  return guard;
};
afterEach(() => {
  for (const guard of guards.splice(0)) guard.close();
});

describe("GuardedWorker", () => {
  it("returns the worker's answer, synchronously, request after request", () => {
    const guard = guarded();
    expect(guard.call({ kind: "answer", value: 42 }, 200)).toEqual({ value: 42 });
    expect(guard.call({ kind: "answer", value: { equal: true } }, 200)).toEqual({ value: { equal: true } });
  });

  it("gives a job that waited (no CPU spent) more wall-clock time instead of calling it over time", () => {
    const guard = guarded();
    guard.call({ kind: "answer", value: "loaded" }, 200);
    // 150 ms idle against a 40 ms limit: past the first allowance, but no CPU spent, so the next (160 ms) is given.
    expect(guard.call({ kind: "wait", ms: 150 }, 40)).toEqual({ value: "waited" });
  });

  it("stops a job that computes past the limit, and the next request gets a fresh worker", () => {
    const guard = guarded();
    guard.call({ kind: "answer", value: "loaded" }, 200);
    // A job that never ends: stopped at the first allowance whose CPU reached half the limit.
    expect(guard.call({ kind: "spin" }, 30)).toBe("over-limit");
    expect(guard.call({ kind: "answer", value: "again" }, 200)).toEqual({ value: "again" });
  });

  it("stops a job that only ever waits, after its longest allowance", () => {
    const guard = guarded();
    guard.call({ kind: "answer", value: "loaded" }, 200);
    // A job let go on would answer "waited" after 10 s; the allowances end at 16 × 20 ms, so it is over the limit.
    expect(guard.call({ kind: "wait", ms: 10_000 }, 20)).toBe("over-limit");
  });

  it("throws the message of a job that throws, and goes on serving", () => {
    const guard = guarded();
    expect(() => guard.call({ kind: "throw", message: "reader defect" }, 200)).toThrow("reader defect");
    expect(guard.call({ kind: "answer", value: 7 }, 200)).toEqual({ value: 7 });
  });

  it("keeps the host alive when a job exhausts the worker's heap: over the limit, then a fresh worker", () => {
    const guard = guarded(jobsWorker({}, ENTRY, 16));
    guard.call({ kind: "answer", value: "loaded" }, 200);
    // Seen gone when its heap runs out, not at the end of its allowances (16 × 10 s, far past this test's timeout).
    expect(guard.call({ kind: "hoard" }, 10_000)).toBe("over-limit");
    expect(guard.call({ kind: "answer", value: "alive" }, 200)).toEqual({ value: "alive" });
  }, 30_000);

  it("says why a worker could not load, at once, whether its job failed to load or its entry is missing", () => {
    // At once: with a startup wait of 10 minutes, sitting it out would overrun this test's timeout.
    const patient = new GuardedWorker(jobsWorker({ failToLoad: true }), 600_000);
    guards.push(patient);
    expect(() => patient.call({ kind: "answer", value: 1 }, 200)).toThrow("the time-limited worker could not load: the job module is broken");
    const missing = new URL("./fixtures/no-such-worker.ts", import.meta.url).href;
    expect(() => guarded(jobsWorker({}, missing)).call({ kind: "answer", value: 1 }, 200)).toThrow(/could not load: .*no-such-worker/);
  });
});

describe("GuardedWorker.callAsync", () => {
  it("answers without blocking: calls made together are answered one at a time, in order, and a job may answer with a promise", async () => {
    const guard = guarded();
    const answers = await Promise.all([guard.callAsync({ kind: "answer", value: 1 }, 200), guard.callAsync({ kind: "later", value: 2 }, 200), guard.callAsync({ kind: "answer", value: 3 }, 200)]);
    expect(answers).toEqual([{ value: 1 }, { value: 2 }, { value: 3 }]);
  });

  it("the event loop runs while the worker computes, and a job past its limit is stopped; the next call gets a fresh worker", async () => {
    const guard = guarded();
    await guard.callAsync({ kind: "answer", value: "loaded" }, 200);
    const { result: spin, turns } = await loopTurnsDuring(() => guard.callAsync({ kind: "spin" }, 30));
    expect(spin).toBe("over-limit");
    // The synchronous call would have held the loop: not one turn until it returned.
    expect(turns).toBeGreaterThan(0);
    expect(await guard.callAsync({ kind: "answer", value: "again" }, 200)).toEqual({ value: "again" });
  });

  it("tells the meter the CPU the worker spent on the call: next to none for a job that waits, at least half the limit for one stopped past it", async () => {
    const guard = guarded();
    await guard.callAsync({ kind: "answer", value: "loaded" }, 200);
    const spent: number[] = [];
    const meter = (cpuMs: number) => spent.push(cpuMs);
    expect(await guard.callAsync({ kind: "wait", ms: 300 }, 1_000, meter)).toEqual({ value: "waited" });
    expect(await guard.callAsync({ kind: "spin" }, 100, meter)).toBe("over-limit");
    expect(spent).toHaveLength(2);
    // Waiting 300 ms costs the worker no CPU: the meter counts work, not the time the call took.
    expect(spent[0]).toBeLessThan(100);
    // Stopped at the first allowance whose CPU reached half the limit.
    expect(spent[1]).toBeGreaterThanOrEqual(50);
  });

  it("a job that throws is an error for its caller only", async () => {
    const guard = guarded();
    await expect(guard.callAsync({ kind: "throw", message: "no such job" }, 200)).rejects.toThrow("no such job");
    expect(await guard.callAsync({ kind: "answer", value: "next" }, 200)).toEqual({ value: "next" });
  });
});
