/**
 * `calibrate --compare` on LLMBar computes the paper's metrics (issue 30): accuracy over both
 * orders and position agreement with LLMBar's "equal" convention, per subset then averaged, and
 * prints LLMBar's published figures beside them — the rules delta 73.1 → 80.8 and the Swap delta
 * 91.0 → 96.0 come out of the CLI, not only out of a test helper.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { packagedDatasetsDir } from "../../src/calibrate/datasets.js";
import { loadLlmbar } from "../../src/calibrate/datasets.js";
import { llmbarAccuracy, llmbarPaperMetrics, llmbarPositionAgreement } from "../../src/calibrate/llmbar-paper.js";
import { pairwiseAgreement } from "../../src/calibrate/pairwise.js";
import { computeCalibration } from "../../src/cli/commands/calibrate.js";

const dir = packagedDatasetsDir();
const ADVERSARIAL = "llmbar:neighbor,gptinst,gptout,manual";

describe("LLMBar's metrics in calibrate --compare", () => {
  it("prints the rules delta (73.1 → 80.8 accuracy) and the Swap delta (91.0 → 96.0 position agreement), each beside the published figure", async () => {
    const rules = await computeCalibration({ dataset: ADVERSARIAL, storedJudge: ["gpt-4-vanilla-norules", "gpt-4-vanilla"], verdicts: [], judge: [], compare: true, resamples: 20 });
    expect(rules.markdown).toContain("| accuracy (both orders) | 73.1 | 80.8 | +7.7 | 73.1 → 80.8 |");
    const swap = await computeCalibration({ dataset: ADVERSARIAL, storedJudge: ["gpt-4-vanilla", "gpt-4-swap"], verdicts: [], judge: [], compare: true, resamples: 20 });
    expect(swap.markdown).toContain("| position agreement | 91.0 | 96.0 | +5.0 | 91.0 → 96.0 |");
  });

  it("averages per subset, not pooled over items (pooled order-1-2 gave 71.2 → 79.0)", () => {
    const subsets = ["neighbor", "gptinst", "gptout", "manual"];
    const pooled12 = (judge: string) => {
      const items = subsets.flatMap((s) => loadLlmbar(dir, s, judge).pairwise);
      return (100 * items.filter((i) => i.order12 === i.human).length) / items.length;
    };
    expect(pooled12("gpt-4-vanilla-norules")).toBeCloseTo(71.2, 1);
    expect(pooled12("gpt-4-vanilla")).toBeCloseTo(79.0, 1);
    expect(llmbarPaperMetrics(dir, subsets, "gpt-4-vanilla-norules").accuracy).toBeCloseTo(73.1, 1);
    expect(llmbarPaperMetrics(dir, subsets, "gpt-4-vanilla").accuracy).toBeCloseTo(80.8, 1);
  });

  it("counts an item unreadable in both orders as equal, as LLMBar does, and matches its published figure where the strict count does not", () => {
    const published = JSON.parse(readFileSync(`${dir}/llmbar/published-statistics.json`, "utf8")) as Record<string, Record<string, { correct_average: number; equal: number }>>;
    let differs = 0;
    for (const [subset, judges] of Object.entries(published)) {
      for (const [judge, stats] of Object.entries(judges)) {
        const items = loadLlmbar(dir, subset, judge).pairwise;
        expect(100 * llmbarPositionAgreement(items)!).toBeCloseTo(stats.equal, 9);
        expect(100 * llmbarAccuracy(items)!).toBeCloseTo(stats.correct_average, 9);
        if (Math.abs(100 * pairwiseAgreement(items, { resamples: 1 }).positionConsistency.value! - stats.equal) > 1e-9) differs++;
      }
    }
    expect(differs).toBeGreaterThan(0);
  });
});
