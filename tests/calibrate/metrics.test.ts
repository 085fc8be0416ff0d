import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  METRICS, accuracy, allMetrics, balancedF1, cohensKappa, confusion, confusionFrom, expectedAgreement,
  f1Negative, f1Positive, npv, passRate, precision, prevalence, tnr, tpr,
} from "../../src/calibrate/metrics.js";
import { cohensKappaLabels } from "../../src/calibrate/agreement.js";

const bools = (xs: number[]) => xs.map((x) => x === 1);

describe("confusion", () => {
  it("matches scikit-learn's documented binary example: confusion_matrix([0,1,0,1],[1,1,1,0]).ravel() == (0, 2, 1, 1)", () => {
    expect(confusionFrom(bools([0, 1, 0, 1]), bools([1, 1, 1, 0]))).toEqual({ tn: 0, fp: 2, fn: 1, tp: 1 });
  });
  it("rejects arrays of different lengths", () => {
    expect(() => confusionFrom([true], [])).toThrow(RangeError);
  });
});

describe("scikit-learn f1_score documented example, one class against the rest", () => {
  // y_true = [0, 1, 2, 0, 1, 2], y_pred = [0, 2, 1, 0, 0, 1]: f1 per class [0.8, 0, 0], macro 0.2666…
  const yTrue = [0, 1, 2, 0, 1, 2];
  const yPred = [0, 2, 1, 0, 0, 1];
  const f1Of = (k: number) => f1Positive(confusionFrom(yTrue.map((y) => y === k), yPred.map((y) => y === k)));
  it("gives the documented per-class F1 and macro average", () => {
    expect(f1Of(0)).toBeCloseTo(0.8, 12);
    expect(f1Of(1)).toBe(0);
    expect(f1Of(2)).toBe(0);
    expect(((f1Of(0) as number) + (f1Of(1) as number) + (f1Of(2) as number)) / 3).toBeCloseTo(0.26666666666666666, 12);
  });
});

describe("HealthBench meta-evaluation test vector (simple-evals healthbench_meta_eval_test.py)", () => {
  // self (grader) [T, F, T] against others [[T, T, F], [T, F], [F]]: every (grader, physician) pair counts.
  const pairs = [
    { judge: true, human: true }, { judge: true, human: true }, { judge: true, human: false },
    { judge: false, human: true }, { judge: false, human: false },
    { judge: true, human: false },
  ];
  const c = confusion(pairs);
  it("precision, recall, F1 of each class and balanced F1", () => {
    expect(precision(c)).toBe((2 + 0 + 0) / (3 + 0 + 1));
    expect(npv(c)).toBe((0 + 1 + 0) / (0 + 2 + 0));
    expect(tpr(c)).toBe((2 + 0 + 0) / (2 + 1 + 0));
    expect(tnr(c)).toBe((0 + 1 + 0) / (1 + 1 + 1));
    const pos = (2 * 0.5 * (2 / 3)) / (0.5 + 2 / 3);
    const neg = (2 * 0.5 * (1 / 3)) / (0.5 + 1 / 3);
    expect(f1Positive(c)).toBeCloseTo(pos, 15);
    expect(f1Negative(c)).toBeCloseTo(neg, 15);
    expect(balancedF1(c)).toBeCloseTo((pos + neg) / 2, 15);
  });
  it("cluster b (grader yes, physician no only): precision 0, recall of yes undefined, so no F1", () => {
    const b = confusion([{ judge: true, human: false }]);
    expect(precision(b)).toBe(0);
    expect(tpr(b)).toBeNull();
    expect(tnr(b)).toBe(0);
    expect(f1Positive(b)).toBeNull();
    expect(f1Negative(b)).toBeNull();
    expect(balancedF1(b)).toBeNull();
  });
});

describe("hand-worked case", () => {
  const c = { tp: 20, fp: 5, tn: 15, fn: 10 };
  it("accuracy 0.7, pe 0.5, kappa 0.4, rates", () => {
    expect(accuracy(c)).toBe(0.7);
    expect(expectedAgreement(c)).toBe(0.5);
    expect(cohensKappa(c)).toBeCloseTo(0.4, 15);
    expect(tpr(c)).toBe(20 / 30);
    expect(tnr(c)).toBe(15 / 20);
    expect(precision(c)).toBe(0.8);
    expect(prevalence(c)).toBe(0.6);
    expect(passRate(c)).toBe(0.5);
    expect(f1Positive(c)).toBeCloseTo(40 / 55, 15); // 2tp / (2tp + fp + fn)
    expect(f1Negative(c)).toBeCloseTo(30 / 45, 15);
  });
});

describe("edge cases", () => {
  it("all one class, same for both raters: kappa undefined, with its reason", () => {
    const c = confusion([{ human: true, judge: true }, { human: true, judge: true }]);
    expect(accuracy(c)).toBe(1);
    expect(cohensKappa(c)).toBeNull();
    expect(tnr(c)).toBeNull();
    expect(balancedF1(c)).toBeNull();
    expect(METRICS.find((m) => m.name === "kappa")?.undefinedWhen).toMatch(/expected agreement is 1/);
  });
  it("humans all yes, judge mixed: kappa 0 (pe < 1), TNR undefined", () => {
    const c = confusion([{ human: true, judge: true }, { human: true, judge: false }]);
    expect(cohensKappa(c)).toBe(0);
    expect(tnr(c)).toBeNull();
    expect(npv(c)).toBe(0);
  });
  it("empty criterion: every metric null", () => {
    const all = allMetrics({ tp: 0, fp: 0, tn: 0, fn: 0 });
    for (const v of Object.values(all)) expect(v).toBeNull();
  });
  it("total disagreement gives kappa -1", () => {
    expect(cohensKappa({ tp: 0, fp: 5, tn: 0, fn: 5 })).toBeCloseTo(-1, 15);
  });
});

describe("properties", () => {
  const arb = fc.array(fc.record({ human: fc.boolean(), judge: fc.boolean() }), { maxLength: 60 });
  it("binary kappa equals the any-class kappa on booleans, and is symmetric", () => {
    fc.assert(
      fc.property(arb, (pairs) => {
        const k = cohensKappa(confusion(pairs));
        const g = cohensKappaLabels(pairs.map((p) => p.human), pairs.map((p) => p.judge)).value;
        const swapped = cohensKappa(confusion(pairs.map((p) => ({ human: p.judge, judge: p.human }))));
        if (k === null) expect(g).toBeNull();
        else {
          expect(g).toBeCloseTo(k, 12);
          expect(swapped).toBeCloseTo(k, 12);
        }
      }),
    );
  });
  it("every defined metric is finite and within its range", () => {
    fc.assert(
      fc.property(arb, (pairs) => {
        for (const [name, v] of Object.entries(allMetrics(confusion(pairs)))) {
          if (v === null) continue;
          expect(Number.isFinite(v)).toBe(true);
          expect(v).toBeLessThanOrEqual(1 + 1e-12);
          expect(v).toBeGreaterThanOrEqual(name === "kappa" ? -1 - 1e-12 : 0);
        }
      }),
    );
  });
});
