import { describe, expect, it } from "vitest";
import { bootstrap, bootstrapMany, quantile, seededRandom } from "../../src/stats/bootstrap.js";

const mean = (s: readonly number[]) => (s.length ? s.reduce((a, b) => a + b, 0) / s.length : null);

describe("seededRandom", () => {
  it("is deterministic per seed and in [0, 1)", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(seededRandom(43)()).not.toBe(seededRandom(42)());
    expect(mean(xs)).toBeGreaterThan(0.45);
    expect(mean(xs)).toBeLessThan(0.55);
  });
});

describe("quantile", () => {
  it("interpolates linearly like numpy.quantile", () => {
    expect(quantile([1, 2, 3, 4], 0.25)).toBe(1.75);
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([5], 0.975)).toBe(5);
    expect(quantile([], 0.5)).toBeNull();
  });
});

describe("bootstrap", () => {
  const data = Array.from({ length: 200 }, (_, i) => (i % 4 === 0 ? 1 : 0)); // mean 0.25
  it("is deterministic with a seed and changes with another", () => {
    const a = bootstrap(data, mean, { seed: 7 });
    expect(bootstrap(data, mean, { seed: 7 })).toEqual(a);
    const smooth = Array.from({ length: 50 }, (_, i) => Math.sin(i) * 10);
    expect(bootstrap(smooth, mean, { seed: 8 })).toEqual(bootstrap(smooth, mean, { seed: 8 }));
    expect(bootstrap(smooth, mean, { seed: 8 }).lo).not.toBe(bootstrap(smooth, mean, { seed: 9 }).lo);
  });
  it("brackets the point estimate, about ±1.96 standard errors wide", () => {
    const r = bootstrap(data, mean, { seed: 1 });
    expect(r.value).toBe(0.25);
    const se = Math.sqrt((0.25 * 0.75) / 200);
    expect(r.lo as number).toBeLessThan(0.25);
    expect(r.hi as number).toBeGreaterThan(0.25);
    expect((r.hi as number) - (r.lo as number)).toBeGreaterThan(2 * 1.96 * se * 0.8);
    expect((r.hi as number) - (r.lo as number)).toBeLessThan(2 * 1.96 * se * 1.2);
  });
  it("uses 1000 resamples by default, shares resamples across statistics, counts undefined ones", () => {
    let calls = 0;
    const out = bootstrapMany([0, 1], {
      count: (s) => (calls++, s.length),
      onlyWithOne: (s) => (s.includes(1) ? 1 : null),
    }, { seed: 3 });
    expect(calls).toBe(1001);
    expect(out.count).toEqual({ value: 2, lo: 2, hi: 2, undefinedResamples: 0 });
    // P(no 1 in two draws) = 1/4
    expect(out.onlyWithOne.undefinedResamples).toBeGreaterThan(180);
    expect(out.onlyWithOne.undefinedResamples).toBeLessThan(320);
  });
  it("gives nulls with no items", () => {
    expect(bootstrap([], mean)).toEqual({ value: null, lo: null, hi: null, undefinedResamples: 0 });
  });
});

describe("one PRNG and one bootstrap loop", () => {
  it("seededRandom is the Rng stream from the golden-ratio-mixed seed", async () => {
    const { Rng } = await import("../../src/stats/rng.js");
    const rng = new Rng((7 >>> 0) ^ 0x9e3779b9);
    const random = seededRandom(7);
    expect(Array.from({ length: 5 }, () => random())).toEqual(Array.from({ length: 5 }, () => rng.next()));
  });
  it("resamples independent groups independently and gives sorted draws", async () => {
    const { resampleStatistics } = await import("../../src/stats/bootstrap.js");
    const out = resampleStatistics([[1, 2, 3], [10]] as const, { sum: ([a, b]) => a[0] + b[0], none: () => null }, { seed: 2, resamples: 50 });
    expect(out.sum.draws).toHaveLength(50);
    expect(out.sum.draws).toEqual([...out.sum.draws].sort((x, y) => x - y));
    expect(out.sum.draws.every((v) => v >= 11 && v <= 13)).toBe(true);
    expect(out.none).toEqual({ draws: [], undefinedResamples: 50 });
    expect(resampleStatistics([[1], []] as const, { s: () => 1 }).s).toEqual({ draws: [], undefinedResamples: 0 });
  });
});
