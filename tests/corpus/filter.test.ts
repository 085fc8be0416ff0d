import { describe, expect, it } from "vitest";
import { decide, filterReportText, HISTOGRAM_BINS, histogram, inBand, parseBand, passRates } from "../../src/corpus/filter.js";
import type { RolloutRecord } from "../../src/env/types.js";
import { RubricateError } from "../../src/errors.js";

/** A rollout of `task` with this reward (null: no reward), or a policy error. */
const rollout = (task: string, reward: number | null, error = false) => ({ task, reward, ...(error ? { error: { code: "PROVIDER_HTTP", message: "500" } } : {}) }) as unknown as RolloutRecord;
const rollouts = (task: string, rewards: (number | null)[]) => rewards.map((r) => rollout(task, r));

describe("parseBand", () => {
  it("reads min..max and refuses what is not a band in [0, 1]", () => {
    expect(parseBand("0.1..0.9")).toEqual({ min: 0.1, max: 0.9 });
    expect(parseBand(" 0 .. 1 ")).toEqual({ min: 0, max: 1 });
    for (const bad of ["0.9..0.1", "0.1-0.9", "0.1..1.5", "..0.5", "a..b"]) expect(() => parseBand(bad), bad).toThrow(RubricateError);
  });
});

describe("inBand", () => {
  it("includes both edges and nothing past them", () => {
    const band = parseBand("0.1..0.9");
    expect([0.1, 0.9, 0.5].map((r) => inBand(r, band))).toEqual([true, true, true]);
    expect([0, 0.0999, 0.9001, 1].map((r) => inBand(r, band))).toEqual([false, false, false, false]);
    // Rates as k rollouts make them: 1/10 and 9/10 are the edges themselves.
    expect([1 / 10, 9 / 10].map((r) => inBand(r, band))).toEqual([true, true]);
  });
});

describe("passRates", () => {
  it("counts passes against the threshold; rollouts without a reward are neither passes nor failures", () => {
    const records = [...rollouts("a", [1, 1, 0, 0.5]), rollout("a", null), rollout("a", 0, true), ...rollouts("b", [null, null]), ...rollouts("other", [1])];
    expect(passRates(records, ["a", "b", "c"], 0.5)).toEqual([
      { task: "a", passed: 3, scored: 4, errors: 2, rate: 0.75 },
      { task: "b", passed: 0, scored: 0, errors: 2, rate: null },
      { task: "c", passed: 0, scored: 0, errors: 0, rate: null },
    ]);
    expect(passRates(rollouts("a", [0.5, 0.99]), ["a"], 1)[0].rate).toBe(0);
  });
});

describe("decide", () => {
  it("keeps the band's edges and the unrated, removes the always-passed and never-passed, and histograms both sides", () => {
    const k = 10;
    const task = (id: string, passes: number) => rollouts(id, Array.from({ length: k }, (_, i) => (i < passes ? 1 : 0)));
    const records = [...task("none", 0), ...task("edge-low", 1), ...task("mid", 5), ...task("edge-high", 9), ...task("all", 10), ...rollouts("broken", [null])];
    const result = decide(passRates(records, ["none", "edge-low", "mid", "edge-high", "all", "broken"], 1), parseBand("0.1..0.9"));
    expect(Object.fromEntries(result.rates.map((r) => [r.task, r.kept]))).toEqual({ none: false, "edge-low": true, mid: true, "edge-high": true, all: false, broken: true });
    expect([result.kept, result.removed, result.unrated]).toEqual([4, 2, 1]);
    const at = (label: string) => HISTOGRAM_BINS.indexOf(label);
    expect(result.histogram.before[at("0")]).toBe(1);
    expect(result.histogram.before[at("1")]).toBe(1);
    expect(result.histogram.before[at("[0.1, 0.2)")]).toBe(1);
    expect(result.histogram.before[at("[0.5, 0.6)")]).toBe(1);
    expect(result.histogram.before[at("[0.9, 1)")]).toBe(1);
    expect(result.histogram.after[at("0")]).toBe(0);
    expect(result.histogram.after[at("1")]).toBe(0);
    expect(result.histogram.after.reduce((a, b) => a + b, 0)).toBe(3);
    const text = filterReportText(result, "header");
    expect(text).toMatch(/kept 4, removed 2 \(pass rate outside 0\.1\.\.0\.9\), 1 without a pass rate/);
    expect(text).toMatch(/^1 +1 #+ +0 *$/m);
  });
});

describe("histogram", () => {
  it("puts each rate in one bin: exactly 0, tenths, exactly 1", () => {
    expect(HISTOGRAM_BINS).toHaveLength(12);
    const counts = histogram([0, 0.05, 0.1, 0.3, 3 / 10, 0.7, 7 / 10, 0.999, 1]);
    expect(Object.fromEntries(HISTOGRAM_BINS.map((b, i) => [b, counts[i]]).filter(([, n]) => n))).toEqual({ "0": 1, "(0, 0.1)": 1, "[0.1, 0.2)": 1, "[0.3, 0.4)": 2, "[0.7, 0.8)": 2, "[0.9, 1)": 1, "1": 1 });
  });
});
