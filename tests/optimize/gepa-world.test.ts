/** The benchmark world of bench/gepa-world.ts has the properties that let it tell methods apart. */
import { describe, expect, it } from "vitest";
import { ARMS, runArm } from "../../bench/gepa-world.js";
import {
  CLUSTER_SHARE, LINE_COST, PASS_FIXED, PASS_UNFIXED, RULE, WORLD_SEED, expectedScore, isFixed, knownOptimum, makeWorldTasks, runTask, symptomReflector,
} from "../../bench/lib/gepa-world.js";

const prompt = (plan: string[], format: string[] = [], style: string[] = []) => ({ plan: plan.join("\n"), format: format.join("\n"), style: style.join("\n") });
const tasks = makeWorldTasks("test", 400, 1);

describe("GEPA benchmark world", () => {
  it("holds the clusters in proportion", () => {
    const share = (c: string) => tasks.filter((t) => t.cluster === c).length / tasks.length;
    for (const [c, s] of Object.entries(CLUSTER_SHARE)) expect(share(c)).toBeCloseTo(s, 2);
  });

  it("sets a greedy trap: the template fixes 40% of the trap tasks and blocks the pair that fixes 60%", () => {
    const trap = prompt([RULE.TEMPLATE]);
    const pair = prompt([RULE.CHECK_FIGURES], [RULE.UNITS]);
    expect(expectedScore(trap, tasks)).toBeGreaterThan(expectedScore(prompt([RULE.CHECK_FIGURES]), tasks));
    expect(expectedScore(pair, tasks)).toBeGreaterThan(expectedScore(trap, tasks));
    expect(expectedScore(prompt([RULE.TEMPLATE, RULE.CHECK_FIGURES], [RULE.UNITS]), tasks)).toBeLessThan(expectedScore(trap, tasks));
    expect(CLUSTER_SHARE.report / (CLUSTER_SHARE.report + CLUSTER_SHARE.figures + CLUSTER_SHARE.units)).toBeCloseTo(0.4, 5);
  });

  it("has conflicting rules that only a combined rule resolves", () => {
    const both = new Set(["BRIEF", "STEPS"] as const);
    expect(isFixed("short", both)).toBe(false);
    expect(isFixed("calculation", both)).toBe(false);
    expect(isFixed("short", new Set(["BRIEF"] as const))).toBe(true);
    expect(isFixed("calculation", new Set(["BRIEF"] as const))).toBe(false);
    expect(isFixed("calculation", new Set(["BRIEF_BUT_STEPS"] as const))).toBe(true);
  });

  it("charges every line", () => {
    const lean = prompt([RULE.CHECK_FIGURES]);
    const padded = prompt([RULE.CHECK_FIGURES, "Write clearly."]);
    expect(expectedScore(padded, tasks) / expectedScore(lean, tasks)).toBeCloseTo(LINE_COST, 10);
  });

  it("draws seeded noise: the same candidate and task always give the same result, near the pass probability overall", () => {
    const c = prompt([RULE.CHECK_FIGURES]);
    const figures = tasks.filter((t) => t.cluster === "figures");
    const a = figures.map((t) => runTask(c, t, 5).score);
    expect(figures.map((t) => runTask(c, t, 5).score)).toEqual(a);
    expect(figures.map((t) => runTask(c, t, 6).score)).not.toEqual(a);
    const rate = a.reduce((x, y) => x + y, 0) / a.length;
    expect(Math.abs(rate - PASS_FIXED * LINE_COST)).toBeLessThan(0.1);
    const seedRate = tasks.map((t) => runTask(WORLD_SEED, t, 5).score).reduce((x, y) => x + y, 0) / tasks.length;
    expect(Math.abs(seedRate - PASS_UNFIXED * LINE_COST ** 3)).toBeLessThan(0.05);
  });

  it("gives feedback naming the symptom and its component, and nothing on a pass", () => {
    const results = tasks.slice(0, 50).map((t) => ({ t, r: runTask(WORLD_SEED, t, 1) }));
    for (const { t, r } of results) {
      if (r.score === 1) expect(r.feedback).toBe("all criteria met");
      else expect(r.feedback).toMatch(t.cluster === "units" ? /^format: / : /^(plan|style): /);
    }
  });

  it("knows its optimum: the four rules that block nothing, no other line", () => {
    const best = knownOptimum(tasks);
    expect(best.candidate).toEqual(prompt([RULE.REPORT_WHEN_ASKED, RULE.CHECK_FIGURES], [RULE.UNITS], [RULE.BRIEF_BUT_STEPS]));
    expect(best.score).toBeCloseTo(PASS_FIXED * LINE_COST ** 4, 10);
  });

  it("has a reflector that reads only its component's symptoms", async () => {
    const { reflect } = symptomReflector(0);
    const rows = [{ input: tasks[0], output: "", score: 0, feedback: "format: a figure is given without its unit" }];
    const forFormat = await reflect({ candidate: WORLD_SEED, component: "format", reflectiveDataset: rows });
    expect(forFormat).toContain(RULE.UNITS);
    // Nothing about "plan" in the rows: a filler line, no rule.
    const forPlan = await reflect({ candidate: WORLD_SEED, component: "plan", reflectiveDataset: rows });
    for (const r of Object.values(RULE)) expect(forPlan).not.toContain(r);
  });

  it("runs every arm within the same metric-call budget", async () => {
    for (const arm of ARMS) {
      const r = await runArm(arm, 0, 300, 0.6);
      expect(r.metricCalls).toBeGreaterThan(200);
      // A run stops between iterations: at most one valset evaluation (40) past the budget.
      expect(r.metricCalls).toBeLessThanOrEqual(300 + 40 + 2 * 3);
      expect(r.test).toBeGreaterThan(0);
    }
  });
});
