/** SummHay (issue 30): summary × insight coverage with human labels and 6 stored evaluators, as two pointwise criteria. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packagedDatasetsDir } from "../../src/calibrate/datasets.js";
import { SUMMHAY_BIAS_JUDGES, SUMMHAY_CRITERIA, SUMMHAY_PUBLISHED_BIAS, loadSummhay, summhayBias, summhayJudges } from "../../src/calibrate/summhay.js";
import { computeCalibration } from "../../src/cli/commands/calibrate.js";
import { tempDir } from "../helpers/cli.js";

const dir = packagedDatasetsDir();
const rows = readFileSync(join(dir, "summhay", "samples.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
type Cov = { insight_id: string; coverage: string };

/** Accuracy of one stored evaluator under one reading, by plain counts over the shipped file. */
function plainAccuracy(judge: string, yes: (coverage: string) => boolean): number {
  let agree = 0;
  let n = 0;
  for (const r of rows) {
    const predicted = new Map((r[`predictions_${judge}`] as Cov[]).map((p) => [p.insight_id, p.coverage]));
    for (const a of r.annotation as Cov[]) {
      n++;
      if (yes(a.coverage) === yes(predicted.get(a.insight_id)!)) agree++;
    }
  }
  return agree / n;
}

describe("SummHay", () => {
  it("names its six evaluator setups as the source does", () => {
    expect(summhayJudges(dir)).toEqual(["9fs_gpt-4o", "prompted_claude3-haiku", "prompted_claude3-opus", "prompted_gemini-1.5-pro", "prompted_gpt-4o", "prompted_gpt3.5"]);
  });

  it("loads 1,419 summary × insight items under both readings of coverage", () => {
    const { labels, verdicts } = loadSummhay(dir, "prompted_gpt-4o");
    expect(labels).toHaveLength(1419 * 2);
    expect(new Set(labels.map((l) => l.sampleId)).size).toBe(1419);
    const yes = (c: string) => labels.filter((l) => l.criterion === c && l.label).length;
    // Human labels in the source: 567 fully, 386 partially, 466 not covered.
    expect(yes("covered-fully")).toBe(567);
    expect(yes("covered")).toBe(567 + 386);
    expect(verdicts.verdicts.every((v) => v.status === "met" || v.status === "unmet")).toBe(true);
    expect(() => loadSummhay(dir, "gpt-4o")).toThrow(/no stored judge "gpt-4o".*prompted_gpt-4o/);
  });

  it("`calibrate --dataset summhay` measures each evaluator per reading, matching plain counts", async () => {
    const run = await computeCalibration({ dataset: "summhay", storedJudge: ["prompted_gpt-4o", "prompted_gpt3.5"], verdicts: [], judge: [], resamples: 20 });
    expect(run.results.map((r) => r.judge)).toEqual(["prompted_gpt-4o (SummHay)", "prompted_gpt3.5 (SummHay)"]);
    for (const r of run.results) {
      const judge = r.judge.replace(" (SummHay)", "");
      const byCriterion = Object.fromEntries(r.criteria.map((c) => [c.criterion, c]));
      expect(Object.keys(byCriterion).sort()).toEqual([...SUMMHAY_CRITERIA].sort());
      expect(byCriterion["covered-fully"].n).toBe(1419);
      expect(byCriterion["covered-fully"].metrics.accuracy.value!).toBeCloseTo(plainAccuracy(judge, (c) => /^full/i.test(c)), 12);
      expect(byCriterion.covered.metrics.accuracy.value!).toBeCloseTo(plainAccuracy(judge, (c) => !/^(not_covered|no_coverage)$/i.test(c)), 12);
    }
    expect(run.markdown).toContain("prompted_gpt3.5 (SummHay)");
  });

  it("refuses a coverage label that is none of the three classes, naming the line", () => {
    const d = tempDir("summhay-");
    mkdirSync(join(d, "summhay"));
    const bad = structuredClone(rows.slice(0, 3));
    (bad[2]["predictions_prompted_gpt-4o"] as Cov[])[0].coverage = "MOSTLY";
    writeFileSync(join(d, "summhay", "samples.jsonl"), `${bad.map((r) => JSON.stringify(r)).join("\n")}\n`);
    expect(() => loadSummhay(d, "prompted_gpt-4o")).toThrow(/predicted "MOSTLY", not a coverage class/);
    expect(() => loadSummhay(d, "prompted_gpt-4o")).toThrow(expect.objectContaining({ location: { file: join(d, "summhay", "samples.jsonl"), line: 3 } }));
  });

  it("reproduces the bias table the authors printed: 33 figures for three evaluators", () => {
    for (const judge of SUMMHAY_BIAS_JUDGES) {
      const mine = summhayBias(dir, judge);
      const pub = SUMMHAY_PUBLISHED_BIAS[judge];
      expect(Object.keys(mine.bySummarizer).sort()).toEqual(Object.keys(pub.bySummarizer).sort());
      for (const [s, v] of Object.entries(pub.bySummarizer)) expect(mine.bySummarizer[s].toFixed(3)).toBe(v.toFixed(3));
      expect(mine.average.toFixed(3)).toBe(pub.average.toFixed(3));
      expect(mine.lengthVsDelta.toFixed(3)).toBe(pub.lengthVsDelta.toFixed(3));
      expect(mine.lengthVsScore.toFixed(3)).toBe(pub.lengthVsScore.toFixed(3));
    }
  });

  it("`calibrate --dataset summhay` prints the bias beside the published figures", async () => {
    const run = await computeCalibration({ dataset: "summhay", storedJudge: ["prompted_claude3-opus", "9fs_gpt-4o"], verdicts: [], judge: [], resamples: 20 });
    expect(run.summhay!.map((b) => b.judge)).toEqual(["prompted_claude3-opus", "9fs_gpt-4o"]);
    expect(run.markdown).toContain("| command-r-plus | 0.128 (0.128) |");
    // No published figure for the few-shot setup: its column says so instead of inventing one.
    expect(run.markdown).toMatch(/\| average over summarizers \| 0\.054 \(0\.054\) \| -?0\.\d{3} \(–\) \|/);
  });
});
