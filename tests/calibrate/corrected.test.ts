import { describe, expect, it } from "vitest";
import { USELESS_JUDGE_WARNING, correctedPassRate, roganGladen } from "../../src/calibrate/corrected.js";

describe("roganGladen", () => {
  it("worked example: observed 0.30 with sensitivity 0.90, specificity 0.95 → 0.25 / 0.85", () => {
    const r = roganGladen({ observed: 0.3, tpr: 0.9, tnr: 0.95 });
    expect(r.value).toBeCloseTo(0.25 / 0.85, 15);
    expect(r.value).toBeCloseTo(0.294117647, 8);
    expect(r.clipped).toBe(false);
  });
  it("a perfect judge needs no correction", () => {
    expect(roganGladen({ observed: 0.37, tpr: 1, tnr: 1 }).value).toBeCloseTo(0.37, 15);
  });
  it("clips to [0, 1] and says so", () => {
    const low = roganGladen({ observed: 0.01, tpr: 0.9, tnr: 0.95 });
    expect(low.raw).toBeCloseTo(-0.04 / 0.85, 12);
    expect(low.value).toBe(0);
    expect(low.clipped).toBe(true);
    expect(roganGladen({ observed: 0.99, tpr: 0.8, tnr: 0.99 }).value).toBe(1);
  });
  it("TPR + TNR ≤ 1: no value, a warning", () => {
    for (const [tpr, tnr] of [[0.5, 0.5], [0.3, 0.4]]) {
      const r = roganGladen({ observed: 0.4, tpr, tnr });
      expect(r.value).toBeNull();
      expect(r.warning).toBe(USELESS_JUDGE_WARNING);
    }
    expect(roganGladen({ observed: 0.4, tpr: null, tnr: 0.9 }).value).toBeNull();
  });
});

describe("correctedPassRate", () => {
  // 100 labelled: 40 human yes (36 judge yes), 60 human no (6 judge yes) → TPR 0.9, TNR 0.9
  const labelled = [
    ...Array.from({ length: 40 }, (_, i) => ({ human: true, judge: i < 36 })),
    ...Array.from({ length: 60 }, (_, i) => ({ human: false, judge: i < 6 })),
  ];
  it("on the labelled items themselves it recovers the human prevalence exactly", () => {
    const r = correctedPassRate({ labelled }, { seed: 1 });
    expect(r.source).toBe("labelled");
    expect(r.observed).toBeCloseTo(0.42, 15);
    expect(r.value).toBeCloseTo(0.4, 12);
    expect(r.lo as number).toBeLessThan(0.4);
    expect(r.hi as number).toBeGreaterThan(0.4);
  });
  it("corrects an unlabelled pass rate: (0.5 + 0.9 − 1) / 0.8 = 0.5", () => {
    const unlabelled = Array.from({ length: 1000 }, (_, i) => i % 2 === 0);
    const r = correctedPassRate({ labelled, unlabelled }, { seed: 1 });
    expect(r.source).toBe("unlabelled");
    expect(r.n).toBe(1000);
    expect(r.value).toBeCloseTo(0.5, 12);
    expect(r.lo as number).toBeLessThan(0.5);
    expect(r.hi as number).toBeGreaterThan(0.5);
    expect(correctedPassRate({ labelled, unlabelled }, { seed: 1 })).toEqual(r);
  });
  it("warns when the judge is no better than chance", () => {
    const chance = [
      { human: true, judge: true }, { human: true, judge: false },
      { human: false, judge: true }, { human: false, judge: false },
    ];
    const r = correctedPassRate({ labelled: chance }, { seed: 1 });
    expect(r.value).toBeNull();
    expect(r.warning).toBe(USELESS_JUDGE_WARNING);
  });
  it("no labelled items: nulls", () => {
    const r = correctedPassRate({ labelled: [] });
    expect(r.value).toBeNull();
    expect(r.lo).toBeNull();
  });
});
