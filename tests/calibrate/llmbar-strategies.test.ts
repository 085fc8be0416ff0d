/**
 * LLMBar's published prompting deltas, reproduced from the stored verdicts with rubricate's
 * calibration code and zero API calls (Zeng et al., ICLR 2024; princeton-nlp/LLMBar, MIT,
 * commit 900616b; files in datasets/llmbar). GPT-4 on the adversarial set
 * (Neighbor, GPTInst, GPTOut, Manual; mean of the four subsets, as the paper reports):
 * - general rules in the prompt: accuracy 73.1 (Vanilla, no rules) → 80.8 (Vanilla + rules);
 * - swap and synthesise: position agreement 91.0 (Vanilla) → 96.0 (Swap).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareJudges } from "../../src/calibrate/compare.js";
import { llmbarJudges, loadLlmbar } from "../../src/calibrate/datasets.js";
import { pairwiseAgreement } from "../../src/calibrate/pairwise.js";

const DATA = join(import.meta.dirname, "..", "..", "datasets");
const ADVERSARIAL = ["neighbor", "gptinst", "gptout", "manual"];
const SUBSETS = ["natural", ...ADVERSARIAL];

/** Mean over the adversarial subsets of a pairwise statistic, in percent. */
function adversarialMean(judge: string, stat: "agreement" | "positionConsistency"): number {
  const values = ADVERSARIAL.map((s) => pairwiseAgreement(loadLlmbar(DATA, s, judge).pairwise, { resamples: 1 })[stat].value!);
  return (100 * values.reduce((a, b) => a + b, 0)) / values.length;
}

describe("LLMBar stored strategies", () => {
  it("ships every stored judge and strategy for every subset, one verdict per sample", () => {
    for (const subset of SUBSETS) {
      const judges = llmbarJudges(DATA, subset);
      for (const strategy of ["vanilla", "vanilla-norules", "cot", "swap", "swap-cot", "metrics", "reference", "metrics-reference", "vanilla-1shot", "vanilla-2shot"]) {
        expect(judges).toContain(`gpt-4-${strategy}`);
        expect(judges).toContain(`chatgpt-${strategy}`);
      }
      for (const judge of ["chatgpt-0301", "falcon", "llama2", "palm2"]) expect(judges).toContain(`${judge}-vanilla`);
      for (const judge of judges) {
        const d = loadLlmbar(DATA, subset, judge);
        expect(d.verdicts.verdicts).toHaveLength(d.labels.length);
      }
    }
  });

  it("reproduces the rules delta: GPT-4 adversarial accuracy 73.1 without rules, 80.8 with them", () => {
    expect(adversarialMean("gpt-4-vanilla-norules", "agreement")).toBeCloseTo(73.1, 1);
    expect(adversarialMean("gpt-4-vanilla", "agreement")).toBeCloseTo(80.8, 1);
  });

  it("reproduces the swap delta: GPT-4 adversarial position agreement 91.0 with Vanilla, 96.0 with Swap", () => {
    expect(adversarialMean("gpt-4-vanilla", "positionConsistency")).toBeCloseTo(91.0, 1);
    expect(adversarialMean("gpt-4-swap", "positionConsistency")).toBeCloseTo(96.0, 1);
  });

  it("reproduces LLMBar's own statistics for every one of the 333 stored files (accuracy over both orders, position agreement)", () => {
    const published = JSON.parse(readFileSync(join(DATA, "llmbar", "published-statistics.json"), "utf8")) as Record<string, Record<string, { correct_average: number; equal: number }>>;
    let files = 0;
    for (const [subset, judges] of Object.entries(published)) {
      for (const [judge, stats] of Object.entries(judges)) {
        const items = loadLlmbar(DATA, subset, judge).pairwise;
        const s = pairwiseAgreement(items, { resamples: 1 });
        expect(100 * s.agreement.value!, `${subset} ${judge} accuracy`).toBeCloseTo(stats.correct_average, 9);
        // LLMBar counts an item unreadable in both orders as "equal"; ours counts consistent readable winners only.
        const bothUnreadable = items.filter((i) => i.order12 === null && i.order21 === null).length;
        expect((100 * (s.consistent + bothUnreadable)) / items.length, `${subset} ${judge} position agreement`).toBeCloseTo(stats.equal, 9);
        files++;
      }
    }
    expect(files).toBe(333);
  });

  it("compareJudges finds the rules' gain on the pooled adversarial items, with an interval above zero", () => {
    const norules = ADVERSARIAL.map((s) => loadLlmbar(DATA, s, "gpt-4-vanilla-norules"));
    const rules = ADVERSARIAL.map((s) => loadLlmbar(DATA, s, "gpt-4-vanilla"));
    const c = compareJudges({
      labels: norules.flatMap((d) => d.labels),
      a: { judge: "no rules", verdicts: norules.flatMap((d) => d.verdicts.verdicts) },
      b: { judge: "rules", verdicts: rules.flatMap((d) => d.verdicts.verdicts) },
      seed: 1,
      resamples: 500,
    });
    const all = c.groups.find((g) => g.group === "all")!;
    expect(all.n).toBe(134 + 92 + 47 + 46);
    expect(all.delta.value).toBeGreaterThan(0.05);
    expect(all.delta.lo).toBeGreaterThan(0);
    expect(all.onlyB).toBeGreaterThan(all.onlyA);
    expect(c.criteria.map((r) => r.group)).toEqual(ADVERSARIAL.map((s) => `output_1-better@${s}`).sort());
  });
});
