/** XSTest v2 (issue 30): completions with human refusal labels and two stored classifiers, as one pointwise criterion. */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packagedDatasetsDir } from "../../src/calibrate/datasets.js";
import { XSTEST_PUBLISHED, loadXstest, xstestAgreement } from "../../src/calibrate/xstest.js";
import { computeCalibration } from "../../src/cli/commands/calibrate.js";
import { tempDir } from "../helpers/cli.js";

const dir = packagedDatasetsDir();

describe("XSTest", () => {
  it("loads 2,250 human-labelled completions; GPT-4's unreadable labels are errors, never a no", () => {
    const gpt4 = loadXstest(dir, "gpt4");
    expect(gpt4.labels).toHaveLength(2250);
    expect(gpt4.labels.filter((l) => l.label)).toHaveLength(211 + 9 + 230 + 44 + 294 + 55 + 199 + 41 + 49 + 27);
    const errors = gpt4.verdicts.verdicts.filter((v) => v.status === "error");
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((v) => /unreadable label/.test(v.reasoning ?? ""))).toBe(true);
    expect(loadXstest(dir, "strmatch").verdicts.verdicts.filter((v) => v.status === "error")).toHaveLength(0);
    expect(() => loadXstest(dir, "claude")).toThrow(/no stored judge "claude".*gpt4, strmatch/);
  });

  it("`calibrate --dataset xstest` measures both classifiers against the annotators", async () => {
    const run = await computeCalibration({ dataset: "xstest", storedJudge: [], verdicts: [], judge: [], resamples: 20 });
    const byJudge = Object.fromEntries(run.results.map((r) => [r.judge, r.overall]));
    expect(byJudge["gpt4 (XSTest)"].n).toBe(2250 - byJudge["gpt4 (XSTest)"].errors);
    // Accuracy by plain counts over the shipped files: refusal = a label starting 2_ or 3_.
    for (const judge of ["gpt4", "strmatch"]) {
      let agree = 0;
      let n = 0;
      for (const f of readdirSync(join(dir, "xstest"))) {
        for (const line of readFileSync(join(dir, "xstest", f), "utf8").split("\n").filter(Boolean)) {
          const row = JSON.parse(line) as Record<string, string>;
          const j = row[`${judge}_label`];
          if (!/^[123]_/.test(j)) continue;
          n++;
          if (/^[23]_/.test(row.final_label) === /^[23]_/.test(j)) agree++;
        }
      }
      expect(byJudge[`${judge} (XSTest)`].n).toBe(n);
      expect(byJudge[`${judge} (XSTest)`].metrics.accuracy.value!).toBeCloseTo(agree / n, 12);
    }
  });

  it("reproduces the annotators' agreement the authors printed: 5 percentages and 5 Fleiss kappas", () => {
    const rows = xstestAgreement(dir);
    expect(rows.map((r) => r.model)).toEqual(Object.keys(XSTEST_PUBLISHED));
    for (const r of rows) {
      const pub = XSTEST_PUBLISHED[r.model as keyof typeof XSTEST_PUBLISHED];
      expect(r.completions).toBe(450);
      expect((r.agreement * 100).toFixed(1)).toBe(pub.agreementPercent.toFixed(1));
      expect(r.fleissKappa.toFixed(2)).toBe(pub.fleissKappa.toFixed(2));
    }
    // The authors' `agreement` column is the annotators' equality, on every shipped row.
    for (const f of readdirSync(join(dir, "xstest"))) {
      for (const line of readFileSync(join(dir, "xstest", f), "utf8").split("\n").filter(Boolean)) {
        const row = JSON.parse(line) as Record<string, string>;
        expect(row.agreement === "True").toBe(row.annotation_1 === row.annotation_2);
      }
    }
  });

  it("`calibrate --dataset xstest` prints the published agreement beside its own", async () => {
    const run = await computeCalibration({ dataset: "xstest", storedJudge: ["strmatch"], verdicts: [], judge: [], resamples: 20 });
    expect(run.xstest).toHaveLength(5);
    expect(run.markdown).toContain("| mistralguard | 450 | 93.8% (93.8%) | 0.89 (0.89) |");
  });

  it("a damaged data file names file:line:col and why (\"not valid JSON\" at file:line before)", () => {
    const copy = join(tempDir("rubricate-xstest-"), "xstest");
    mkdirSync(copy);
    writeFileSync(join(copy, "completions-m.jsonl"), '{"id": 1, "final_label": "1_full_compliance"}\n{"id": 2, "final_label": \n');
    expect(() => loadXstest(join(copy, ".."), "gpt4")).toThrow(/completions-m\.jsonl:2:\d+: invalid JSON: /);
    writeFileSync(join(copy, "completions-m.jsonl"), "[1, 2]\n");
    expect(() => loadXstest(join(copy, ".."), "gpt4")).toThrow(/completions-m\.jsonl:1:1: an XSTest row is a JSON object/);
  });
});
