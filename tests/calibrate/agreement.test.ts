import { describe, expect, it } from "vitest";
import { annotatorAgreement, cohensKappaLabels, majority } from "../../src/calibrate/agreement.js";

describe("cohensKappaLabels", () => {
  it("matches scikit-learn's documented cohen_kappa_score example (0.6875)", () => {
    const y1 = ["negative", "positive", "negative", "neutral", "positive"];
    const y2 = ["negative", "positive", "negative", "neutral", "negative"];
    expect(cohensKappaLabels(y1, y2).value).toBeCloseTo(0.6875, 12);
  });
  it("is undefined with its reason when both raters use one class", () => {
    const k = cohensKappaLabels([1, 1, 1], [1, 1, 1]);
    expect(k.value).toBeNull();
    expect(k.reason).toMatch(/expected agreement is 1/);
    expect(k.agreement).toBe(1);
    expect(cohensKappaLabels([], []).reason).toBe("no items");
  });
});

describe("majority", () => {
  it("returns the most frequent label or null on a tie", () => {
    expect(majority([1, 2, 1])).toBe(1);
    expect(majority([true, false])).toBeNull();
    expect(majority([0, 1, 2])).toBeNull();
    expect(majority([])).toBeNull();
  });
});

describe("annotatorAgreement", () => {
  const items = [
    { id: "1", labels: { a: true, b: true, c: true } },
    { id: "2", labels: { a: false, b: false, c: true } },
    { id: "3", labels: { a: true, b: false, c: false } },
    { id: "4", labels: { a: false, b: false, c: false } },
  ];
  it("pairwise kappas (hand-worked a vs b: po 0.75, pe 0.5, kappa 0.5)", () => {
    const r = annotatorAgreement(items);
    expect(r.annotators).toEqual(["a", "b", "c"]);
    const ab = r.pairwise.find((p) => p.a === "a" && p.b === "b");
    expect(ab?.agreement).toBe(0.75);
    expect(ab?.value).toBeCloseTo(0.5, 12);
  });
  it("each annotator against the others' majority, skipping items where the others tie", () => {
    const r = annotatorAgreement(items);
    const a = r.vsMajority.find((v) => v.annotator === "a");
    // others (b, c): item1 yes, item2 tie, item3 no, item4 no → a: yes, no, no → all agree
    expect(a?.ties).toBe(1);
    expect(a?.n).toBe(3);
    expect(a?.agreement).toBe(2 / 3);
    expect(r.meanPairwiseKappa).not.toBeNull();
  });
});
