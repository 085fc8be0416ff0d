/**
 * What `rubricate env filter` runs (env-filter.ts registers its options): rolls every task out k
 * times (the eval machinery), writes each task's pass rate into its `meta`, keeps the tasks in the
 * band and moves the others to `<tasks>.removed.jsonl` beside the tasks file (nothing is lost).
 * Imported when the command runs, so other commands do not load the engine, judge and eval.
 */
import { relative } from "node:path";
import { openCache } from "../engine/cache/index.js";
import { createEngine } from "../engine/engine.js";
import { evalGridTooLarge, runEval } from "../env/eval.js";
import { loadEnvironment } from "../env/load.js";
import { createPolicy } from "../env/policy.js";
import { envModels } from "../env/models.js";
import { RubricateError } from "../errors.js";
import { chooseJudge, createJudge } from "../judge/create.js";
import { decide, filterReportText, passRates, type Band, type FilterResult } from "../corpus/filter.js";
import type { ErrorPolicy } from "../score/aggregate.js";
import { appendTasks, envTarget, readTaskLines, removedTasksFile, rewriteTasks } from "../corpus/tasks-file.js";
import { existingFile, refuseUnwritableOutputs, textOut, writeJsonResult, writeOutputFile } from "./io.js";
import { cachePathOf, errorPolicyOf, EXIT, interruptSignal, usageError, warnCacheDegraded, warnIfBatchJudge } from "./run.js";

/** The options of `env filter`, as commander parses them. */
export interface FilterFlags {
  model: string;
  rollouts: number;
  keep: Band;
  judge?: string;
  passThreshold?: number;
  out?: string;
  json?: string;
  cache: string | boolean;
  concurrency?: number;
  errors: ErrorPolicy;
  unsafeNoSandbox?: boolean;
  quiet?: boolean;
}

/** Runs `env filter` (the action of the command env-filter.ts registers); returns the exit code. */
export async function runFilter(envArg: string, flags: FilterFlags): Promise<number> {
  errorPolicyOf(flags.errors);
  const target = envTarget(envArg);
  refuseUnwritableOutputs({ "--out": flags.out, "--json": flags.json }, { "the environment file": target.envFile, "the tasks file": target.tasksFile, "--judge": existingFile(flags.judge), "--cache": cachePathOf(flags.cache) });
  const env = await loadEnvironment(target.envFile);
  const lines = readTaskLines(target.tasksFile);
  const tooLarge = evalGridTooLarge({ tasks: env.tasks.length, rollouts: flags.rollouts, models: 1 });
  if (tooLarge) throw usageError(`-k/--rollouts ${flags.rollouts}: ${tooLarge}; lower -k`);
  const policy = createPolicy(flags.model, { defaults: env.policy });
  const engine = createEngine({ cache: openCache({ path: cachePathOf(flags.cache), onError: warnCacheDegraded }), limits: { maxConcurrency: 8, maxRetries: 5, timeoutMs: 120_000 } });
  const judgeRef = chooseJudge(flags.judge, env.rubric);
  const judge = judgeRef ? warnIfBatchJudge(createJudge(judgeRef, { engine }), "env filter") : undefined;
  const interrupt = interruptSignal();
  let records;
  let calls;
  try {
    const total = env.tasks.length * flags.rollouts;
    const run = await runEval(env, {
      policies: [policy],
      engine,
      judge,
      rollouts: flags.rollouts,
      concurrency: flags.concurrency,
      out: flags.out,
      resume: true,
      signal: interrupt.signal,
      errors: flags.errors,
      models: envModels(env.models ?? {}, []),
      unsafeNoSandbox: flags.unsafeNoSandbox,
      onRollout: (_r, p) => flags.quiet || p.done % 10 !== 0 || process.stderr.write(`rubricate: ${p.done}/${total} rollouts\n`),
    });
    if (run.interrupted) throw new RubricateError("ABORTED", "interrupted: nothing was filtered; run again to continue (finished rollouts are in the cache)");
    records = run.records;
    calls = engine.stats().usage;
  } finally {
    interrupt.dispose();
    await engine.close();
  }
  const passThreshold = flags.passThreshold ?? env.rubric.scoring.pass_threshold ?? 1;
  const result = decide(passRates(records, env.tasks.map((t) => t.id), passThreshold), flags.keep);
  if (result.kept === 0) throw new RubricateError("BAD_INPUT", `no task's pass rate lies in ${flags.keep.min}..${flags.keep.max}: ${target.tasksFile} is left as it was (see the histogram with --json)`);
  const rates = new Map(result.rates.map((r) => [r.task, r]));
  const meta = (raw: Record<string, unknown>, id: string) => {
    const r = rates.get(id)!;
    const filter = { model: policy.id, rollouts: flags.rollouts, passed: r.passed, scored: r.scored, errors: r.errors, pass_threshold: passThreshold };
    // An explicit id: the line's position may change, and a task without an id is numbered by it.
    return { ...raw, id: raw.id ?? id, meta: { ...((raw.meta as Record<string, unknown>) ?? {}), pass_rate: r.rate, filter } };
  };
  const updated = lines.map((l) => ({ line: meta(l.raw, l.id), kept: rates.get(l.id)?.kept ?? true }));
  const removedFile = removedTasksFile(target.tasksFile);
  // The removed tasks are saved before the tasks file loses them.
  appendTasks(removedFile, updated.filter((u) => !u.kept).map((u) => u.line));
  rewriteTasks(target.tasksFile, updated.filter((u) => u.kept).map((u) => u.line));
  const header = `env filter: ${env.id}, ${policy.id}, ${flags.rollouts} rollout(s) per task, pass threshold ${passThreshold}; ${relative(process.cwd(), target.tasksFile)} rewritten${result.removed ? `, removed tasks in ${relative(process.cwd(), removedFile)}` : ""}; calls ${calls.calls} paid, ${calls.cacheHits} from the cache`;
  textOut(flags.json, (t) => process.stdout.write(t))(`${filterReportText(result, header)}\n`);
  if (flags.json) writeJsonResult(flags.json, { ...result, model: policy.id, rollouts: flags.rollouts, passThreshold, calls: { paid: calls.calls, cached: calls.cacheHits } } satisfies FilterResult & Record<string, unknown>, writeOutputFile);
  return result.unrated > 0 ? EXIT.partial : EXIT.ok;
}
