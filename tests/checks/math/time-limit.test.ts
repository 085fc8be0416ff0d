import { describe, expect, it } from "vitest";
import { withTimeLimit } from "../../../src/checks/math/time-limit.js";

/** Blocks this thread for `ms` without using CPU, as a process waiting for a core on a loaded machine. */
const waitIdle = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe("withTimeLimit", () => {
  it("returns the job's result within the limit", () => {
    expect(withTimeLimit(() => 6 * 7, 200)).toBe(42);
  });

  it("gives a job that waited (no CPU spent) more wall-clock time instead of calling it over time", () => {
    let runs = 0;
    const job = () => {
      runs++;
      // The first run waits past the limit, as a descheduled process would; the next is quick.
      if (runs === 1) waitIdle(150);
      return "equal";
    };
    expect(withTimeLimit(job, 40)).toBe("equal");
    expect(runs).toBeGreaterThanOrEqual(1);
  });

  it("stops a job that computes past the limit without running it to the longest allowance", () => {
    let runs = 0;
    const job = () => {
      runs++;
      for (;;);
    };
    expect(withTimeLimit(job, 30)).toBeUndefined();
    // One run; a second only if the machine kept it from half the limit's CPU in its first 30 ms.
    expect(runs).toBeLessThan(3);
  });

  it("stops a job that only ever waits, after its longest allowance", () => {
    let runs = 0;
    const job = () => {
      runs++;
      waitIdle(10_000);
      return "never";
    };
    const started = Date.now();
    expect(withTimeLimit(job, 20)).toBeUndefined();
    expect(runs).toBe(3);
    // 20 + 80 + 320 ms of allowance, not the job's 10 s.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
