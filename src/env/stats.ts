import { mean, percentileInterval, resampleStatistics } from "../stats/bootstrap.js";
import { meanWithInterval, type MeanWithInterval } from "../stats/interval.js";
import { addUsage, emptyUsage, type CriterionResult, type Usage } from "../types.js";
import type { PolicyUsage, RolloutRecord } from "./types.js";

/** C(n, k) as a float, exact for the sizes evals use. */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= Math.min(k, n - k); i++) r = (r * (n - Math.min(k, n - k) + i)) / i;
  return r;
}

/**
 * The unbiased pass@k estimate for one task with n rollouts of which c passed (Chen et al. 2021):
 * 1 − C(n−c, k) / C(n, k), the chance that at least one of k rollouts drawn without replacement passes.
 * @example passAtK(10, 3, 1) // 0.3
 */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new RangeError(`pass@${k} needs at least ${k} rollouts, got ${n}`);
  if (n - c < k) return 1;
  // The product form of Chen et al.'s numpy code: stable for large n.
  let notAll = 1;
  for (let i = n - c + 1; i <= n; i++) notAll *= 1 - k / i;
  return 1 - notAll;
}

/**
 * pass^k as τ-bench defines it (Yao et al. 2024): the chance that all of k rollouts drawn from
 * the n pass, C(c, k) / C(n, k) — reliability, where pass@k is coverage.
 * @example passHatK(4, 2, 2) // 1/6
 */
export function passHatK(n: number, c: number, k: number): number {
  if (k > n) throw new RangeError(`pass^${k} needs at least ${k} rollouts, got ${n}`);
  return choose(c, k) / choose(n, k);
}

/** Did this verdict go the right way? Met for a positive criterion, not met for a pitfall. */
export function criterionOk(v: Pick<CriterionResult, "status" | "points">): boolean | undefined {
  if (v.status !== "met" && v.status !== "unmet") return undefined;
  return v.points < 0 ? v.status === "unmet" : v.status === "met";
}

/** The criteria a rollout failed (a positive one unmet, or a pitfall met). */
export function failedCriteria(rec: Pick<RolloutRecord, "verdicts">): string[] {
  return rec.verdicts.filter((v) => criterionOk(v) === false).map((v) => v.id);
}

/** One model's results over an eval. */
export interface ModelStats {
  model: string;
  rollouts: number;
  tasks: number;
  /** Rollouts with a reward (the others had errors). */
  scored: number;
  errors: number;
  /** Mean reward, with a 95% bootstrap interval over tasks (rollouts of one task are not independent). */
  reward?: MeanWithInterval;
  /** Share of scored rollouts at or above the pass threshold. */
  passRate?: number;
  /** pass@k and pass^k for k = 1 … the fewest scored rollouts any task has. */
  passAtK: Record<number, number>;
  passHatK: Record<number, number>;
  /** Per criterion: rollouts where it was answered, and the share that went the right way. */
  criteria: { id: string; answered: number; ok: number; rate: number | null }[];
  meanTurns: number;
  /** `hooks`: model calls the environment's hooks and REPL made (a simulated user, llm_query); in `costUsd` too. */
  usage: { policy: PolicyUsage; judge: Usage; hooks: PolicyUsage; costUsd: number };
}

/** A paired comparison of two models on the tasks both have. */
export interface PairComparison {
  a: string;
  b: string;
  tasks: number;
  /** Mean over shared tasks of (a's mean reward − b's). */
  diff: number;
  low: number;
  high: number;
  /** Two-sided bootstrap p-value. */
  p: number;
  /** The 95% interval excludes 0, over at least `MIN_PAIRED_TASKS` shared tasks. */
  significant: boolean;
}

/** Everything a report shows. */
export interface EvalComparison {
  passThreshold: number;
  models: ModelStats[];
  pairs: PairComparison[];
  /** Criterion ids in rubric order of first appearance. */
  criteria: string[];
}

/** Options of `compareModels`. */
export interface CompareOptions {
  /** A rollout passes when its reward ≥ this (default: the rubric's pass_threshold, else 1). */
  passThreshold?: number;
  resamples?: number;
  seed?: number;
}

/** Per-task mean rewards of one model's rollouts (tasks with no reward left out). */
export function taskMeans(records: RolloutRecord[]): Map<string, number> {
  const sums = new Map<string, { s: number; n: number }>();
  for (const r of records) {
    if (r.reward === null) continue;
    const t = sums.get(r.task) ?? { s: 0, n: 0 };
    t.s += r.reward;
    t.n++;
    sums.set(r.task, t);
  }
  return new Map([...sums].map(([task, t]) => [task, t.s / t.n]));
}

/**
 * Fewest shared tasks for a significance claim. Four tasks have only 35 distinct bootstrap
 * resamples, so a "95% interval" and p = 0.000 from them look decisive but say nothing; five
 * have 126.
 */
export const MIN_PAIRED_TASKS = 5;

