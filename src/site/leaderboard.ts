/**
 * What an environment page shows, computed from stored results: the leaderboard of one version,
 * per-criterion rates, a paired comparison of two models, and the history across versions.
 * Pure functions of the results, so the HTML page and the JSON API show the same numbers.
 */
import { pairedBootstrap, MIN_PAIRED_TASKS } from "../env/stats.js";
import type { StoredResult } from "./store.js";

/**
 * An empty dictionary for keys that come from pushed results (model names, criterion ids, task
 * ids). It has no prototype: on a plain `{}`, a key `__proto__` reaches `Object.prototype`
 * (writing there changes every object in the process) and `constructor` reads an inherited value.
 * Still a plain object to `JSON.stringify`, so the API shows it as before.
 */
function dictionary<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** `submittedBy` of results the hub's own Evaluate runs stored (followed by the visitor who asked). */
export const HUB_EVAL_PREFIX = "hub-eval:";

/** One line of a version's leaderboard: a model's latest result on it. */
export interface LeaderboardRow {
  model: string;
  /** Mean reward over tasks with its 95% interval; undefined when nothing was scored. */
  reward?: { n: number; mean: number; low: number; high: number };
  passAtK: Record<string, number>;
  costUsd: number;
  finishedAt: string;
  judge?: string;
  tasks: number;
  rollouts: number;
  errors: number;
  /** Results this model has on the version (the row shows the latest). */
  runs: number;
  /** The registry user who pushed the row's result. */
  submittedBy: string | null;
  /** The hub ran this eval itself (the Evaluate button), rather than taking a pushed claim. */
  byHub: boolean;
  resultId: number;
}

/**
 * One row per model (its latest result by finish time), best mean reward first; a model with no
 * scored rollout goes last.
 */
export function leaderboard(results: StoredResult[]): LeaderboardRow[] {
  const latest = new Map<string, { row: StoredResult; runs: number }>();
  for (const r of results) {
    const seen = latest.get(r.result.model);
    const newer = !seen || r.result.finishedAt >= seen.row.result.finishedAt;
    latest.set(r.result.model, { row: newer ? r : seen!.row, runs: (seen?.runs ?? 0) + 1 });
  }
  return [...latest.values()]
    .map(({ row, runs }) => {
      const { result } = row;
      return {
        model: result.model,
        ...(result.stats.reward ? { reward: result.stats.reward } : {}),
        passAtK: result.stats.passAtK,
        costUsd: result.stats.costUsd,
        finishedAt: result.finishedAt,
        ...(result.judge ? { judge: result.judge } : {}),
        tasks: result.stats.tasks,
        rollouts: result.stats.rollouts,
        errors: result.stats.errors,
        runs,
        submittedBy: row.submittedBy,
        byHub: row.submittedBy?.startsWith(HUB_EVAL_PREFIX) ?? false,
        resultId: row.id,
      };
    })
    .sort((a, b) => (b.reward?.mean ?? -Infinity) - (a.reward?.mean ?? -Infinity) || a.model.localeCompare(b.model));
}

/** Per criterion, each model's rate (null: never answered), criteria in the order results name them. */
export interface CriterionRates {
  criteria: string[];
  models: string[];
  rates: Record<string, Record<string, number | null>>;
}

export function criterionRates(results: StoredResult[]): CriterionRates {
  const rows = leaderboard(results);
  const byId = new Map(results.map((r) => [r.id, r.result]));
  const criteria: string[] = [];
  const rates = dictionary<Record<string, number | null>>();
  for (const row of rows) {
    for (const c of byId.get(row.resultId)!.stats.criteria) {
      if (!rates[c.id]) {
        criteria.push(c.id);
        rates[c.id] = dictionary();
      }
      rates[c.id][row.model] = c.rate;
    }
  }
  return { criteria, models: rows.map((r) => r.model), rates };
}

/** Two models on the tasks both were scored on: per-task means and the paired bootstrap of a − b. */
export interface Comparison {
  a: string;
  b: string;
  tasks: { task: string; a: number; b: number }[];
  diff: number | null;
  low: number | null;
  high: number | null;
  p: number | null;
  significant: boolean;
  /** Why there is no interval (no per-task means pushed, or no shared task). */
  note?: string;
}

export function compareModels(results: StoredResult[], a: string, b: string): Comparison {
  const rows = leaderboard(results);
  const byId = new Map(results.map((r) => [r.id, r.result]));
  const perTask = (model: string) => {
    const row = rows.find((r) => r.model === model);
    return row ? byId.get(row.resultId)!.stats.perTask : undefined;
  };
  const ta = perTask(a);
  const tb = perTask(b);
  const empty = { a, b, tasks: [], diff: null, low: null, high: null, p: null, significant: false };
  if (!ta || !tb) return { ...empty, note: `${!ta ? a : b} has no per-task rewards on this version, so the two cannot be paired` };
  // Own keys only: a task id like `constructor` is not "shared" because every object inherits one.
  const tasks = Object.keys(ta).filter((t) => Object.hasOwn(tb, t)).sort().map((task) => ({ task, a: ta[task], b: tb[task] }));
  if (tasks.length === 0) return { ...empty, note: "the two models share no task" };
  const cmp = pairedBootstrap(new Map(Object.entries(ta)), new Map(Object.entries(tb)));
  return {
    a,
    b,
    tasks,
    diff: cmp.diff,
    low: cmp.low,
    high: cmp.high,
    p: cmp.p,
    significant: cmp.significant,
    ...(tasks.length < MIN_PAIRED_TASKS ? { note: `only ${tasks.length} shared task(s): at least ${MIN_PAIRED_TASKS} are needed to call a difference significant` } : {}),
  };
}

/** Per model, its latest mean reward on each version (versions oldest first). */
export interface History {
  versions: string[];
  models: string[];
  means: Record<string, Record<string, number | null>>;
}

export function history(results: StoredResult[], versionOrder: string[]): History {
  const byVersion = new Map<string, StoredResult[]>();
  for (const r of results) byVersion.set(r.result.env.version, [...(byVersion.get(r.result.env.version) ?? []), r]);
  const versions = versionOrder.filter((v) => byVersion.has(v));
  const means = dictionary<Record<string, number | null>>();
  for (const v of versions) {
    for (const row of leaderboard(byVersion.get(v)!)) (means[row.model] ??= dictionary())[v] = row.reward?.mean ?? null;
  }
  return { versions, models: Object.keys(means).sort(), means };
}
