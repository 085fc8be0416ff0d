import fc from "fast-check";
import { tnr as tnrOf, tpr as tprOf } from "../../src/calibrate/metrics.js";
import { describe, expect, it } from "vitest";
import {
  brierScore, confusionAtThreshold, expectedCalibrationError, prevalenceThreshold, reliabilityBins, youdenThreshold,
} from "../../src/calibrate/probability.js";

const P = (probability: number, human: boolean) => ({ probability, human });

describe("reliability bins and ECE", () => {
  const pairs = [P(0.1, false), P(0.15, true), P(0.8, true), P(0.85, true), P(0.9, false), P(1, true)];
  it("puts 1.0 into the last bin and averages each bin", () => {
    const bins = reliabilityBins(pairs, 2);
    expect(bins[0]).toEqual({ lo: 0, hi: 0.5, count: 2, meanPredicted: 0.125, observed: 0.5 });
    expect(bins[1].count).toBe(4);
    expect(bins[1].meanPredicted).toBeCloseTo(0.8875, 12);
    expect(bins[1].observed).toBe(0.75);
  });
  it("ECE = Σ (n_b / n) |observed − mean predicted| (hand-worked)", () => {
    expect(expectedCalibrationError(pairs, 2)).toBeCloseTo((2 / 6) * 0.375 + (4 / 6) * 0.1375, 12);
    expect(expectedCalibrationError([P(0.8, true), P(0.8, false)], 10)).toBeCloseTo(0.3, 12);
    expect(expectedCalibrationError([])).toBeNull();
  });
  it("a perfectly calibrated set has ECE 0", () => {
    expect(expectedCalibrationError([P(0.5, true), P(0.5, false), P(1, true), P(0, false)], 10)).toBe(0);
  });
});

describe("Brier score", () => {
  it("is the mean squared error of the probability", () => {
    expect(brierScore([P(0.8, true), P(0.3, false)])).toBeCloseTo((0.04 + 0.09) / 2, 12);
    expect(brierScore([P(1, true), P(0, false)])).toBe(0);
    expect(brierScore([])).toBeNull();
  });
});

describe("thresholds", () => {
  // humans: yes at 0.9, 0.7, 0.6, 0.3; no at 0.65, 0.4, 0.2, 0.1
  const pairs = [P(0.9, true), P(0.7, true), P(0.6, true), P(0.3, true), P(0.65, false), P(0.4, false), P(0.2, false), P(0.1, false)];
  it("confusion at a threshold counts p ≥ t as yes", () => {
    expect(confusionAtThreshold(pairs, 0.6)).toEqual({ tp: 3, fp: 1, tn: 3, fn: 1 });
  });
  it("Youden's J picks the threshold maximising TPR + TNR − 1 (hand-worked: 0.6 gives 0.75 + 0.75 − 1 = 0.5)", () => {
    const y = youdenThreshold(pairs);
    expect(y?.youdenJ).toBeCloseTo(0.5, 12);
    expect(y?.threshold).toBe(0.6);
    expect(y?.metrics.accuracy).toBe(0.75);
  });
  it("prevalence matching gives the judge the humans' pass rate", () => {
    const p = prevalenceThreshold(pairs);
    expect(p?.metrics.passRate).toBe(0.5);
    expect(prevalenceThreshold(pairs, 0.25)?.metrics.passRate).toBe(0.25);
  });
  it("no threshold without both classes, or without items", () => {
    expect(youdenThreshold([P(0.2, true)])).toBeNull();
    expect(prevalenceThreshold([])).toBeNull();
  });
});


describe("threshold sweep against brute force (property)", () => {
  it("Youden's J found by the sweep is the maximum over every candidate threshold", () => {
    const arb = fc.array(fc.record({ probability: fc.constantFrom(0, 0.1, 0.25, 0.5, 0.6, 0.75, 0.9, 1), human: fc.boolean() }), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(arb, (pairs) => {
        const y = youdenThreshold(pairs);
        if (!pairs.some((p) => p.human) || !pairs.some((p) => !p.human)) {
          expect(y).toBeNull();
          return;
        }
        let bestJ = -Infinity;
        for (const t of [...pairs.map((p) => p.probability), Infinity]) {
          const c = confusionAtThreshold(pairs, t);
          bestJ = Math.max(bestJ, (tprOf(c) as number) + (tnrOf(c) as number) - 1);
        }
        expect(y?.youdenJ).toBeCloseTo(bestJ, 12);
        expect(y?.confusion).toEqual(confusionAtThreshold(pairs, y?.threshold as number));
      }),
    );
  });
});
