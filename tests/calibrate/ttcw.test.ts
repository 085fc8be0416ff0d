/** TTCW (issue 30): pointwise expert labels with stored LLM judges; the authors' figures reproduced from the shipped files. */
import { describe, expect, it } from "vitest";
import { packagedDatasetsDir } from "../../src/calibrate/datasets.js";
import { loadTtcw, readTtcwItems, TTCW_PUBLISHED, ttcwFigures, ttcwJudges } from "../../src/calibrate/ttcw.js";
import { runCalibrate, type CalibrateRun, computeCalibration } from "../../src/cli/commands/calibrate.js";

const dir = packagedDatasetsDir();

describe("TTCW", () => {
  it("ships 48 stories × 14 tests with three expert verdicts each, and the 7 stored judges under their source names", () => {
    const items = readTtcwItems(dir);
    expect(items).toHaveLength(672);
    expect(new Set(items.map((i) => i.storyId)).size).toBe(48);
    expect(items.every((i) => i.experts.length === 3)).toBe(true);
    expect(ttcwJudges(dir)).toEqual(["cgpt", "claude3-opus", "claudev13", "claudev2", "claudev21", "gemini-pro", "gpt4"]);
  });

  it("reproduces the authors' published balanced accuracy, precision, recall, F1 and correlation for every judge", () => {
    for (const judge of ttcwJudges(dir)) {
      const mine = ttcwFigures(dir, judge);
      const published = TTCW_PUBLISHED[judge];
      for (const key of ["balancedAccuracy", "precision", "recall", "f1", "correlation"] as const) {
        // Published with two decimals.
        expect(Math.abs(mine[key] - published[key]), `${judge} ${key}`).toBeLessThanOrEqual(0.005);
      }
      expect(mine.found).toBe(published.found);
    }
  });

  it("loads as calibration labels (each expert an annotator) and verdicts", () => {
    const { labels, verdicts } = loadTtcw(dir, "gemini-pro");
    expect(labels).toHaveLength(2016);
    // Gemini-Pro answered 658 of 672: the missing ones are no verdict, never a "no".
    expect(verdicts.verdicts).toHaveLength(658);
  });

  it("`calibrate --dataset ttcw --stored-judge claude3-opus` prints the authors' measure beside the published figure", async () => {
    let printed = "";
    const code = await runCalibrate({ dataset: "ttcw", storedJudge: ["claude3-opus"], verdicts: [], judge: [], resamples: 50 }, (t) => (printed += t));
    expect(code).toBe(0);
    expect(printed).toContain("| claude3-opus | 0.58 (0.58) | 0.39 (0.39) | 0.83 (0.83) | 0.53 (0.53) | 0.18 (0.18) | 672 (672) |");
    const run: CalibrateRun = await computeCalibration({ dataset: "ttcw", storedJudge: [], verdicts: [], judge: [], resamples: 20 });
    expect(run.ttcw?.map((r) => r.judge)).toHaveLength(7);
    await expect(computeCalibration({ dataset: "ttcw", storedJudge: ["claude-9"], verdicts: [], judge: [] })).rejects.toThrow(/no stored judge "claude-9".*claude3-opus/);
  });
});
