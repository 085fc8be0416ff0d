import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, truncateSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import pLimit from "p-limit";
import type { Engine } from "../engine/engine.js";
import { RubricateError, toRubricateError } from "../errors.js";
import { parseJsonLine } from "../text/json.js";
import type { Judge } from "../judge/types.js";
import type { ErrorPolicy } from "../score/aggregate.js";
import type { Policy } from "./policy.js";
import { sandboxBackend } from "../sandbox/index.js";
import { installHookGuard } from "./isolation.js";
import { rollout } from "./rollout.js";
import type { Environment, RolloutRecord, Task } from "./types.js";

/** Options of `runEval`. */
export interface EvalOptions {
  policies: Policy[];
  engine: Engine;
  judge?: Judge;
  /** Use the first n tasks (default: all). */
  tasks?: number;
  /** Rollouts per (task, model) (default 1). */
  rollouts?: number;
  /** Rollouts in flight at once (default 8); each policy's scheduler still limits its calls. */
  concurrency?: number;
  /** Append each finished rollout to this JSONL file. */
  out?: string;
  /** Read `out` first and skip the (task, model, rollout) triples it already holds; rollouts that ended in an error are run again. */
  resume?: boolean;
  signal?: AbortSignal;
  errors?: ErrorPolicy;
  /** The environment's `models:` resolved (for `ctx.llm` and the REPL's `llm_query`). */
  models?: Record<string, Policy>;
  /** Run sandbox commands on the host, unisolated (`--unsafe-no-sandbox`). */
  unsafeNoSandbox?: boolean;
  /** Called as each rollout finishes (after it is saved). */
  onRollout?: (record: RolloutRecord, progress: { done: number; total: number }) => void;
  /**
   * Plays the cells elsewhere (`eval --queue`: on workers) instead of in this process; their
   * records come back as they finish, and are saved and counted as local ones are.
   */
  remote?: (cells: EvalCell[]) => AsyncIterable<RolloutRecord>;
  /** Plays only these cells (a worker's share of a queued eval), by `cellKey`. */
  only?: ReadonlySet<string>;
}

/** One rollout of an eval's grid: a task, a model, and which of its k rollouts. */
export interface EvalCell {
  task: string;
  model: string;
  rollout: number;
}

/** A cell's key, as `only` takes it. */
export const cellKey = (cell: EvalCell): string => tripleKey(cell);

/** What an eval returns: every rollout of the requested grid it holds (resumed ones included). */
export interface EvalResult {
  records: RolloutRecord[];
  /** Rollouts taken from the file instead of being run. */
  resumed: number;
  /** True when the signal stopped the eval before the grid was complete. */
  interrupted: boolean;
}

/**
 * Most rollouts one eval plays. The grid is built whole before the first rollout (each cell's key,
 * job and scheduled call: about 1 KB, measured: a million cells took 940 MB of heap before any
 * rollout ran), and every record stays in memory for the report; so `-k 1e11` would exhaust the
 * heap while starting. 200,000 is ~200 MB of bookkeeping and far past a real eval (1,000 tasks ×
 * 8 rollouts × 4 models is 32,000).
 */
export const MAX_EVAL_ROLLOUTS = 200_000;

/** Why an eval of this size cannot run (its grid past `MAX_EVAL_ROLLOUTS`), or undefined when it can. */
export function evalGridTooLarge(grid: { tasks: number; rollouts: number; models: number }): string | undefined {
  const cells = grid.tasks * grid.rollouts * grid.models;
  if (cells <= MAX_EVAL_ROLLOUTS) return undefined;
  return `${grid.tasks} task(s) × ${grid.rollouts} rollout(s) × ${grid.models} model(s) is ${cells.toLocaleString("en-US")} rollouts, more than the ${MAX_EVAL_ROLLOUTS.toLocaleString("en-US")} one eval holds (its grid and every record stay in memory)`;
}

/** The key of one cell of the grid. */
export const tripleKey = (r: { task: string; model: string; rollout: number }) => JSON.stringify([r.task, r.model, r.rollout]);

/**
 * Runs every (task, model, rollout index) of the grid, saving each rollout as a JSONL line the
 * moment it finishes; with `resume`, cells already in the file are skipped, so a killed eval
 * continues where it stopped (and the policy/judge cache makes replayed calls free).
 * @example const { records } = await runEval(env, { policies: [a, b], engine, judge, rollouts: 4, out: "rollouts.jsonl" });
 */
