import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { GuardedPool, defaultPoolSize, MAX_POOL_WORKERS } from "../../src/checks/guarded-pool.js";
import { workerBootstrap, type StartWorker } from "../../src/checks/guarded-worker.js";
import { tsxLoaderURL } from "../../src/config/tsx-loader.js";

const ENTRY = new URL("./fixtures/jobs-worker.ts", import.meta.url).href;

/** A worker serving tests/checks/fixtures/jobs-worker.ts's jobs (answer, wait without CPU, spin, ...). */
const jobsWorker: StartWorker = (channel, transferList) =>
  new Worker(workerBootstrap(ENTRY, tsxLoaderURL(import.meta.url)), { eval: true, execArgv: [], workerData: { ...channel, jobs: true }, transferList, resourceLimits: { maxOldGenerationSizeMb: 64 } });

const pools: GuardedPool[] = [];
const pooled = (size: number) => {
  const pool = new GuardedPool(jobsWorker, 30_000, size);
  pools.push(pool);
  return pool;
};
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
});

/** Starts `size` calls at once, so that each of the pool's workers is loaded before the test's own calls. */
async function warm(pool: GuardedPool): Promise<void> {
  await Promise.all(Array.from({ length: pool.size }, (_, i) => pool.callAsync({ kind: "answer", value: i }, 1_000)));
  expect(pool.started).toBe(pool.size);
}

/** The values of the calls, in the order they were answered. */
async function answerOrder(calls: Promise<{ value: unknown } | "over-limit">[]): Promise<unknown[]> {
  const order: unknown[] = [];
  await Promise.all(calls.map((call) => call.then((run) => order.push(run === "over-limit" ? run : run.value))));
  return order;
}

describe("GuardedPool", () => {
  it("runs calls side by side: a quick call is not held behind a slow one (with one worker, it is)", async () => {
    const two = pooled(2);
    await warm(two);
    // The wait spends no CPU, so its 1 s limit is stretched (see GuardedWorker) and it answers after ~1.5 s.
    expect(await answerOrder([two.callAsync({ kind: "wait", ms: 1_500 }, 1_000), two.callAsync({ kind: "answer", value: "quick" }, 1_000)])).toEqual(["quick", "waited"]);
    const one = pooled(1);
    await warm(one);
    expect(await answerOrder([one.callAsync({ kind: "wait", ms: 300 }, 1_000), one.callAsync({ kind: "answer", value: "quick" }, 1_000)])).toEqual(["waited", "quick"]);
  }, 30_000);

  it("starts no more workers than its size; the calls past it wait for a free one and are all answered", async () => {
    const pool = pooled(2);
    const values = Array.from({ length: 7 }, (_, i) => i);
    const runs = await Promise.all(values.map((value) => pool.callAsync({ kind: "later", value }, 1_000)));
    expect(runs).toEqual(values.map((value) => ({ value })));
    expect(pool.started).toBe(2);
  }, 30_000);

  it("starts workers on demand: calls one at a time keep to one", async () => {
    const pool = pooled(3);
    for (const value of [1, 2, 3]) expect(await pool.callAsync({ kind: "answer", value }, 1_000)).toEqual({ value });
    expect(pool.started).toBe(1);
  }, 30_000);

  it("a call past its limit ends its own worker only: the call beside it is answered, and the next call too", async () => {
    const pool = pooled(2);
    await warm(pool);
    const [spin, wait] = await Promise.all([pool.callAsync({ kind: "spin" }, 30), pool.callAsync({ kind: "wait", ms: 200 }, 1_000)]);
    expect(spin).toBe("over-limit");
    expect(wait).toEqual({ value: "waited" });
    expect(await Promise.all([pool.callAsync({ kind: "answer", value: "a" }, 1_000), pool.callAsync({ kind: "answer", value: "b" }, 1_000)])).toEqual([{ value: "a" }, { value: "b" }]);
  }, 30_000);

  it("a job that throws is the error of its caller only", async () => {
    const pool = pooled(2);
    const [thrown, answered] = await Promise.allSettled([pool.callAsync({ kind: "throw", message: "no such job" }, 1_000), pool.callAsync({ kind: "answer", value: 5 }, 1_000)]);
    expect(thrown).toMatchObject({ status: "rejected", reason: { message: "no such job" } });
    expect(answered).toEqual({ status: "fulfilled", value: { value: 5 } });
    expect(await pool.callAsync({ kind: "answer", value: 6 }, 1_000)).toEqual({ value: 6 });
  }, 30_000);
});

describe("defaultPoolSize", () => {
  it("leaves the caller a core, keeps at least one worker and at most MAX_POOL_WORKERS", () => {
    expect([1, 2, 3, 5, 8, 64].map((cores) => defaultPoolSize(cores))).toEqual([1, 1, 2, 4, MAX_POOL_WORKERS, MAX_POOL_WORKERS]);
    expect(MAX_POOL_WORKERS).toBe(4);
  });
});
