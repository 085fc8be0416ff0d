import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { optimize } from "../../src/optimize/optimize.js";
import { randomSearch } from "../../src/optimize/random-search.js";
import { loadState } from "../../src/optimize/state.js";
import type { OptimizeOptions } from "../../src/optimize/types.js";
import { tempDir } from "../helpers/cli.js";
import {
  MERGE_SEED, RULES, SEED, makeEvaluate, makeTasks, mergeEvaluate, mergeReflect, mergeTasks, scriptedReflect, type Task,
} from "./world.js";

const trainset = makeTasks(0, 12);
const valset = makeTasks(100, 12);
const base = (rngSeed: number, budget = 150): OptimizeOptions<Task> => ({
  seed: SEED,
  evaluate: makeEvaluate().evaluate,
  reflect: scriptedReflect,
  trainset,
  valset,
  budget,
  rngSeed,
  onWarning: () => {},
});

describe("GEPA end to end on a scripted policy", () => {
  it("reaches the best achievable valset score within the budget and beats random search", async () => {
    for (const rngSeed of [0, 1, 2, 3, 4]) {
      const counted = makeEvaluate();
      const gepa = await optimize({ ...base(rngSeed), evaluate: counted.evaluate });
      const random = await randomSearch(base(rngSeed));
      expect(gepa.best.meanScore).toBe(1);
      for (const rule of RULES) expect(gepa.best.candidate.system).toContain(rule);
      expect(gepa.budget.metricCalls).toBeLessThanOrEqual(150);
      expect(gepa.budget.metricCalls).toBe(counted.counter.instances);
      expect(gepa.curve.at(-1)!.bestScore).toBe(1);
      expect(random.best.meanScore).toBeLessThan(gepa.best.meanScore);
      expect(random.budget.metricCalls).toBeGreaterThanOrEqual(150);
    }
  });

  it("keeps the lineage from the seed to the best candidate", async () => {
    const res = await optimize(base(0));
    const { lineage, index } = res.best;
    expect(lineage[0]).toBe(0);
    expect(lineage.at(-1)).toBe(index);
    for (let k = 1; k < lineage.length; k++) expect(res.candidates[lineage[k]].parents).toContain(lineage[k - 1]);
  });

  it("an interrupted and resumed run gives the same result as an uninterrupted one", async () => {
    const dir = tempDir("gepa-");
    const whole = await optimize({ ...base(3), stateFile: join(dir, "whole.json") });
    for (const k of [1, 3, 6]) {
      const file = join(dir, `part-${k}.json`);
      const ac = new AbortController();
      const first = await optimize({ ...base(3), stateFile: file, signal: ac.signal, onProgress: (e) => e.type === "iteration" && e.iteration === k && ac.abort() });
      expect(first).toMatchObject({ stopReason: "aborted", iterations: k });
      const saved = await loadState(file);
      expect(saved?.iteration).toBe(k);
      const resumed = await optimize({ ...base(3), stateFile: file, resume: true });
      expect(JSON.stringify(resumed)).toBe(JSON.stringify(whole));
    }
  });

  it("random search resumes to the same result too", async () => {
    const dir = tempDir("gepa-");
    const whole = await randomSearch(base(2));
    const ac = new AbortController();
    const file = join(dir, "r.json");
    await randomSearch({ ...base(2), stateFile: file, signal: ac.signal, onProgress: (e) => e.type === "iteration" && e.iteration === 3 && ac.abort() });
    expect(JSON.stringify(await randomSearch({ ...base(2), stateFile: file, resume: true }))).toBe(JSON.stringify(whole));
    await expect(optimize({ ...base(2), stateFile: file, resume: true })).rejects.toMatchObject({ code: "BAD_INPUT" });
  });

  it("refuses to resume a state written by a different run", async () => {
    const file = join(tempDir("gepa-"), "s.json");
    await optimize({ ...base(1), stateFile: file, stop: { maxIterations: 2 } });
    await expect(optimize({ ...base(2), stateFile: file, resume: true })).rejects.toMatchObject({ code: "BAD_INPUT" });
  });

  it("writes the state a reader needs after every iteration", async () => {
    const file = join(tempDir("gepa-"), "s.json");
    const res = await optimize({ ...base(0), stateFile: file });
    const s = (await loadState(file))!;
    expect(s.candidates.map((c) => c.valScores)).toEqual(res.candidates.map((c) => c.valScores));
    expect(s.front).toEqual(res.front);
    expect(s.metricCalls).toBe(res.budget.metricCalls);
    expect(s.iteration).toBe(res.iterations);
    expect(typeof s.rng).toBe("number");
    expect(s.sampler.epoch).toBeGreaterThan(0);
  });
});

describe("GEPA merge end to end", () => {
  // Type A needs "fixA" in a, type B "fixB" in b, type C needs a untouched: the best is A+B (0.8),
  // reached here by merging the child that rewrote a with the one that rewrote b (rng seed 0).
  const opts: OptimizeOptions<(typeof mergeTasks)[number]> = {
    seed: MERGE_SEED, evaluate: mergeEvaluate, reflect: mergeReflect, trainset: mergeTasks, valset: mergeTasks,
    budget: 80, rngSeed: 0, useMerge: true, onWarning: () => {},
  };

  it("merges two front members through their common ancestor", async () => {
    const res = await optimize(opts);
    const merged = res.candidates.find((c) => c.tag === "merge");
    expect(merged).toBeDefined();
    expect(merged!.candidate).toEqual({ a: "Answer plainly. fixA", b: "Be kind. fixB" });
    expect(merged!.parents).toHaveLength(2);
    expect(res.best.meanScore).toBeCloseTo(0.8);
    expect(res.best.index).toBe(merged!.index);
  });

  it("resumes a merging run to the same result", async () => {
    const dir = tempDir("gepa-");
    const whole = await optimize(opts);
    const ac = new AbortController();
    const file = join(dir, "m.json");
    await optimize({ ...opts, stateFile: file, signal: ac.signal, onProgress: (e) => e.type === "iteration" && e.iteration === 4 && ac.abort() });
    const resumed = await optimize({ ...opts, stateFile: file, resume: true });
    expect(JSON.stringify(resumed)).toBe(JSON.stringify(whole));
  });
});

describe("a budget on every paid call (issue 16)", () => {
  it("stop.maxTotalCalls counts reflection calls with metric calls", async () => {
    const withoutCap = await optimize({ ...base(0, 400), stop: { targetScore: 2 } });
    expect(withoutCap.budget.reflectionCalls).toBeGreaterThan(0);
    const cap = 60;
    const capped = await optimize({ ...base(0, 400), stop: { targetScore: 2, maxTotalCalls: cap } });
    expect(capped.stopReason).toBe("budget");
    const total = capped.budget.metricCalls + capped.budget.reflectionCalls;
    expect(total).toBeGreaterThanOrEqual(cap);
    // Checked between iterations: at most one iteration's calls past the cap (a reflection, two
    // minibatches of 3 and a valset evaluation of 12).
    expect(total).toBeLessThanOrEqual(cap + 1 + 2 * 3 + 12);
    expect(total).toBeLessThan(withoutCap.budget.metricCalls + withoutCap.budget.reflectionCalls);
  });
});
