import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Command } from "commander";
import { openCache } from "../../engine/cache/index.js";
import { createEngine } from "../../engine/engine.js";
import { evalMarkdown, evalReportHtml } from "../../env/report.js";
import { runEval } from "../../env/eval.js";
import { loadEnvironment } from "../../env/load.js";
import { createPolicy } from "../../env/policy.js";
import { RubricateError } from "../../errors.js";
import { createJudge, type EngineJudge } from "../../judge/create.js";
import type { ErrorPolicy } from "../../score/aggregate.js";
import { Progress } from "../progress.js";
import { EXIT, interruptSignal, positiveInt, cachePathOf, errorPolicyOf } from "../run.js";

interface EvalFlags {
  model: string[];
  tasks?: number;
  rollouts: number;
  judge?: string;
  out?: string;
  resume?: boolean;
  report?: string;
  summaryMd?: string;
  cache: string | boolean;
  concurrency?: number;
  passThreshold?: number;
  errors: ErrorPolicy;
  quiet?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function threshold(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new Error(`expected a number in [0, 1], got "${value}"`);
  return n;
}

/** `rubricate eval <env.yaml> --model <provider:model> [--model …] -n <tasks> --rollouts <k>`. */
export function register(program: Command): void {
  program
    .command("eval")
    .description("Roll out an environment's tasks with one or more policy models, score every rollout with its rubric, compare the models")
    .argument("<env>", "environment YAML file")
    .requiredOption("-m, --model <model>", "policy: provider:model (openai:gpt-4.1-mini, anthropic:claude-haiku-4-5, openai-compatible:<model>@<base_url>) or a policy config file; repeat to compare", collect)
    .option("-n, --tasks <n>", "use the first n tasks (default: all)", positiveInt)
    .option("-k, --rollouts <k>", "rollouts per task and model", positiveInt, 1)
    .option("-j, --judge <judge>", "judge file or packaged judge id (default: the rubric's `judge`)")
    .option("-o, --out <file>", "rollouts JSONL, one line per rollout as it finishes (default .rubricate/evals/<env id>.jsonl)")
    .option("--resume", "continue the --out file: skip the (task, model, rollout) triples it already holds")
    .option("--report <file>", "write a self-contained HTML report")
    .option("--summary-md <file>", "also write the markdown summary to a file")
    .option("--cache <path>", "cache database (policy and judge calls)", ".rubricate/cache.db")
    .option("--no-cache", "do not read or write any cache (every call is paid)")
    .option("-c, --concurrency <n>", "rollouts in flight at once (default 8)", positiveInt)
    .option("--pass-threshold <x>", "a rollout passes when its reward ≥ x (default: the rubric's pass_threshold, else 1)", threshold)
    .option("--errors <policy>", "a criterion error makes the reward: null (default) | zero | skip-criterion", "null")
    .option("-q, --quiet", "no progress on stderr")
    .action(async (envPath: string, flags: EvalFlags) => {
      process.exitCode = await runEvalCommand(envPath, flags);
    });
}

async function runEvalCommand(envPath: string, flags: EvalFlags): Promise<number> {
  errorPolicyOf(flags.errors);
  const env = await loadEnvironment(envPath);
  const out = flags.out ?? join(".rubricate", "evals", `${env.id}.jsonl`);
  // Before any key is needed or any call made: an existing file is someone's paid-for work.
  if (existsSync(out) && !flags.resume) throw new RubricateError("BAD_INPUT", `${out} already exists: pass --resume to continue it, or remove it`);
  const policies = flags.model.map((m) => createPolicy(m, { defaults: env.policy }));
  const cachePath = cachePathOf(flags.cache);
  const engine = createEngine({ cache: openCache({ path: cachePath }), limits: { maxConcurrency: 8, maxRetries: 5, timeoutMs: 120_000 } });
  const needsJudge = env.rubric.criteria.some((c) => c.question) || env.tasks.some((t) => t.criteria?.some((c) => typeof c === "object" && c !== null && "question" in c));
  const judgeRef = flags.judge ?? env.rubric.judge;
  const judge: EngineJudge | undefined = needsJudge && judgeRef ? createJudge(judgeRef, { engine, origin: flags.judge ? "user" : "rubric" }) : undefined;
  if (needsJudge && !judge && !flags.quiet) process.stderr.write("rubricate: warning: the rubric asks LLM questions but no judge is set (--judge or the rubric's `judge`); they will be NO_JUDGE errors\n");
  const tasks = Math.min(flags.tasks ?? env.tasks.length, env.tasks.length);
  const progress = new Progress(tasks * flags.rollouts * policies.length, !flags.quiet);
  const interrupt = interruptSignal();
  let result;
  try {
    result = await runEval(env, {
      policies,
      engine,
      judge,
      tasks,
      rollouts: flags.rollouts,
      concurrency: flags.concurrency,
      out,
      resume: flags.resume,
      signal: interrupt.signal,
      errors: flags.errors,
      onRollout: (_rec, p) => progress.update(p.done, `calls ${engine.stats().usage.calls}, cache hits ${engine.stats().usage.cacheHits}`),
    });
  } finally {
    interrupt.dispose();
    progress.finish();
    engine.close();
  }
  const passThreshold = flags.passThreshold ?? env.rubric.scoring.pass_threshold ?? 1;
  const subtitle = `${result.records.length} rollouts (${result.resumed} resumed) · ${policies.length} model(s) · ${tasks} task(s) × ${flags.rollouts} rollout(s) · pass threshold ${passThreshold}`;
  const summary = evalMarkdown(result.records, { env: env.id, subtitle }, { passThreshold });
  process.stdout.write(summary);
  if (flags.summaryMd) write(flags.summaryMd, summary);
  if (flags.report) write(flags.report, evalReportHtml(result.records, { env: env.id, subtitle }, { passThreshold }));
  if (!flags.quiet) process.stderr.write(`rubricate: rollouts in ${out}${flags.report ? `, report in ${flags.report}` : ""}\n`);
  if (result.interrupted) return EXIT.interrupted;
  return result.records.some((r) => r.reward === null) ? EXIT.partial : EXIT.ok;
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
