/** The benchmark world of bench/gepa-world.ts has the properties that let it tell methods apart, and the benchmark can see a broken optimizer lose. */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ARMS, gepaWorldBench, parseBenchArgs, runArm, twoLevelInterval } from "../../bench/gepa-world.js";
import {
  CLUSTER_SHARE, DECOYS, HELD_OUT, LINE_COST, PASS_FIXED, PASS_NOVEL, PASS_UNFIXED, RULE, TEST_SHARE, WORLD_SEED, blindReflector, expectedScore, isFixed, knownOptimum, makeWorldTasks, runTask,
  symptomReflector,
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
    expect(CLUSTER_SHARE.report! / (CLUSTER_SHARE.report! + CLUSTER_SHARE.figures! + CLUSTER_SHARE.units!)).toBeCloseTo(0.4, 5);
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

  it("holds out a test set unlike training: another cluster mix, a cluster training never shows, harder tasks", () => {
    const train = makeWorldTasks("train", 400, 1);
    const test = makeWorldTasks("test", 400, 1, HELD_OUT);
    const share = (ts: typeof train, c: string) => ts.filter((t) => t.cluster === c).length / ts.length;
    expect(share(train, "novel")).toBe(0);
    expect(share(test, "novel")).toBeCloseTo(TEST_SHARE.novel!, 2);
    expect(share(test, "report")).toBeLessThan(share(train, "report") - 0.1);
    expect(train.every((t) => t.difficulty === 1)).toBe(true);
    const d = test.map((t) => t.difficulty);
    expect(Math.min(...d)).toBeGreaterThanOrEqual(0.6);
    expect(d.reduce((a, b) => a + b, 0) / d.length).toBeLessThan(0.85);
    // The trap costs more where figures and units are commoner than in training.
    const trap = prompt([RULE.TEMPLATE]);
    const pair = prompt([RULE.CHECK_FIGURES], [RULE.UNITS]);
    expect(expectedScore(pair, test) - expectedScore(trap, test)).toBeGreaterThan(expectedScore(pair, train) - expectedScore(trap, train));
    // No rule moves a novel task; only length does.
    const novel = test.filter((t) => t.cluster === "novel");
    expect(expectedScore(knownOptimum(test).candidate, novel)).toBeCloseTo((PASS_NOVEL * LINE_COST ** 4 * novel.reduce((a, t) => a + t.difficulty, 0)) / novel.length, 10);
  });

  it("has decoy rules that fix nothing and cost a line", () => {
    const lean = prompt([RULE.CHECK_FIGURES]);
    for (const decoy of [DECOYS.plan[0], DECOYS.format[0], DECOYS.style[0]]) expect(expectedScore(prompt([RULE.CHECK_FIGURES, decoy]), tasks) / expectedScore(lean, tasks)).toBeCloseTo(LINE_COST, 10);
  });

  it("has a blind reflector that never reads the minibatch: the same proposals whatever the feedback says", async () => {
    const rows = (feedback: string) => tasks.slice(0, 3).map((t) => ({ input: t, output: "", score: 0, feedback }));
    const a = blindReflector(3);
    const b = blindReflector(3);
    const outA: string[] = [];
    const outB: string[] = [];
    for (let i = 0; i < 20; i++) {
      outA.push(await a.reflect({ candidate: WORLD_SEED, component: "format", reflectiveDataset: rows("format: a figure is given without its unit") } as never));
      outB.push(await b.reflect({ candidate: WORLD_SEED, component: "format", reflectiveDataset: rows("all criteria met") } as never));
    }
    expect(outA).toEqual(outB);
    // It proposes decoys as readily as the rule the feedback points at.
    expect(outA.filter((o) => o.includes(RULE.UNITS)).length).toBeLessThan(10);
    expect(outA.some((o) => DECOYS.format.some((d) => o.includes(d)))).toBe(true);
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

describe("GEPA benchmark intervals", () => {
  it("resamples seeds and tasks: a constant gives a point, a seed unlike the others widens the interval", () => {
    expect(twoLevelInterval([[0.5, 0.5], [0.5, 0.5]])).toEqual([0.5, 0.5]);
    const alike = [[0.4, 0.6], [0.4, 0.6], [0.4, 0.6], [0.4, 0.6]];
    const oneOff = [[0.4, 0.6], [0.4, 0.6], [0.4, 0.6], [0.9, 1.1]];
    const [lo1, hi1] = twoLevelInterval(alike);
    const [lo2, hi2] = twoLevelInterval(oneOff);
    expect(lo1).toBeLessThan(0.5);
    expect(hi1).toBeGreaterThan(0.5);
    expect(hi2 - lo2).toBeGreaterThan(hi1 - lo1);
  });
});

describe("GEPA benchmark, run small", () => {
  const small = { budgets: [300], seeds: 4, arms: ["gepa", "gepa-blind", "gepa-broken"] as const, sizes: { train: 20, val: 20, test: 100 } };

  it("computes each arm's paired difference to GEPA with an interval, and shows a broken GEPA losing", async () => {
    const r = await gepaWorldBench({ ...small, arms: [...small.arms] });
    const [{ summary }] = r.byBudget;
    const by = Object.fromEntries(summary.map((s) => [s.arm, s]));
    expect(by.gepa.paired_vs_gepa).toBeNull();
    const runs = r.byBudget[0].runs;
    const blind = by["gepa-blind"].paired_vs_gepa!;
    // The paired mean is the mean over seeds of the task-by-task differences.
    const perSeed = [0, 1, 2, 3].map((seed) => {
      const g = runs.find((x) => x.arm === "gepa" && x.seed === seed)!;
      const b = runs.find((x) => x.arm === "gepa-blind" && x.seed === seed)!;
      return b.test - g.test;
    });
    expect(blind.mean).toBeCloseTo(perSeed.reduce((a, b) => a + b, 0) / 4, 10);
    expect(blind.ci95[0]).toBeLessThanOrEqual(blind.mean);
    expect(blind.ci95[1]).toBeGreaterThanOrEqual(blind.mean);
    expect(blind.seeds_better + blind.seeds_worse).toBeLessThanOrEqual(4);
    // A sign error in the metric: the benchmark must show it losing, interval and all.
    const broken = by["gepa-broken"];
    expect(broken.paired_vs_gepa!.ci95[1]).toBeLessThan(0);
    expect(broken.paired_vs_gepa!.seeds_worse).toBe(4);
    expect(broken.ci95[1]).toBeLessThan(by.gepa.ci95[0]);
  });

  it("reads its command line: budgets, seeds, arms; --help runs nothing", () => {
    expect(parseBenchArgs(["--help"])).toBeNull();
    expect(parseBenchArgs([])).toEqual({ budgets: [400, 800, 1600, 3200], seeds: 20, arms: [...ARMS], json: false });
    expect(parseBenchArgs(["--budgets", "100,200", "--seeds", "3", "--arms", "gepa-blind", "--json"])).toEqual({ budgets: [100, 200], seeds: 3, arms: ["gepa", "gepa-blind"], json: true });
    expect(() => parseBenchArgs(["--arms", "gepa,nope"])).toThrow(/unknown arm "nope"/);
    expect(() => parseBenchArgs(["--seeds", "0"])).toThrow(/positive integer/);
    expect(() => parseBenchArgs(["800"])).toThrow();
  });

  it("prints one JSON line per arm with the fields the issue names", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", "bench/gepa-world.ts", "--budgets", "200", "--seeds", "2", "--arms", "gepa-blind", "--json"], { encoding: "utf8" });
    const lines = out.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.arm)).toEqual(["gepa", "gepa-blind"]);
    for (const l of lines) {
      expect(typeof l.test_mean).toBe("number");
      expect(l.ci95).toHaveLength(2);
    }
    expect(lines[1].paired_vs_gepa).toMatchObject({ mean: expect.any(Number), ci95: [expect.any(Number), expect.any(Number)] });
    const help = execFileSync(process.execPath, ["--import", "tsx", "bench/gepa-world.ts", "--help"], { encoding: "utf8" });
    expect(help).toMatch(/^Usage: /);
    expect(help).not.toMatch(/known optimum/);
  });
});
