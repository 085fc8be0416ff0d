/**
 * GEPA against its own parts taken away, on a world built so they can matter
 * (bench/lib/gepa-world.ts: task clusters, conflicting rules, a length cost, seeded noise, a
 * greedy trap, three components with attributable feedback, decoy rules, a held-out set unlike
 * the training data).
 *
 * Arms, all with the same metric-call budget: GEPA (Pareto parents, minibatch check, a reflector
 * reading the feedback), GEPA with a feedback-blind reflector, GEPA with greedy (current-best)
 * parents, GEPA with merge, uniform parents with the minibatch check, random search; and, on
 * request, `gepa-broken` (a sign error in the metric), the control that shows the benchmark can
 * see a broken optimizer lose. Per arm and budget over the seeds: the chosen candidate's expected
 * score on the held-out test set with a 95% interval, and the paired difference to GEPA with its
 * 95% interval; both intervals resample seeds, then test tasks within each seed (a seed's runs of
 * every arm share its train, validation and test sets, so arms are compared task by task).
 */
import { parseArgs } from "node:util";
import { optimize } from "../src/optimize/optimize.js";
import { randomSearch } from "../src/optimize/random-search.js";
import { percentileInterval, seededRandom } from "../src/stats/bootstrap.js";
import type { Evaluate, OptimizeOptions, OptimizeResult } from "../src/optimize/types.js";
import { HELD_OUT, WORLD_SEED, blindReflector, expectedScore, expectedScores, knownOptimum, makeWorldTasks, rulesOf, symptomReflector, worldEvaluate, type WorldTask } from "./lib/gepa-world.js";

export const ARMS = ["gepa", "gepa-blind", "gepa-greedy", "gepa-merge", "uniform-check", "random-search"] as const;
/** Arms run only when asked for: deliberately broken versions the benchmark must show losing. */
export const CONTROL_ARMS = ["gepa-broken"] as const;
export type Arm = (typeof ARMS)[number] | (typeof CONTROL_ARMS)[number];

export interface Sizes {
  train: number;
  val: number;
  test: number;
}
export const DEFAULT_SIZES: Sizes = { train: 40, val: 40, test: 400 };

export interface ArmRun {
  arm: Arm;
  seed: number;
  /** Expected score of the chosen candidate on each held-out task, in the seed's test-set order. */
  testScores: number[];
  test: number;
  trapped: boolean;
  callsToThreshold: number | null;
  metricCalls: number;
  candidates: number;
}

/** The held-out test set of a seed; every arm of that seed is scored on it. */
export function testSetOf(seed: number, size: number): WorldTask[] {
  return makeWorldTasks("test", size, 3000 + seed, HELD_OUT);
}

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

/** The world's metric with its sign flipped: the bug `gepa-broken` stands for. */
function invertedScores(evaluate: Evaluate<WorldTask>): Evaluate<WorldTask> {
  return async (candidate, tasks, opts) => {
    const r = await evaluate(candidate, tasks, opts);
    return { ...r, scores: r.scores.map((s) => 1 - s) };
  };
}

