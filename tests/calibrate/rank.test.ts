import { describe, expect, it } from "vitest";
import { calibrate } from "../../src/calibrate/calibrate.js";
import { rankJudges } from "../../src/calibrate/rank.js";

const labels = Array.from({ length: 20 }, (_, i) => ({ sampleId: `s${i}`, criterion: "c", label: i % 2 === 0 }));
const judgeWith = (wrong: number) =>
  labels.map((l, i) => ({ sampleId: l.sampleId, criterion: "c", status: (i < wrong ? !l.label : l.label) ? ("met" as const) : ("unmet" as const) }));

describe("rankJudges", () => {
  const good = calibrate({ labels, verdicts: { judge: "good", verdicts: judgeWith(2), costUsd: 1 }, resamples: 50 });
  const cheap = calibrate({ labels, verdicts: { judge: "cheap", verdicts: judgeWith(6), costUsd: 0.1 }, resamples: 50 });
  const worse = calibrate({ labels, verdicts: { judge: "worse", verdicts: judgeWith(8), costUsd: 2 }, resamples: 50 });
  const ranks = rankJudges([cheap, worse, good]);
  it("orders by balanced F1, best first", () => {
    expect(ranks.map((r) => r.judge)).toEqual(["good", "cheap", "worse"]);
    expect(ranks.map((r) => r.rankByF1)).toEqual([1, 2, 3]);
  });
  it("ranks by cost and marks the F1/cost Pareto front", () => {
    expect(ranks.map((r) => r.rankByCost)).toEqual([2, 1, 3]);
    expect(ranks.map((r) => r.pareto)).toEqual([true, true, false]);
    expect(ranks[0].costPerItem).toBeCloseTo(1 / 20, 12);
  });
  it("judges without a cost have no cost rank", () => {
    const free = calibrate({ labels, verdicts: judgeWith(0), judge: "nocost", resamples: 50 });
    const r = rankJudges([free, good]);
    expect(r[0].judge).toBe("nocost");
    expect(r[0].rankByCost).toBeUndefined();
    expect(r[0].pareto).toBe(true);
  });
});