/**
 * A paired bootstrap over shared tasks: resample tasks, average the per-task differences.
 * `significant` needs at least `MIN_PAIRED_TASKS` shared tasks and a 95% interval excluding 0.
 * @example pairedBootstrap(taskMeans(a), taskMeans(b)).significant
 */
export function pairedBootstrap(a: Map<string, number>, b: Map<string, number>, options: { resamples?: number; seed?: number } = {}): Omit<PairComparison, "a" | "b"> {
  const diffs = [...a.keys()].filter((t) => b.has(t)).map((t) => a.get(t)! - b.get(t)!);
  const n = diffs.length;
  if (n === 0) return { tasks: 0, diff: Number.NaN, low: Number.NaN, high: Number.NaN, p: 1, significant: false };
  const resamples = options.resamples ?? 2000;
  const { draws } = resampleStatistics([diffs] as const, { mean: ([d]) => mean(d) }, { seed: options.seed ?? 1, resamples }).mean;
  let below = 0;
  let above = 0;
  for (const m of draws) {
    if (m <= 0) below++;
    if (m >= 0) above++;
  }
  const diff = mean(diffs)!;
  const interval = percentileInterval(draws);
  const low = interval.lo!;
  const high = interval.hi!;
  const p = Math.min(1, (2 * Math.min(below, above)) / resamples);
  return { tasks: n, diff, low, high, p, significant: n >= MIN_PAIRED_TASKS && (low > 0 || high < 0) };
}

/**
 * Per-model statistics and paired comparisons of every pair of models.
 * @example const cmp = compareModels(records, { passThreshold: env.rubric.scoring.pass_threshold })
 */
export function compareModels(records: RolloutRecord[], options: CompareOptions = {}): EvalComparison {
  const threshold = options.passThreshold ?? 1;
  const models = [...new Set(records.map((r) => r.model))];
  const criteria = [...new Set(records.flatMap((r) => r.verdicts.map((v) => v.id)))];
  const byModel = new Map(models.map((m) => [m, records.filter((r) => r.model === m)]));
  const stats = models.map((m) => modelStats(m, byModel.get(m)!, criteria, threshold, options));
  const pairs: PairComparison[] = [];
  for (let i = 0; i < models.length; i++) {
    for (let j = i + 1; j < models.length; j++) {
      pairs.push({ a: models[i], b: models[j], ...pairedBootstrap(taskMeans(byModel.get(models[i])!), taskMeans(byModel.get(models[j])!), options) });
    }
  }
  return { passThreshold: threshold, models: stats, pairs, criteria };
}

function modelStats(model: string, recs: RolloutRecord[], criteria: string[], threshold: number, options: CompareOptions): ModelStats {
  const perTask = new Map<string, { n: number; c: number }>();
  for (const r of recs) {
    const t = perTask.get(r.task) ?? { n: 0, c: 0 };
    if (r.reward !== null) {
      t.n++;
      if (r.reward >= threshold) t.c++;
    }
    perTask.set(r.task, t);
  }
  const scoredTasks = [...perTask.values()].filter((t) => t.n > 0);
  const kMax = scoredTasks.length ? Math.min(...scoredTasks.map((t) => t.n)) : 0;
  const passAt: Record<number, number> = {};
  const passHat: Record<number, number> = {};
  for (let k = 1; k <= kMax; k++) {
    passAt[k] = scoredTasks.reduce((s, t) => s + passAtK(t.n, t.c, k), 0) / scoredTasks.length;
    passHat[k] = scoredTasks.reduce((s, t) => s + passHatK(t.n, t.c, k), 0) / scoredTasks.length;
  }
  const scored = recs.filter((r) => r.reward !== null);
  const policy: PolicyUsage = { calls: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  const judge = emptyUsage();
  const hooks: PolicyUsage = { calls: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  for (const r of recs) {
    for (const key of Object.keys(policy) as (keyof PolicyUsage)[]) policy[key] += r.usage.policy[key];
    for (const key of Object.keys(hooks) as (keyof PolicyUsage)[]) hooks[key] += r.usage.hooks?.[key] ?? 0;
    addUsage(judge, r.usage.judge);
  }
  return {
    model,
    rollouts: recs.length,
    tasks: perTask.size,
    scored: scored.length,
    errors: recs.length - scored.length,
    reward: meanWithInterval([...taskMeans(recs).values()], { resamples: options.resamples, seed: options.seed }),
    passRate: scored.length ? scored.filter((r) => r.reward! >= threshold).length / scored.length : undefined,
    passAtK: passAt,
    passHatK: passHat,
    criteria: criteria.map((id) => {
      const answers = recs.map((r) => r.verdicts.find((v) => v.id === id)).map((v) => (v ? criterionOk(v) : undefined)).filter((x): x is boolean => x !== undefined);
      const ok = answers.filter(Boolean).length;
      return { id, answered: answers.length, ok, rate: answers.length ? ok / answers.length : null };
    }),
    meanTurns: recs.length ? recs.reduce((s, r) => s + r.turns, 0) / recs.length : 0,
    usage: { policy, judge, hooks, costUsd: policy.costUsd + judge.costUsd + hooks.costUsd },
  };
}
