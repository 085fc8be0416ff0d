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

  it("stops a job that computes past the limit, and gives another run only to a run that spent under half the limit in CPU", () => {
    const limitMs = 30;
    const startsAt: NodeJS.CpuUsage[] = [];
    const job = () => {
      startsAt.push(process.cpuUsage());
      for (;;);
    };
    expect(withTimeLimit(job, limitMs)).toBeUndefined();
    const end = process.cpuUsage();
    // How many runs depends on the machine's load (a starved run gets another); the rule does not:
    // each run that was followed by another spent under half the limit, and a stop before the last
    // allowance came after a run that spent at least half. (Marks are taken inside the job, a
    // fraction of a millisecond from the guard's own: `slackMs` covers that.)
    const slackMs = 2;
    const spent = startsAt.map((from, i) => {
      const to = startsAt[i + 1] ?? end;
      return (to.user - from.user + to.system - from.system) / 1000;
    });
    expect(startsAt.length).toBeGreaterThanOrEqual(1);
    expect(startsAt.length).toBeLessThanOrEqual(3);
    for (const ms of spent.slice(0, -1)) expect(ms).toBeLessThan(limitMs / 2 + slackMs);
    if (startsAt.length < 3) expect(spent.at(-1)).toBeGreaterThanOrEqual(limitMs / 2 - slackMs);
  });

  it("stops a job that only ever waits, after its longest allowance", () => {
    let runs = 0;
    const job = () => {
      runs++;
      waitIdle(10_000);
      return "never";
    };
    // Stopped by the watchdog in each of its three allowances (20, 80, 320 ms): a run let go on
    // would have returned "never" after its 10 s wait.
    expect(withTimeLimit(job, 20)).toBeUndefined();
    expect(runs).toBe(3);
  });
});