export async function runEval(env: Environment, options: EvalOptions): Promise<EvalResult> {
  const k = options.rollouts ?? 1;
  const tasks = env.tasks.slice(0, options.tasks ?? env.tasks.length);
  const ids = new Set(options.policies.map((p) => p.id));
  if (ids.size !== options.policies.length) throw new RubricateError("BAD_INPUT", "the same model is named twice");
  const tooLarge = evalGridTooLarge({ tasks: tasks.length, rollouts: k, models: options.policies.length });
  if (tooLarge) throw new RubricateError("BAD_INPUT", tooLarge);
  const wanted = new Set<string>();
  for (const task of tasks) for (const p of options.policies) for (let r = 0; r < k; r++) wanted.add(tripleKey({ task: task.id, model: p.id, rollout: r }));

  if (env.sandbox && !options.unsafeNoSandbox) {
    const why = await sandboxBackend(env.sandbox.backend).unavailable();
    if (why) throw new RubricateError("SANDBOX", `environment "${env.id}" runs its tools in a ${env.sandbox.backend} sandbox, which is not usable here: ${why}. Install it, or pass --unsafe-no-sandbox to run the commands unisolated on this machine`);
  }
  const done = new Map<string, RolloutRecord>();
  if (options.out && existsSync(options.out)) {
    if (!options.resume) throw new RubricateError("BAD_INPUT", `${options.out} already exists: pass --resume to continue it, or remove it`);
    const all = readRollouts(options.out, { repair: true });
    const errored = all.filter((rec) => rec.error && rec.env === env.id && wanted.has(tripleKey(rec)));
    for (const rec of all) {
      const key = tripleKey(rec);
      // A record of another version of the environment is not this eval's (older records carry no
      // version); an errored rollout is played again.
      if (rec.env === env.id && (rec.envVersion === undefined || rec.envVersion === String(env.version)) && wanted.has(key) && !rec.error) done.set(key, rec);
    }
    // Errored rollouts are run again: drop their lines (atomically) so the file keeps one line per cell.
    if (errored.length) rewriteWithout(options.out, new Set(errored));
  }
  if (options.out) mkdirSync(dirname(options.out), { recursive: true });
  const resumed = done.size;

  // Interleaved (task, rollout, model) so an interrupted eval covers the models evenly.
  const jobs: { task: Task; policy: Policy; index: number }[] = [];
  for (const task of tasks)
    for (let r = 0; r < k; r++)
      for (const policy of options.policies) {
        const key = tripleKey({ task: task.id, model: policy.id, rollout: r });
        if (!done.has(key) && (!options.only || options.only.has(key))) jobs.push({ task, policy, index: r });
      }
  if (options.only) for (const key of [...wanted]) if (!options.only.has(key)) wanted.delete(key);

  const total = wanted.size;
  const save = (rec: RolloutRecord) => {
    if (options.out) appendFileSync(options.out, `${JSON.stringify(rec)}\n`);
    done.set(tripleKey(rec), rec);
    options.onRollout?.(rec, { done: done.size, total });
  };
  if (options.remote) {
    let interrupted = false;
    try {
      for await (const rec of options.remote(jobs.map((j) => ({ task: j.task.id, model: j.policy.id, rollout: j.index })))) save(rec);
    } catch (e) {
      if (toRubricateError(e).code !== "ABORTED") throw e;
      interrupted = true;
    }
    return { records: [...wanted].map((key) => done.get(key)).filter((r): r is RolloutRecord => r !== undefined), resumed, interrupted };
  }
  const limit = pLimit(Math.max(1, options.concurrency ?? 8));
  // Hooks run in-process: while the eval runs, a hook's process.exit, stray throw or timer fails only its rollout.
  const removeGuard = installHookGuard();
  let interrupted = false;
  const run = jobs.map((job) =>
    limit(async () => {
      if (options.signal?.aborted) return;
      const rec = await rollout(env, job.policy, job.task, {
        engine: options.engine,
        judge: options.judge,
        index: job.index,
        signal: options.signal,
        errors: options.errors,
        models: options.models,
        unsafeNoSandbox: options.unsafeNoSandbox,
      });
      save(rec);
    }),
  );
  const settled = await Promise.allSettled(run).finally(removeGuard);
  for (const s of settled) {
    if (s.status === "rejected") {
      const e = toRubricateError(s.reason);
      if (e.code === "ABORTED") interrupted = true;
      else throw e;
    }
  }
  if (options.signal?.aborted && done.size < total) interrupted = true;
  const order = [...wanted];
  const records = order.map((key) => done.get(key)).filter((r): r is RolloutRecord => r !== undefined);
  return { records, resumed, interrupted };
}

/** Rewrites a rollouts file without the given records (by line), through a temp file and a rename. */
function rewriteWithout(path: string, drop: Set<RolloutRecord>): void {
  const keep = readRollouts(path).filter((rec) => !(rec.error && [...drop].some((d) => tripleKey(d) === tripleKey(rec) && d.env === rec.env)));
  const tmp = `${path}.resume-${process.pid}`;
  writeFileSync(tmp, keep.map((r) => `${JSON.stringify(r)}\n`).join(""));
  renameSync(tmp, path);
}

/**
 * Reads a rollouts JSONL file. A torn last line (the process died while writing it) is dropped,
 * and with `repair` cut from the file; a bad line elsewhere is an error naming its line.
 */
export function readRollouts(path: string, options: { repair?: boolean } = {}): RolloutRecord[] {
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  const out: RolloutRecord[] = [];
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const last = i === lines.length - 1;
    if (line.trim() !== "") {
      const parsed = parseJsonLine(line);
      if ("value" in parsed) {
        out.push(parsed.value as RolloutRecord);
        // A complete line missing only its newline: add it, or the next append would join it.
        if (last && options.repair) appendFileSync(path, "\n");
      } else {
        if (!last) throw new RubricateError("BAD_INPUT", `invalid rollout line: ${parsed.reason}`, { location: { file: path, line: i + 1, col: parsed.col } });
        if (options.repair) truncateSync(path, offset);
      }
    }
    offset += Buffer.byteLength(line, "utf8") + 1;
  }
  return out;
}
