import { describe, expect, it } from "vitest";
import { formatDiff, lineDiff } from "../../src/optimize/diff.js";
import { optimize } from "../../src/optimize/optimize.js";
import { randomSearch } from "../../src/optimize/random-search.js";
import { lineageLines, reportHtml, reportMarkdown } from "../../src/optimize/report.js";
import { SEED, makeEvaluate, makeTasks, scriptedReflect } from "./world.js";

describe("line diff", () => {
  it("keeps common lines and marks additions and removals", () => {
    expect(lineDiff("a\nb\nc", "a\nc\nd")).toEqual([
      { op: "same", text: "a" },
      { op: "del", text: "b" },
      { op: "same", text: "c" },
      { op: "add", text: "d" },
    ]);
    expect(formatDiff(lineDiff("x", "x\ny"))).toBe("  x\n+ y");
  });
});

describe("GEPA report", async () => {
  const opts = { seed: SEED, evaluate: makeEvaluate().evaluate, reflect: scriptedReflect, trainset: makeTasks(0, 12), valset: makeTasks(100, 12), budget: 150, rngSeed: 0, onWarning: () => {} };
  const result = await optimize(opts);
  const baseline = await randomSearch(opts);

  it("writes markdown with the summary, curve, lineage and diff", () => {
    const md = reportMarkdown(result, { baseline: { name: "random search", result: baseline } });
    expect(md).toContain("# GEPA run");
    expect(md).toContain("random search");
    expect(md).toContain(`#${result.best.index} reflection of system, mean 1.000 ← best`);
    expect(md).toContain("+ Name the source of each fact you state.");
    expect(md).toMatch(/```diff\n {2}You are a helpful assistant\./);
  });

  it("writes one HTML page with a chart, a nested lineage tree and a coloured diff", () => {
    const html = reportHtml(result, { baseline: { name: "random search", result: baseline } });
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html).toContain("<svg");
    expect((html.match(/<ul class="lineage">/g) ?? []).length).toBe(Math.max(...lineageLines(result).map((l) => l.depth)) + 1);
    expect((html.match(/<li[ >]/g) ?? []).length - (html.match(/<\/li>/g) ?? []).length).toBe(0);
    expect(html).toContain('<span class="add">+ Name the source of each fact you state.</span>');
    expect(html).not.toMatch(/<script src|https?:\/\/(?!www\.w3\.org)/);
  });

  it("escapes candidate text", () => {
    const evil = { ...result, best: { ...result.best, candidate: { system: "<script>alert(1)</script>" } } };
    expect(reportHtml(evil)).not.toContain("<script>alert(1)");
  });
});

describe("progress lines", async () => {
  const { progressLine } = await import("../../src/optimize/progress.js");
  it("describe an iteration in one line", () => {
    expect(progressLine({ type: "iteration", iteration: 3, kind: "accepted", parent: 1, child: 4, metricCalls: 90, reflectionCalls: 3, bestScore: 0.5 })).toBe(
      "iter 3  accepted  #4 ← #1  best 0.500  calls 90  reflections 3",
    );
  });
});
