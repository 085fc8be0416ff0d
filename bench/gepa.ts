/**
 * GEPA against random search over the same proposals and budget, on the scripted world of the
 * tests (a policy that passes an instance when its system prompt holds the rule the instance
 * needs; a reflection model that adds the rule named in the first failure, and sometimes a
 * harmful line). Prints both runs' final best mean valset scores, as ratios of the ideal (1.0).
 * Run: npx tsx bench/gepa.ts [budget=150] [seeds=10]
 */
import { optimize } from "../src/optimize/optimize.js";
import { randomSearch } from "../src/optimize/random-search.js";
import type { OptimizeResult } from "../src/optimize/types.js";
import { SEED, makeEvaluate, makeTasks, scriptedReflect } from "../tests/optimize/world.js";

/** One row per rng seed: both runs' final best score and metric calls. */
export async function gepaBench(budget = 150, seeds = 10): Promise<{ seed: number; gepa: OptimizeResult; random: OptimizeResult }[]> {
  const trainset = makeTasks(0, 12);
  const valset = makeTasks(100, 12);
  const rows = [];
  for (let seed = 0; seed < seeds; seed++) {
    const opts = { seed: SEED, reflect: scriptedReflect, trainset, valset, budget, rngSeed: seed, onWarning: () => {} };
    const gepa = await optimize({ ...opts, evaluate: makeEvaluate().evaluate });
    const random = await randomSearch({ ...opts, evaluate: makeEvaluate().evaluate });
    rows.push({ seed, gepa, random });
  }
  return rows;
}

const f = (x: number) => x.toFixed(3);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

if (import.meta.url === `file://${process.argv[1]}`) {
  const budget = Number(process.argv[2] ?? 150);
  const seeds = Number(process.argv[3] ?? 10);
  const rows = await gepaBench(budget, seeds);
  console.log(`GEPA vs random search — budget ${budget} metric calls, ideal score 1.000, ${seeds} seeds`);
  console.log("seed  gepa   (calls)  random (calls)");
  for (const r of rows) {
    console.log(`${String(r.seed).padStart(4)}  ${f(r.gepa.best.meanScore)}  (${String(r.gepa.budget.metricCalls).padStart(4)})   ${f(r.random.best.meanScore)}  (${String(r.random.budget.metricCalls).padStart(4)})`);
  }
  const g = mean(rows.map((r) => r.gepa.best.meanScore));
  const rs = mean(rows.map((r) => r.random.best.meanScore));
  console.log(`final best score, mean over seeds: gepa ${f(g)} (ratio to ideal ${f(g / 1)}), random search ${f(rs)} (ratio ${f(rs / 1)})`);
}
