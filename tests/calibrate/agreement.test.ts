import { describe, expect, it } from "vitest";
import { annotatorAgreement, cohensKappaLabels, fleissKappa, majority } from "../../src/calibrate/agreement.js";

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

describe("fleissKappa", () => {
  it("gives Fleiss's own 1971 example: 10 subjects, 14 raters, 5 classes, kappa 0.210", () => {
    const counts = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]];
    const items = counts.map((row) => row.flatMap((c, k) => Array.from({ length: c }, () => k + 1)));
    expect(fleissKappa(items).value!).toBeCloseTo(0.20993, 5);
  });

  it("is 1 for perfect agreement over two classes and undefined with reasons where it must be", () => {
    expect(fleissKappa([["a", "a"], ["b", "b"]]).value).toBe(1);
    expect(fleissKappa([["a", "a"], ["a", "b"], ["b", "b"]]).value!).toBeCloseTo(1 / 3, 12);
    expect(fleissKappa([]).reason).toBe("no items");
    expect(fleissKappa([["a"], ["b"]]).reason).toBe("fewer than two raters");
    expect(fleissKappa([["a", "b"], ["a"]]).reason).toMatch(/same number of raters/);
    expect(fleissKappa([["a", "a"], ["a", "a"]]).reason).toMatch(/expected agreement is 1/);
  });
});
