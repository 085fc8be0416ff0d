import { describe, expect, it } from "vitest";
import { pairwiseAgreement, parseWinner } from "../../src/calibrate/pairwise.js";

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
