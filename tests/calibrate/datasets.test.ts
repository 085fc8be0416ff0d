import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultDatasetsDir, llmbarJudges, loadLlmbar, loadPandalm, packagedDatasetsDir } from "../../src/calibrate/datasets.js";
import { pairwiseClassMetrics } from "../../src/calibrate/pairwise.js";
import { isRubricateError } from "../../src/errors.js";

const dir = packagedDatasetsDir();

describe("the shipped datasets", () => {
  it("are the default, in the package's datasets/ folder, with their source and licence", () => {
    const saved = process.env.RUBRICATE_DATASETS;
    delete process.env.RUBRICATE_DATASETS;
    try {
      expect(defaultDatasetsDir()).toBe(resolve(import.meta.dirname, "..", "..", "datasets"));
    } finally {
      if (saved !== undefined) process.env.RUBRICATE_DATASETS = saved;
    }
    for (const f of ["llmbar/natural/samples.jsonl", "pandalm/samples.jsonl", "licenses/LLMBar-MIT.txt", "licenses/PandaLM-Apache-2.0.txt"]) expect(existsSync(join(dir, f))).toBe(true);
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    expect(readme).toMatch(/princeton-nlp\/LLMBar.*commit 900616b.*MIT/s);
    expect(readme).toMatch(/WeOpenML\/PandaLM.*commit 3871806.*Apache-2\.0/s);
  });
});

describe("dataset loaders", () => {
  it("LLMBar natural: 100 labels, both orders, vote-share probability", () => {
    expect(llmbarJudges(dir, "natural")).toContain("gpt-4-vanilla");
    const d = loadLlmbar(dir, "natural", "chatgpt-vanilla");
    expect(d.labels).toHaveLength(100);
    expect(d.verdicts.verdicts).toHaveLength(100);
    expect(d.pairwise).toHaveLength(100);
    // natural-6: chatgpt picked 1 in order 1-2 and 2 in order 2-1
    const v = d.verdicts.verdicts.find((x) => x.sampleId === "natural-6")!;
    expect(v.status).toBe("met");
    expect(v.probability).toBe(0.5);
    expect(d.pairwise.find((p) => p.id === "natural-6")).toMatchObject({ order12: "1", order21: "2" });
  });
  it("an LLMBar judge that a subset lacks is FILE_NOT_FOUND, listing what it has", () => {
    try {
      loadLlmbar(dir, "mt-bench", "chatgpt-vanilla");
      expect.unreachable();
    } catch (e) {
      expect(isRubricateError(e, "FILE_NOT_FOUND")).toBe(true);
      expect((e as Error).message).toContain("gpt-4-vanilla-norules");
    }
  });
  it("PandaLM: three annotators per item, ties and unreadable verdicts mapped", () => {
    const d = loadPandalm(dir, "gpt-3.5-turbo");
    expect(d.labels).toHaveLength(999 * 3);
    expect(d.annotators).toHaveLength(999);
    expect(d.verdicts.verdicts.filter((v) => v.status === "error")).toHaveLength(25);
    expect(d.pairwise.filter((p) => p.order12 === "tie")).toHaveLength(38);
    expect(d.pairwise.length + (d.noMajority ?? 0)).toBe(999);
    const p7 = loadPandalm(dir, "pandalm-7b");
    expect(p7.verdicts.verdicts.find((v) => v.sampleId === "pandalm-0")).toMatchObject({ status: "unmet" });
  });
});

describe("PandaLM's published figures", () => {
  // PandaLM's README at commit 6fdac72 (June 2023), for exactly the two stored verdict files:
  // accuracy, macro precision, macro recall, macro F1 (percent).
  const PUBLISHED = {
    "gpt-3.5-turbo": [71.07, 58.79, 57.36, 57.55],
    "pandalm-7b": [66.77, 57.38, 57.5, 57.43],
  } as const;
  const pct = (x: number | null) => Math.round((x as number) * 10000) / 100;

  for (const judge of ["gpt-3.5-turbo", "pandalm-7b"] as const) {
    it(`${judge}: reproduced under PandaLM's convention (majority reference, 1/2/tie, unreadable = tie, macro averages)`, () => {
      const d = loadPandalm(dir, judge, { unreadable: "tie" });
      expect(d.pairwise).toHaveLength(999);
      const m = pairwiseClassMetrics(d.pairwise);
      expect([pct(m.accuracy), pct(m.precision), pct(m.recall), pct(m.f1)]).toEqual([...PUBLISHED[judge]]);
      expect(d.verdicts.verdicts.filter((v) => v.status === "error")).toHaveLength(0);
    });
  }

  it("by default an unreadable verdict stays an error, so GPT-3.5's 25 garbage answers are not read as ties", () => {
    const d = loadPandalm(dir, "gpt-3.5-turbo");
    const errors = d.verdicts.verdicts.filter((v) => v.status === "error");
    expect(errors).toHaveLength(25);
    expect(errors[0].reasoning).toMatch(/unreadable verdict "garbage"/);
    expect(pct(pairwiseClassMetrics(d.pairwise).accuracy)).toBeLessThan(PUBLISHED["gpt-3.5-turbo"][0]);
    // PandaLM-7B has no unreadable verdict: both conventions agree.
    const p = pairwiseClassMetrics(loadPandalm(dir, "pandalm-7b").pairwise);
    expect(pct(p.f1)).toBe(PUBLISHED["pandalm-7b"][3]);
  });
});
