/**
 * GEPA's selection strategies against each other on a world built to tell them apart
 * (bench/lib/gepa-world.ts: task clusters, conflicting rules, a length cost, seeded noise, a
 * greedy trap, three components with attributable feedback, a symptom-only reflector).
 *
 * Arms, all with the same metric-call budget: GEPA (Pareto parents), GEPA with greedy
 * (current-best) parents, GEPA with merge, uniform parents with the minibatch check, random
 * search. Per arm over the seeds: the chosen candidate's expected score on a held-out test set
 * (mean ± sd), how often it falls into the trap, and the metric calls until the best-so-far
 * candidate first reaches a threshold on the test set; the known optimum by brute force.
 * Run: npx tsx bench/gepa-world.ts [budget=800] [seeds=20] [--json bench/results/gepa-world.json]
 */
import { writeFileSync } from "node:fs";
import { optimize } from "../src/optimize/optimize.js";
import { randomSearch } from "../src/optimize/random-search.js";
import type { OptimizeOptions, OptimizeResult } from "../src/optimize/types.js";
import { RULE, WORLD_SEED, expectedScore, knownOptimum, makeWorldTasks, rulesOf, symptomReflector, worldEvaluate, type WorldTask } from "./lib/gepa-world.js";

export const ARMS = ["gepa", "gepa-greedy", "gepa-merge", "uniform-check", "random-search"] as const;
export type Arm = (typeof ARMS)[number];

export interface ArmRun {
  arm: Arm;
  seed: number;
  test: number;
  trapped: boolean;
  callsToThreshold: number | null;
  metricCalls: number;
  candidates: number;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / Math.max(1, xs.length - 1));
};

/** Metric calls until the best-by-valset candidate first scores ≥ threshold on the test set (null if never). */
function callsToReach(result: OptimizeResult, test: readonly WorldTask[], threshold: number): number | null {
  let best = -Infinity;
  for (const c of [...result.candidates].sort((a, b) => a.discoveredAtCalls - b.discoveredAtCalls)) {
    if (c.meanScore > best) {
      best = c.meanScore;
      if (expectedScore(c.candidate, test) >= threshold) return c.discoveredAtCalls;
    }
  }
  return null;
}

export async function runArm(arm: Arm, seed: number, budget: number, threshold: number, sizes = { train: 40, val: 40, test: 400 }): Promise<ArmRun> {
  const trainset = makeWorldTasks("train", sizes.train, 1000 + seed);
  const valset = makeWorldTasks("val", sizes.val, 2000 + seed);
  const test = makeWorldTasks("test", sizes.test, 3000 + seed);
  const opts: OptimizeOptions<WorldTask> = {
    seed: WORLD_SEED,
    evaluate: worldEvaluate(seed),
    reflect: symptomReflector(seed).reflect,
    trainset,
    valset,
    budget,
    rngSeed: seed,
    onWarning: () => {},
    maxIdleIterations: 1000,
    ...(arm === "gepa-greedy" ? { candidateSelection: "current_best" as const } : {}),
    ...(arm === "uniform-check" ? { candidateSelection: "uniform" as const } : {}),
    ...(arm === "gepa-merge" ? { useMerge: true } : {}),
  };
  const result = arm === "random-search" ? await randomSearch(opts) : await optimize(opts);
  const best = result.best.candidate;
  return {
    arm,
    seed,
    test: expectedScore(best, test),
    trapped: rulesOf(best).rules.has("TEMPLATE"),
    callsToThreshold: callsToReach(result, test, threshold),
    metricCalls: result.budget.metricCalls,
    candidates: result.candidates.length,
  };
}

export async function gepaWorldBench(budget = 800, seeds = 20) {
  const optimum = knownOptimum(makeWorldTasks("test", 400, 3000));
  const threshold = 0.8 * optimum.score;
  const runs: ArmRun[] = [];
  for (const arm of ARMS) for (let seed = 0; seed < seeds; seed++) runs.push(await runArm(arm, seed, budget, threshold));
  const seedScore = expectedScore(WORLD_SEED, makeWorldTasks("test", 400, 3000));
  return { budget, seeds, optimum, threshold, seedScore, runs };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  const jsonAt = process.argv.indexOf("--json");
  const budget = Number(args[0] ?? 800);
  const seeds = Number(args[1] ?? 20);
  const t0 = Date.now();
  const r = await gepaWorldBench(budget, seeds);
  const f = (x: number) => x.toFixed(3);
  console.log(`GEPA world — budget ${budget} metric calls, ${seeds} seeds, test set 400 tasks (expected score, no noise)`);
  console.log(`known optimum ${f(r.optimum.score)} (${Object.values(r.optimum.candidate).map((t) => t.replace(/\n/g, " / ")).join(" | ")}); seed prompt ${f(r.seedScore)}; threshold ${f(r.threshold)} (0.8 × optimum)`);
  console.log("arm             test mean ± sd   ratio to optimum  trapped  reached  median calls to threshold  vs gepa (paired): mean diff, seeds better/worse");
  const gepaBySeed = new Map(r.runs.filter((x) => x.arm === "gepa").map((x) => [x.seed, x.test]));
  const summary = ARMS.map((arm) => {
    const mine = r.runs.filter((x) => x.arm === arm);
    const tests = mine.map((x) => x.test);
    const reached = mine.map((x) => x.callsToThreshold).filter((x): x is number => x !== null).sort((a, b) => a - b);
    const median = reached.length ? reached[Math.floor((reached.length - 1) / 2)] : null;
    const diffs = mine.map((x) => x.test - gepaBySeed.get(x.seed)!);
    const row = {
      arm, mean: mean(tests), sd: sd(tests), ratio: mean(tests) / r.optimum.score, trapped: mine.filter((x) => x.trapped).length, reached: reached.length, medianCalls: median,
      vsGepa: { meanDiff: mean(diffs), better: diffs.filter((d) => d > 1e-9).length, worse: diffs.filter((d) => d < -1e-9).length },
    };
    console.log(
      `${arm.padEnd(15)} ${f(row.mean)} ± ${f(row.sd)}    ${f(row.ratio)}             ${String(row.trapped).padStart(2)}/${mine.length}   ${String(row.reached).padStart(2)}/${mine.length}    ${String(median ?? "—").padEnd(25)}  ${arm === "gepa" ? "—" : `${row.vsGepa.meanDiff >= 0 ? "+" : ""}${f(row.vsGepa.meanDiff)}, ${row.vsGepa.better}/${row.vsGepa.worse}`}`,
    );
    return row;
  });
  console.log(`wall ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (jsonAt >= 0) writeFileSync(process.argv[jsonAt + 1], `${JSON.stringify({ budget, seeds, optimum: r.optimum.score, threshold: r.threshold, seedScore: r.seedScore, summary, runs: r.runs }, null, 2)}\n`);
  void RULE;
}