export async function runArm(arm: Arm, seed: number, budget: number, threshold: number, sizes: Sizes = DEFAULT_SIZES): Promise<ArmRun> {
  const trainset = makeWorldTasks("train", sizes.train, 1000 + seed);
  const valset = makeWorldTasks("val", sizes.val, 2000 + seed);
  const test = testSetOf(seed, sizes.test);
  const evaluate = worldEvaluate(seed);
  const opts: OptimizeOptions<WorldTask> = {
    seed: WORLD_SEED,
    evaluate: arm === "gepa-broken" ? invertedScores(evaluate) : evaluate,
    reflect: arm === "gepa-blind" ? blindReflector(seed).reflect : symptomReflector(seed).reflect,
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
  const testScores = expectedScores(best, test);
  return {
    arm,
    seed,
    testScores,
    test: testScores.reduce((a, b) => a + b, 0) / testScores.length,
    trapped: rulesOf(best).rules.has("TEMPLATE"),
    callsToThreshold: callsToReach(result, test, threshold),
    metricCalls: result.budget.metricCalls,
    candidates: result.candidates.length,
  };
}

const meanOf = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * A 95% percentile interval of the mean of per-task values grouped by seed, resampling at both
 * levels: seeds with replacement, then tasks with replacement within each drawn seed. Seeds carry
 * the optimizer's randomness, tasks the test set's; either alone would claim too much.
 */
export function twoLevelInterval(bySeed: readonly (readonly number[])[], opts: { resamples?: number; seed?: number } = {}): [number, number] {
  const rand = seededRandom(opts.seed ?? 1);
  const draws: number[] = [];
  for (let r = 0; r < (opts.resamples ?? 2000); r++) {
    let total = 0;
    for (let s = 0; s < bySeed.length; s++) {
      const tasks = bySeed[Math.floor(rand() * bySeed.length)];
      let sum = 0;
      for (let t = 0; t < tasks.length; t++) sum += tasks[Math.floor(rand() * tasks.length)];
      total += sum / tasks.length;
    }
    draws.push(total / bySeed.length);
  }
  draws.sort((a, b) => a - b);
  const { lo, hi } = percentileInterval(draws, 0.95);
  return [lo!, hi!];
}

/** One arm at one budget: what a `--json` line holds. */
export interface ArmSummary {
  arm: Arm;
  budget: number;
  seeds: number;
  test_mean: number;
  ci95: [number, number];
  /** This arm minus GEPA, task by task on the same seeds (null for GEPA itself). */
  paired_vs_gepa: { mean: number; ci95: [number, number]; seeds_better: number; seeds_worse: number } | null;
  ratio_to_optimum: number;
  /** Runs whose chosen prompt holds the trap rule. */
  trapped: number;
  /** Runs whose best-so-far candidate reached the threshold on the test set, and the median calls it took. */
  reached_threshold: number;
  median_calls_to_threshold: number | null;
}

/** Per-arm summaries of the runs at one budget; paired differences need the `gepa` arm among the runs. */
export function summarize(runs: readonly ArmRun[], budget: number, optimum: number): ArmSummary[] {
  const arms = [...new Set(runs.map((r) => r.arm))];
  const gepa = new Map(runs.filter((r) => r.arm === "gepa").map((r) => [r.seed, r.testScores]));
  return arms.map((arm) => {
    const mine = runs.filter((r) => r.arm === arm).sort((a, b) => a.seed - b.seed);
    const reached = mine.map((r) => r.callsToThreshold).filter((x): x is number => x !== null).sort((a, b) => a - b);
    let paired: ArmSummary["paired_vs_gepa"] = null;
    if (arm !== "gepa" && mine.every((r) => gepa.has(r.seed))) {
      const diffs = mine.map((r) => r.testScores.map((x, i) => x - gepa.get(r.seed)![i]));
      const perSeed = diffs.map(meanOf);
      paired = { mean: meanOf(perSeed), ci95: twoLevelInterval(diffs), seeds_better: perSeed.filter((d) => d > 1e-9).length, seeds_worse: perSeed.filter((d) => d < -1e-9).length };
    }
    const testMean = meanOf(mine.map((r) => r.test));
    return {
      arm,
      budget,
      seeds: mine.length,
      test_mean: testMean,
      ci95: twoLevelInterval(mine.map((r) => r.testScores)),
      paired_vs_gepa: paired,
      ratio_to_optimum: testMean / optimum,
      trapped: mine.filter((r) => r.trapped).length,
      reached_threshold: reached.length,
      median_calls_to_threshold: reached.length ? reached[Math.floor((reached.length - 1) / 2)] : null,
    };
  });
}

/** Every arm at every budget on seeds 0…seeds−1. The optimum and threshold are those of seed 0's test set. */
export async function gepaWorldBench(opts: { budgets: number[]; seeds: number; arms: readonly Arm[]; sizes?: Sizes }) {
  const sizes = opts.sizes ?? DEFAULT_SIZES;
  const optimum = knownOptimum(testSetOf(0, sizes.test));
  const threshold = 0.8 * optimum.score;
  const seedScore = expectedScore(WORLD_SEED, testSetOf(0, sizes.test));
  const byBudget: { budget: number; runs: ArmRun[]; summary: ArmSummary[] }[] = [];
  for (const budget of opts.budgets) {
    const runs: ArmRun[] = [];
    for (const arm of opts.arms) for (let seed = 0; seed < opts.seeds; seed++) runs.push(await runArm(arm, seed, budget, threshold, sizes));
    byBudget.push({ budget, runs, summary: summarize(runs, budget, optimum.score) });
  }
  return { optimum, threshold, seedScore, byBudget };
}

const HELP = `Usage: npx tsx bench/gepa-world.ts [options]

GEPA against a feedback-blind reflector, greedy and uniform parents, merge and random search on
the scripted world of bench/lib/gepa-world.ts (no model, no network), at several metric-call
budgets. Prints a table per budget, or with --json one JSON line per arm and budget:
{arm, budget, seeds, test_mean, ci95, paired_vs_gepa: {mean, ci95, seeds_better, seeds_worse} | null, ...}.

Options:
  --budgets LIST   metric-call budgets, comma-separated (default 400,800,1600,3200)
  --seeds N        seeds 0..N-1 per arm and budget (default 20)
  --arms LIST      arms to run (default ${ARMS.join(",")}; also ${CONTROL_ARMS.join(",")})
  --json           JSON lines on stdout instead of the table
  --help           this text
`;

function parseList(value: string, flag: string): string[] {
  const items = value.split(",").map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new Error(`${flag} needs a comma-separated list`);
  return items;
}

function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} must be a positive integer, not "${value}"`);
  return n;
}

/** Parses the command line; null when --help was asked for. */
export function parseBenchArgs(argv: string[]): { budgets: number[]; seeds: number; arms: Arm[]; json: boolean } | null {
  const { values } = parseArgs({
    args: argv,
    options: { budgets: { type: "string" }, seeds: { type: "string" }, arms: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean" } },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return null;
  const known: readonly string[] = [...ARMS, ...CONTROL_ARMS];
  const arms = values.arms === undefined ? [...ARMS] : parseList(values.arms, "--arms");
  for (const a of arms) if (!known.includes(a)) throw new Error(`unknown arm "${a}" (known: ${known.join(", ")})`);
  if (!arms.includes("gepa")) arms.unshift("gepa");
  return {
    budgets: values.budgets === undefined ? [400, 800, 1600, 3200] : parseList(values.budgets, "--budgets").map((b) => positiveInt(b, "--budgets")),
    seeds: values.seeds === undefined ? 20 : positiveInt(values.seeds, "--seeds"),
    arms: arms as Arm[],
    json: values.json ?? false,
  };
}

function printTable(budget: number, seeds: number, summary: readonly ArmSummary[]): void {
  const f = (x: number) => x.toFixed(3);
  const signed = (x: number) => `${x >= 0 ? "+" : ""}${f(x)}`;
  console.log(`\nbudget ${budget} metric calls, ${seeds} seeds`);
  console.log("arm              test mean [95% CI]      ratio  trapped  reached  median calls  arm − gepa, paired [95% CI]   seeds better/worse");
  for (const s of summary) {
    const p = s.paired_vs_gepa;
    console.log(
      `${s.arm.padEnd(16)} ${f(s.test_mean)} [${f(s.ci95[0])}, ${f(s.ci95[1])}]  ${f(s.ratio_to_optimum)}  ${String(s.trapped).padStart(2)}/${s.seeds}    ${String(s.reached_threshold).padStart(2)}/${s.seeds}    ${String(s.median_calls_to_threshold ?? "—").padEnd(12)}  ${p ? `${signed(p.mean)} [${signed(p.ci95[0])}, ${signed(p.ci95[1])}]`.padEnd(28) : "—".padEnd(28)}  ${p ? `${p.seeds_better}/${p.seeds_worse}` : "—"}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let args: ReturnType<typeof parseBenchArgs>;
  try {
    args = parseBenchArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`${(e as Error).message}\n\n${HELP}`);
    process.exit(2);
  }
  if (args === null) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  const t0 = Date.now();
  const r = await gepaWorldBench(args);
  if (args.json) {
    for (const b of r.byBudget) for (const s of b.summary) console.log(JSON.stringify(s));
  } else {
    const f = (x: number) => x.toFixed(3);
    console.log(`GEPA world — held-out test set of ${DEFAULT_SIZES.test} tasks per seed (expected score, no noise), train ${DEFAULT_SIZES.train} / val ${DEFAULT_SIZES.val}`);
    console.log(`known optimum ${f(r.optimum.score)} (seed 0's test set); seed prompt ${f(r.seedScore)}; threshold ${f(r.threshold)} (0.8 × optimum)`);
    for (const b of r.byBudget) printTable(b.budget, args.seeds, b.summary);
    console.log(`\nwall ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
}
