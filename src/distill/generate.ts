/**
 * Fresh generation: a teacher plays an environment's tasks k times each and every rollout is
 * scored as it finishes (`rollout` from src/env). Rows come out in task order, a task's k
 * rollouts together, so best-of-n and pairs see whole groups; calls go through the engine's
 * cache, so a re-run (a resumed distill) replays them for free.
 */
import type { Engine } from "../engine/engine.js";
import { RubricateError } from "../errors.js";
import { MAX_EVAL_ROLLOUTS } from "../env/eval.js";
import type { Policy } from "../env/policy.js";
import { rollout } from "../env/rollout.js";
import type { Environment } from "../env/types.js";
import type { Judge } from "../judge/types.js";
import type { ErrorPolicy } from "../score/aggregate.js";
import { renderTemplate } from "../text/template.js";

/** What `generateRollouts` needs. */
export interface GenerateOptions {
  env: Environment;
  /** The teacher. */
  policy: Policy;
  /** Shared by the teacher and the judge: cache and schedulers. */
  engine: Engine;
  judge?: Judge;
  /** Rollouts per task (default 8). */
  rollouts?: number;
  /** Use the first n tasks (default: all). */
  tasks?: number;
  /** Rollouts in flight at once (default 8). */
  concurrency?: number;
  signal?: AbortSignal;
  errors?: ErrorPolicy;
}

/**
 * Most rollouts one generation plays: one eval's bound (`MAX_EVAL_ROLLOUTS`). Rows stream, so it
 * is not memory that runs out here but the teacher's bill and the days: `--rollouts 1e9` is a
 * typo, refused before the first call instead of played until someone notices.
 */
export const MAX_GENERATED_ROLLOUTS = MAX_EVAL_ROLLOUTS;

/** Why a generation of this size cannot run (past `MAX_GENERATED_ROLLOUTS`), or undefined when it can. */
export function generationTooLarge(size: { tasks: number; rollouts: number }): string | undefined {
  const n = size.tasks * size.rollouts;
  if (n <= MAX_GENERATED_ROLLOUTS) return undefined;
  return `${size.tasks} task(s) × ${size.rollouts} rollout(s) is ${n.toLocaleString("en-US")} rollouts, more than the ${MAX_GENERATED_ROLLOUTS.toLocaleString("en-US")} one generation plays (one eval's bound)`;
}

/**
 * Teacher rollouts as distill rows: the rollout record plus what an export needs and the record
 * lacks: the rendered `system` prompt, the declared `tools`, and the task's `tags` input.
 * @example await runDistill({ input: () => generateRollouts({ env, policy, engine, judge, rollouts: 8 }), sourceId: "env@teacher", output: "sft.jsonl" })
 */
export async function* generateRollouts(o: GenerateOptions): AsyncGenerator<Record<string, unknown>> {
  const k = o.rollouts ?? 8;
  const tasks = o.env.tasks.slice(0, o.tasks ?? o.env.tasks.length);
  const tooLarge = generationTooLarge({ tasks: tasks.length, rollouts: k });
  if (tooLarge) throw new RubricateError("BAD_INPUT", tooLarge);
  const width = Math.max(1, o.concurrency ?? 8);
  const harness = o.env.harness;
  const tools = harness.tools.length > 0 ? harness.tools.map((t) => ({ type: "function", function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters } })) : undefined;
  const queue: Promise<Record<string, unknown>>[] = [];
  const launch = (taskIndex: number, index: number) => {
    const task = tasks[taskIndex];
    const p = rollout(o.env, o.policy, task, { engine: o.engine, judge: o.judge, index, signal: o.signal, errors: o.errors }).then((rec) => {
      const row: Record<string, unknown> = { ...rec };
      if (harness.system !== undefined) row.system = renderTemplate(harness.system, task.inputs);
      if (tools) row.tools = tools;
      if (task.inputs.tags !== undefined) row.tags = task.inputs.tags;
      return row;
    });
    p.catch(() => undefined);
    queue.push(p);
  };
  for (let t = 0; t < tasks.length; t++) {
    for (let r = 0; r < k; r++) {
      if (o.signal?.aborted) break;
      launch(t, r);
      while (queue.length >= width) yield await queue.shift()!;
    }
  }
  while (queue.length > 0) yield await queue.shift()!;
}
