import { describe, expect, it } from "vitest";
import { compareModels, criterionOk, failedCriteria, MIN_PAIRED_TASKS, pairedBootstrap, passAtK, passHatK } from "../../src/env/stats.js";
import type { RolloutRecord } from "../../src/env/types.js";
import { emptyUsage } from "../../src/types.js";

/** Every k-subset of 0..n-1. */
function subsets(n: number, k: number): number[][] {
  if (k === 0) return [[]];
  const out: number[][] = [];
  const go = (start: number, acc: number[]) => {
    if (acc.length === k) return void out.push([...acc]);
    for (let i = start; i < n; i++) go(i + 1, [...acc, i]);
  };
  go(0, []);
  return out;
}

describe("pass@k and pass^k", () => {
  it("match the exact probabilities over every way to draw k of n rollouts", () => {
    for (let n = 1; n <= 7; n++) {
      for (let c = 0; c <= n; c++) {
        for (let k = 1; k <= n; k++) {
          const all = subsets(n, k); // rollouts 0..c-1 passed
          const some = all.filter((s) => s.some((i) => i < c)).length / all.length;
          const every = all.filter((s) => s.every((i) => i < c)).length / all.length;
          expect(passAtK(n, c, k)).toBeCloseTo(some, 12);
          expect(passHatK(n, c, k)).toBeCloseTo(every, 12);
        }
      }
    }
  });

  it("give the textbook values and refuse k above n", () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 12);
    expect(passHatK(4, 2, 2)).toBeCloseTo(1 / 6, 12);
    expect(passAtK(200, 0, 100)).toBe(0);
    expect(passAtK(200, 150, 100)).toBe(1);
    expect(() => passAtK(2, 1, 3)).toThrow(RangeError);
  });
});

describe("paired bootstrap", () => {
  const tasks = (values: number[]) => new Map(values.map((v, i) => [`t${i}`, v]));
  it("calls a consistent gap significant and noise not", () => {
    const a = tasks([0.9, 0.8, 1, 0.7, 0.9, 0.85, 0.95, 0.8]);
    const b = tasks([0.4, 0.5, 0.3, 0.45, 0.5, 0.35, 0.4, 0.3]);
    const better = pairedBootstrap(a, b);
    expect(better.tasks).toBe(8);
    expect(better.significant).toBe(true);
    expect(better.low).toBeGreaterThan(0);
    expect(better.p).toBeLessThan(0.01);
    const noise = pairedBootstrap(tasks([0.5, 0.7, 0.2, 0.9]), tasks([0.6, 0.6, 0.3, 0.8]));
    expect(noise.significant).toBe(false);
    expect(noise.low).toBeLessThan(0);
    expect(noise.high).toBeGreaterThan(0);
  });

  it("makes no significance claim below MIN_PAIRED_TASKS shared tasks, however large the gap", () => {
    expect(MIN_PAIRED_TASKS).toBeGreaterThanOrEqual(5);
    const four = pairedBootstrap(tasks([1, 1, 1, 1]), tasks([0, 0, 0, 0]));
    expect(four.tasks).toBe(4);
    expect(four.low).toBeGreaterThan(0); // the interval alone would claim it
    expect(four.significant).toBe(false);
    const enough = pairedBootstrap(tasks([1, 1, 1, 1, 1]), tasks([0, 0, 0, 0, 0]));
    expect(enough.significant).toBe(true);
  });

  it("pairs only the shared tasks", () => {
    const r = pairedBootstrap(new Map([["x", 1], ["y", 1], ["only-a", 0]]), new Map([["x", 0], ["y", 0], ["only-b", 1]]));
    expect(r.tasks).toBe(2);
    expect(r.diff).toBe(1);
    expect(pairedBootstrap(new Map([["x", 1]]), new Map([["y", 1]])).tasks).toBe(0);
  });
});

function rec(model: string, task: string, rollout: number, reward: number | null, statuses: [string, "met" | "unmet" | "error", number][] = []): RolloutRecord {
  return {
    env: "e",
    model,
    task,
    rollout,
    messages: [],
    toolCalls: [],
    response: "",
    turns: 2,
    stopReason: "final_answer",
    reward,
    passed: null,
    verdicts: statuses.map(([id, status, points]) => ({ id, status, points, earned: 0, required: false, source: "check" as const })),
    errors: reward === null ? [{ criterion: "x", code: "PROVIDER_HTTP", message: "down" }] : [],
    feedback: "",
    usage: { policy: { calls: 2, cacheHits: 0, inputTokens: 100, outputTokens: 10, costUsd: 0.5 }, judge: { ...emptyUsage(), inputTokens: 50, costUsd: 0.25 } },
    ms: 1,
  };
}

describe("compareModels", () => {
  it("pitfalls pass when not met; a failed criterion is an unmet positive or a met pitfall", () => {
    expect(criterionOk({ status: "met", points: -3 })).toBe(false);
    expect(criterionOk({ status: "unmet", points: -3 })).toBe(true);
    expect(criterionOk({ status: "error", points: 1 })).toBeUndefined();
    expect(failedCriteria(rec("m", "t", 0, 0.5, [["a", "unmet", 2], ["trap", "met", -1], ["b", "met", 1]]))).toEqual(["a", "trap"]);
  });

  it("summarises each model: rewards by task, pass@k over tasks, criterion rates, usage; errors left out, not zeroed", () => {
    const records = [
      rec("A", "t1", 0, 1, [["c", "met", 1]]),
      rec("A", "t1", 1, 0, [["c", "unmet", 1]]),
      rec("A", "t2", 0, 1, [["c", "met", 1]]),
      rec("A", "t2", 1, 1, [["c", "met", 1]]),
      rec("B", "t1", 0, 0, [["c", "unmet", 1]]),
      rec("B", "t1", 1, null, [["c", "error", 1]]),
      rec("B", "t2", 0, 0.5, [["c", "unmet", 1]]),
      rec("B", "t2", 1, 0.5, [["c", "met", 1]]),
    ];
    const cmp = compareModels(records, { passThreshold: 1 });
    const [a, b] = cmp.models;
    expect(a.reward?.mean).toBe(0.75); // task means 0.5 and 1
    expect(a.passRate).toBe(0.75);
    expect(a.passAtK).toEqual({ 1: 0.75, 2: 1 });
    expect(a.passHatK).toEqual({ 1: 0.75, 2: 0.5 });
    expect(a.criteria).toEqual([{ id: "c", answered: 4, ok: 3, rate: 0.75 }]);
    expect(a.usage.policy.inputTokens).toBe(400);
    expect(a.usage.costUsd).toBeCloseTo(4 * 0.75, 12);
    expect([b.scored, b.errors]).toEqual([3, 1]);
    expect(b.reward?.mean).toBe(0.25); // t1: 0 (the error is not a 0), t2: 0.5
    expect(b.passAtK).toEqual({ 1: 0 }); // t1 has one scored rollout, so k stops at 1
    expect(b.criteria[0]).toEqual({ id: "c", answered: 3, ok: 1, rate: 1 / 3 });
    expect(cmp.pairs).toHaveLength(1);
    expect(cmp.pairs[0]).toMatchObject({ a: "A", b: "B", tasks: 2, diff: 0.5 });
  });
});
