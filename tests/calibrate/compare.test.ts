import { describe, expect, it } from "vitest";
import { compareJudges, comparisonMarkdown, kindsFromRubric } from "../../src/calibrate/compare.js";
import type { HumanLabel, JudgeVerdict } from "../../src/calibrate/inputs.js";

const label = (sampleId: string, criterion: string, yes: boolean, annotator?: string): HumanLabel => ({ sampleId, criterion, label: yes, ...(annotator ? { annotator } : {}) });
const verdict = (sampleId: string, criterion: string, status: JudgeVerdict["status"]): JudgeVerdict => ({ sampleId, criterion, status });

describe("compareJudges", () => {
  // "mistake" is a pitfall (yes = the mistake occurred), "cites" a positive criterion.
  const labels = [
    ...["s1", "s2", "s3", "s4"].map((s, i) => label(s, "mistake", i < 2)),
    ...["s1", "s2", "s3", "s4"].map((s, i) => label(s, "cites", i % 2 === 0)),
    label("s5", "cites", true, "x"),
    label("s5", "cites", false, "y"),
  ];
  // A answers "no" to every pitfall (doubt turned into "no mistake"); B gets them right. Both get "cites" right but A errs on s4.
  const a = { judge: "old prompt", verdicts: [...["s1", "s2", "s3", "s4"].map((s) => verdict(s, "mistake", "unmet")), ...["s1", "s2", "s3"].map((s, i) => verdict(s, "cites", i % 2 === 0 ? "met" : "unmet")), verdict("s4", "cites", "error")] };
  const b = { judge: "new prompt", verdicts: [...["s1", "s2", "s3", "s4"].map((s, i) => verdict(s, "mistake", i < 2 ? "met" : "unmet")), ...["s1", "s2", "s3", "s4"].map((s, i) => verdict(s, "cites", i % 2 === 0 ? "met" : "unmet"))] };
  const kinds = kindsFromRubric({ criteria: [{ id: "mistake", points: -2 }, { id: "cites", points: 1 }] });

  it("gives each judge's accuracy and the paired difference, per criterion and per kind", () => {
    const c = compareJudges({ labels, a, b, kinds, resamples: 200 });
    const pitfall = c.groups.find((g) => g.group === "pitfall")!;
    expect(pitfall).toMatchObject({ kind: "pitfall", n: 4, onlyB: 2, onlyA: 0 });
    expect(pitfall.accuracyA.value).toBe(0.5);
    expect(pitfall.accuracyB.value).toBe(1);
    expect(pitfall.delta.value).toBe(0.5);
    expect(pitfall.delta.lo).toBeGreaterThanOrEqual(0);
    expect(pitfall.delta.lo!).toBeLessThan(0.5);
    expect(pitfall.delta.hi).toBe(1);
    const positive = c.groups.find((g) => g.group === "positive")!;
    expect(positive).toMatchObject({ n: 3, onlyA: 0, onlyB: 0 });
    expect(positive.delta.value).toBe(0);
    expect(c.groups.at(-1)).toMatchObject({ group: "all", n: 7 });
    expect(c.criteria.map((r) => [r.group, r.kind])).toEqual([["cites", "positive"], ["mistake", "pitfall"]]);
    // s4/cites: A gave an error; s5/cites: the annotators split.
    expect(c.missing).toEqual({ a: 1, b: 0 });
    expect(c.ties).toBe(1);
  });

  it("is reproducible with a seed and renders a table", () => {
    const one = compareJudges({ labels, a, b, kinds, seed: 3, resamples: 100 });
    expect(compareJudges({ labels, a, b, kinds, seed: 3, resamples: 100 })).toEqual(one);
    const md = comparisonMarkdown(one);
    expect(md).toContain("B = new prompt vs A = old prompt");
    expect(md).toMatch(/\| pitfall \| pitfall \| 4 \| 50\.0 \| 100\.0 \| \+50\.0 \[/);
    expect(md).toContain("1 item(s) without a verdict from A");
  });

  it("compares probability sources by Brier score where both judges give P(yes)", () => {
    const labs = ["s1", "s2", "s3", "s4"].map((s, i) => label(s, "c", i < 2));
    // A: P(yes) read after a reason, flattened to 0.99/0.01 and wrong once; B: a calibrated stated confidence.
    const pa = [0.99, 0.01, 0.01, 0.01];
    const pb = [0.8, 0.6, 0.3, 0.2];
    const set = (name: string, ps: number[]) => ({ judge: name, verdicts: ps.map((p, i) => ({ ...verdict(`s${i + 1}`, "c", p >= 0.5 ? "met" : "unmet"), probability: p })) });
    const c = compareJudges({ labels: labs, a: set("after reason", pa), b: set("confidence", pb), resamples: 100 });
    const all = c.groups.at(-1)!;
    expect(all.withProbability).toBe(4);
    expect(all.brierA.value).toBeCloseTo((0.01 ** 2 + 0.99 ** 2 + 0.01 ** 2 + 0.01 ** 2) / 4, 9);
    expect(all.brierB.value).toBeCloseTo((0.2 ** 2 + 0.4 ** 2 + 0.3 ** 2 + 0.2 ** 2) / 4, 9);
    expect(all.brierDelta.value!).toBeLessThan(0);
    expect(comparisonMarkdown(c)).toMatch(/\| 0\.245 \| 0\.083 \| -0\.163 \[/);
    // Without probabilities on both sides: no Brier score.
    expect(compareJudges({ labels: labs, a: set("x", pa), b: { judge: "y", verdicts: pa.map((p, i) => verdict(`s${i + 1}`, "c", p >= 0.5 ? "met" : "unmet")) }, resamples: 10 }).groups.at(-1)!.brierA.value).toBeNull();
  });

  it("without kinds, only the criteria and the whole", () => {
    const c = compareJudges({ labels, a, b, resamples: 50 });
    expect(c.groups.map((g) => g.group)).toEqual(["all"]);
  });
});
