import { describe, expect, it } from "vitest";
import { calibrate } from "../../src/calibrate/calibrate.js";
import type { HumanLabel, JudgeVerdict } from "../../src/calibrate/inputs.js";
import { isRubricateError } from "../../src/errors.js";

const L = (sampleId: string, criterion: string, label: boolean, annotator?: string): HumanLabel => ({ sampleId, criterion, label, ...(annotator ? { annotator } : {}) });
const V = (sampleId: string, criterion: string, status: JudgeVerdict["status"], extra: Partial<JudgeVerdict> = {}): JudgeVerdict => ({ sampleId, criterion, status, ...extra });

describe("calibrate", () => {
  // criterion "a": 6 labelled; judge agrees on 4 (tp 2, tn 2), fp on s5, fn on s6
  // criterion "b": 3 labelled; one error, one skipped, one without verdict → no paired items
  const labels = [
    L("s1", "a", true), L("s2", "a", true), L("s3", "a", false), L("s4", "a", false), L("s5", "a", false), L("s6", "a", true),
    L("s1", "b", true), L("s2", "b", false), L("s3", "b", true),
  ];
  const verdicts = [
    V("s1", "a", "met", { probability: 0.9 }), V("s2", "a", "met", { probability: 0.8 }), V("s3", "a", "unmet", { probability: 0.2 }),
    V("s4", "a", "unmet", { probability: 0.1 }), V("s5", "a", "met", { probability: 0.7, reasoning: "looks fine" }), V("s6", "a", "unmet", { probability: 0.4, reasoning: "missed it" }),
    V("s1", "b", "error"), V("s2", "b", "skipped"),
    V("u1", "a", "met"), V("u2", "a", "unmet"), V("u3", "a", "met"), V("u4", "a", "met"),
  ];
  const r = calibrate({ labels, verdicts, judge: "j", costUsd: 0.5, seed: 3, resamples: 200 });
  const a = r.criteria.find((c) => c.criterion === "a")!;
  const b = r.criteria.find((c) => c.criterion === "b")!;

  it("joins on sample id + criterion and counts the confusion", () => {
    expect(r.criteria.map((c) => c.criterion)).toEqual(["a", "b"]);
    expect(a.n).toBe(6);
    expect(a.confusion).toEqual({ tp: 2, fp: 1, tn: 2, fn: 1 });
    expect(a.metrics.accuracy.value).toBeCloseTo(4 / 6, 12);
    expect(a.metrics.tpr.value).toBeCloseTo(2 / 3, 12);
    expect(a.metrics.kappa.value).toBeCloseTo(1 / 3, 12);
  });
  it("gives every metric an interval around its value", () => {
    for (const m of Object.values(a.metrics)) {
      if (m.value === null) continue;
      expect(m.lo as number).toBeLessThanOrEqual(m.value + 1e-12);
      expect(m.hi as number).toBeGreaterThanOrEqual(m.value - 1e-12);
    }
  });
  it("lists disagreements with the judge's reason", () => {
    expect(a.disagreements).toEqual([
      { sampleId: "s5", criterion: "a", human: false, judge: true, probability: 0.7, reasoning: "looks fine" },
      { sampleId: "s6", criterion: "a", human: true, judge: false, probability: 0.4, reasoning: "missed it" },
    ]);
  });
  it("an empty criterion: counts of what was left out, null metrics with reasons, a warning", () => {
    expect(b.n).toBe(0);
    expect(b.errors).toBe(1);
    expect(b.skipped).toBe(1);
    expect(b.missingVerdicts).toBe(1);
    expect(b.metrics.kappa.value).toBeNull();
    expect(b.metrics.kappa.reason).toMatch(/expected agreement/);
    expect(b.probability).toBeUndefined();
    expect(r.warnings.some((w) => w.startsWith("b: no labelled item"))).toBe(true);
  });
  it("uses verdicts on unlabelled samples for the corrected pass rate", () => {
    expect(r.unlabelledVerdicts).toBe(4);
    expect(a.corrected.source).toBe("unlabelled");
    expect(a.corrected.observed).toBe(0.75);
    // (0.75 + 2/3 − 1) / (2/3 + 2/3 − 1) = 1.25, clipped to 1
    expect(a.corrected.raw).toBeCloseTo(1.25, 12);
    expect(a.corrected.value).toBe(1);
  });
  it("probability metrics appear when verdicts carry probabilities", () => {
    expect(a.probability?.n).toBe(6);
    expect(a.probability?.brier).toBeCloseTo((0.01 + 0.04 + 0.04 + 0.01 + 0.49 + 0.36) / 6, 12);
    // J = 2/3 at both 0.4 (TPR 1, TNR 2/3) and 0.8 (TPR 2/3, TNR 1): the tie goes to the one nearer 0.5
    expect(a.probability?.youden?.youdenJ).toBeCloseTo(2 / 3, 12);
    expect(a.probability?.youden?.threshold).toBe(0.4);
    expect(a.probability?.prevalenceMatch?.metrics.passRate).toBe(0.5);
  });
  it("pools all criteria into overall, and carries judge name and cost", () => {
    expect(r.overall.n).toBe(6);
    expect(r.overall.errors).toBe(1);
    expect(r.judge).toBe("j");
    expect(r.costUsd).toBe(0.5);
  });
  it("is deterministic with a seed and JSON-serialisable", () => {
    const again = calibrate({ labels, verdicts, judge: "j", costUsd: 0.5, seed: 3, resamples: 200 });
    expect(again).toEqual(r);
    expect(JSON.parse(JSON.stringify(r)).criteria[0].n).toBe(6);
  });
});

describe("calibrate with several annotators", () => {
  const labels = [
    L("s1", "c", true, "x"), L("s1", "c", true, "y"), L("s1", "c", false, "z"),
    L("s2", "c", false, "x"), L("s2", "c", false, "y"), L("s2", "c", false, "z"),
    L("s3", "c", true, "x"), L("s3", "c", false, "y"),
  ];
  const verdicts = [V("s1", "c", "met"), V("s2", "c", "met"), V("s3", "c", "met")];
  const r = calibrate({ labels, verdicts, resamples: 50 });
  it("compares the judge with the majority, leaving ties out", () => {
    expect(r.criteria[0].n).toBe(2);
    expect(r.criteria[0].humanTies).toBe(1);
    expect(r.criteria[0].confusion).toEqual({ tp: 1, fp: 1, tn: 0, fn: 0 });
  });
  it("reports agreement between the annotators", () => {
    const h = r.criteria[0].humanAgreement!;
    expect(h.annotators).toEqual(["x", "y", "z"]);
    expect(h.pairwise).toHaveLength(3);
    expect(h.pairwise.find((p) => p.a === "x" && p.b === "y")?.n).toBe(3);
  });
  it("rejects the same annotator labelling an item twice, and duplicate verdicts", () => {
    const dupLabel = () => calibrate({ labels: [L("s", "c", true, "x"), L("s", "c", false, "x")], verdicts: [] });
    expect(dupLabel).toThrow(/twice/);
    try {
      calibrate({ labels: [], verdicts: [V("s", "c", "met"), V("s", "c", "unmet")] });
      expect.unreachable();
    } catch (e) {
      expect(isRubricateError(e, "BAD_INPUT")).toBe(true);
    }
  });
});
