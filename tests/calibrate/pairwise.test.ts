import { describe, expect, it } from "vitest";
import { pairwiseAgreement, pairwiseClassMetrics, parseWinner } from "../../src/calibrate/pairwise.js";

describe("parseWinner", () => {
  it("reads the winners datasets and judges write", () => {
    expect(parseWinner("1")).toBe("1");
    expect(parseWinner(2)).toBe("2");
    expect(parseWinner(0)).toBe("tie");
    expect(parseWinner("Tie")).toBe("tie");
    expect(parseWinner("Output (a)")).toBe("1");
    expect(parseWinner("garbage")).toBeNull();
    expect(parseWinner(null)).toBeNull();
  });
});

describe("pairwiseAgreement", () => {
  const items = [
    { id: "a", human: "1" as const, order12: "1" as const, order21: "1" as const }, // consistent, right
    { id: "b", human: "2" as const, order12: "1" as const, order21: "2" as const }, // inconsistent, half right
    { id: "c", human: "2" as const, order12: "1" as const, order21: "1" as const }, // consistent, wrong
    { id: "d", human: "tie" as const, order12: "tie" as const, order21: null }, // tie right once, unreadable once
  ];
  const r = pairwiseAgreement(items, { seed: 1 });
  it("agreement averages the orders; unreadable answers count as wrong", () => {
    expect(r.agreement.value).toBeCloseTo((1 + 0.5 + 0 + 0.5) / 4, 12);
    expect(r.agreementOrder12.value).toBe(0.5);
    expect(r.agreementOrder21.value).toBe(0.5); // a and b right, c wrong, d unreadable
  });
  it("position consistency and accuracy on consistent cases", () => {
    expect(r.positionConsistency.value).toBe(0.5);
    expect(r.consistent).toBe(2);
    expect(r.accuracyOnConsistent.value).toBe(0.5);
  });
  it("counts ties and unreadable answers", () => {
    expect(r.humanTies).toBe(1);
    expect(r.judgeTies).toBe(1);
    expect(r.unparseable).toBe(1);
    expect(r.bothOrders).toBe(true);
  });
  it("one order only: no consistency, agreement from that order", () => {
    const one = pairwiseAgreement([{ id: "x", human: "1", order12: "1" }, { id: "y", human: "2", order12: "tie" }]);
    expect(one.bothOrders).toBe(false);
    expect(one.agreement.value).toBe(0.5);
    expect(one.positionConsistency.value).toBeNull();
  });
  it("is deterministic with a seed", () => {
    expect(pairwiseAgreement(items, { seed: 1 })).toEqual(r);
  });
});

describe("pairwiseClassMetrics", () => {
  it("macro precision, recall and F1 over 1/2/tie, counted by hand; an unreadable pick is wrong", () => {
    const items = [
      { id: "a", human: "1", order12: "1" },
      { id: "b", human: "1", order12: "2" },
      { id: "c", human: "2", order12: "2" },
      { id: "d", human: "tie", order12: "1" },
      { id: "e", human: "2", order12: null },
    ] as const;
    const m = pairwiseClassMetrics(items);
    // class 1: tp 1, predicted 2, actual 2 → p .5 r .5; class 2: tp 1, predicted 2, actual 2 → .5 .5; tie: 0 predicted, 1 actual → 0 0.
    expect(m.accuracy).toBeCloseTo(2 / 5, 12);
    expect(m.precision).toBeCloseTo((0.5 + 0.5 + 0) / 3, 12);
    expect(m.recall).toBeCloseTo((0.5 + 0.5 + 0) / 3, 12);
    expect(m.f1).toBeCloseTo((0.5 + 0.5 + 0) / 3, 12);
    expect(pairwiseAgreement([...items]).macro).toEqual(m);
  });

  it("averages only over the classes that occur (sklearn), and is null on nothing", () => {
    const m = pairwiseClassMetrics([{ id: "a", human: "1", order12: "1" }, { id: "b", human: "2", order12: "2" }]);
    expect([m.precision, m.recall, m.f1]).toEqual([1, 1, 1]);
    expect(pairwiseClassMetrics([]).f1).toBeNull();
  });
});
