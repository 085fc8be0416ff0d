import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { openCache } from "../../engine/cache/index.js";
import { createEngine } from "../../engine/engine.js";
import { evalMarkdown, evalReportHtml } from "../../env/report.js";
import { evalGridTooLarge, runEval } from "../../env/eval.js";
import type { Environment } from "../../env/types.js";
import { describePackage, packageLabel } from "../../hub/package.js";
import { loadEnvironmentSpec } from "../../hub/resolve.js";
import { defaultEvalOut, envLabels, isSuiteFile, labelFile, loadSuite, runSuite, suiteMarkdown, suiteReportHtml } from "../../hub/suite.js";
import { createPolicy, type Policy } from "../../env/policy.js";
import { envModels } from "../../env/models.js";
import type { EvalCell } from "../../env/eval.js";
import { DEFAULT_EVAL_CHUNK_SIZE, NO_CALLS, evalSpecOf, queuedEval } from "../queued-eval.js";
import { RubricateError } from "../../errors.js";
import { chooseJudge, createJudge, type EngineJudge } from "../../judge/create.js";
import { judgeFamilyWarning } from "../../judge/family.js";
import type { ErrorPolicy } from "../../score/aggregate.js";
import { Progress } from "../progress.js";
import { EXIT, httpUrl, interruptSignal, nonNegativeInt, passThreshold, positiveInt, cachePathOf, errorPolicyOf, usageError, warnCacheDegraded, warnIfBatchJudge, exitAfterQueuedRun } from "../run.js";
import { cacheOption, collect, concurrencyOption, errorsOption, judgeOption, noCacheOption, queueOption, chunkSizeOption } from "../options.js";
import { existingFile, printReport, refuseUnwritableOutputs, writeOutputFile } from "../io.js";
import { buildHubResults, pushAll, type HubResultMeta } from "../../hub/push.js";
import type { RolloutRecord } from "../../env/types.js";

interface EvalFlags {
  model?: string[];
  envsDir?: string;
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
  envModel: string[];
  unsafeNoSandbox?: boolean;
  queue?: string;
  chunkSize?: number;
  push?: string;
  step?: number;
  series?: string;
}

/** The file a failed `--push` keeps its results in, beside the rollouts. */
const pendingFileOf = (out: string) => `${out.replace(/\.jsonl$/, "")}.hub.json`;



/** `rubricate eval <env.yaml> --model <provider:model> [--model …] -n <tasks> --rollouts <k>`. */
export function register(program: Command): void {
  program
    .command("eval")
    .description("Roll out an environment's tasks with one or more policy models, score every rollout with its rubric, compare the models")
    .argument("<env>", "environment: a YAML file or package folder, an installed package (@acme/wordle-env), name@version, a git URL; or a suite YAML (environments × models)")
    .option("-m, --model <model>", "policy: provider:model (openai:gpt-4.1-mini, anthropic:claude-haiku-4-5, openai-compatible:<model>@<base_url>) or a policy config file; repeat to compare (a suite names its own)", collect)
    .option("--envs-dir <dir>", "where environments from a registry or git are installed (default .rubricate/envs, or $RUBRICATE_ENVS_DIR); never the project's node_modules")
    .option("-n, --tasks <n>", "use the first n tasks (default: all)", positiveInt)
    .option("-k, --rollouts <k>", "rollouts per task and model", positiveInt, 1)
    .addOption(judgeOption())
    .option("-o, --out <file>", "rollouts JSONL, one line per rollout as it finishes (default .rubricate/evals/<env name@version>/<models>.jsonl)")
    .option("--resume", "continue the --out file: skip the (task, model, rollout) triples it already holds")
    .option("--report <file>", "write a self-contained HTML report")
    .option("--summary-md <file>", "also write the markdown summary to a file")
    .addOption(cacheOption("cache database (policy and judge calls)"))
    .addOption(noCacheOption())
    .addOption(concurrencyOption("rollouts in flight at once (default 8)"))
    .option("--pass-threshold <x>", "a rollout passes when its reward ≥ x (default: the rubric's pass_threshold, else 1)", passThreshold)
    .addOption(errorsOption())
    .option("-q, --quiet", "no progress on stderr")
    .option("--env-model <name=model>", "a model the environment's hooks call (ctx.llm, llm_query): overrides its `models:` entry; repeatable", collect, [])
    .option("--unsafe-no-sandbox", "run the environment's sandbox commands directly on this machine with your rights (no isolation: only for environments you trust)")
    .addOption(queueOption("play the rollouts on `rubricate worker`s anywhere: put chunks on this Redis queue (redis://host:port/db); start again with --resume to continue"))
    .addOption(chunkSizeOption(`with --queue: rollouts per chunk (default ${DEFAULT_EVAL_CHUNK_SIZE})`))
    .option("--push <hub>", "send each model's results to this hub (POST <hub>/api/results, Bearer $RUBRICATE_HUB_TOKEN when set); a refused push keeps them in <out>.hub.json for `rubricate hub push`", httpUrl)
    .option("--step <n>", "with --push: the training step (or policy version) these results are of", nonNegativeInt)
    .option("--series <name>", "with --push: the model series the steps belong to (default: the model id)")
    .addHelpText("after", "\nA suite file (`environments:` and `models:`, with aliases) runs each environment with each model and prints one\ncombined table; its `tasks` and `rollouts` apply, --out names a folder (default .rubricate/evals/<suite>/).")
    .action(async (spec: string, flags: EvalFlags) => {
      try {
        process.exitCode = isSuiteFile(spec) ? await runSuiteCommand(spec, flags) : await runEvalCommand(spec, flags);
      } finally {
        exitAfterQueuedRun(flags.queue);
      }
    });
}

const notice = (flags: EvalFlags) => (flags.quiet ? undefined : (line: string) => process.stderr.write(`rubricate: ${line}\n`));

/** The environment line of summaries and reports: its package, version and integrity, or its YAML version. */
const envLine = (env: Environment) => (env.package ? `environment ${describePackage(env.package)}` : `environment ${env.id} version ${env.version}`);

/** Refuses flag combinations that cannot work (exit 2), before an environment is loaded (or installed). */
function checkEvalFlags(flags: EvalFlags): void {
  errorPolicyOf(flags.errors);
  if ((flags.step !== undefined || flags.series) && !flags.push) throw usageError("--step and --series label results for a hub: pass --push <hub> too");
  if (flags.chunkSize !== undefined && !flags.queue) throw usageError("--chunk-size cuts the rollouts for --queue: pass --queue <url> too, or drop it");
}

async function runEvalCommand(envArg: string, flags: EvalFlags): Promise<number> {
  checkEvalFlags(flags);
  if (!flags.model?.length) throw usageError("eval needs at least one --model (or a suite file that names its models)");
  const env = await loadEnvironmentSpec(envArg, { envsDir: flags.envsDir, onNotice: notice(flags) });
  const tasks = Math.min(flags.tasks ?? env.tasks.length, env.tasks.length);
  const tooLarge = evalGridTooLarge({ tasks, rollouts: flags.rollouts, models: flags.model.length });
  if (tooLarge) throw usageError(`-k/--rollouts ${flags.rollouts}: ${tooLarge}; lower -k or -n/--tasks, or split the models over several runs`);
  const out = flags.out ?? defaultEvalOut(env.package ? packageLabel(env.package) : `${env.id}@${env.version}`, flags.model, flags.step);
  refuseUnwritableOutputs({ "--out": out, "--report": flags.report, "--summary-md": flags.summaryMd }, { "the environment file": existingFile(envArg), "--judge": existingFile(flags.judge), "--cache": cachePathOf(flags.cache) });
  // Before any key is needed or any call made: an existing file is someone's paid-for work.
  if (existsSync(out) && !flags.resume) throw new RubricateError("BAD_INPUT", `${out} already exists: pass --resume to continue it, or remove it`);
  const cachePath = cachePathOf(flags.cache);
  // Queued: the workers call the models and the judge with their own keys; the coordinator needs none.
  const spec = flags.queue ? evalSpecOf(envArg, env, flags, cachePath) : undefined;
  const policies = flags.model.map((m) => createPolicy(m, { defaults: env.policy, ...(spec ? { provider: NO_CALLS } : {}) }));
  const models = spec ? {} : envModels(env.models ?? {}, flags.envModel);
  const engine = createEngine({ cache: openCache({ path: spec ? null : cachePath, onError: warnCacheDegraded }), limits: { maxConcurrency: 8, maxRetries: 5, timeoutMs: 120_000 } });
  const judgeRef = chooseJudge(flags.judge, env.rubric);
  const judge: EngineJudge | undefined = spec ? undefined : needsJudge(env) && judgeRef ? warnIfBatchJudge(createJudge(judgeRef, { engine }), "eval") : undefined;
  if (needsJudge(env) && !judge && !flags.quiet) process.stderr.write("rubricate: warning: the rubric asks LLM questions but no judge is set (--judge or the rubric's `judge`); they will be NO_JUDGE errors\n");
  for (const p of judge ? policies : []) {
    const warning = judgeFamilyWarning(judge!, { model: p.model, provider: p.provider.name }, "policy");
    if (warning) process.stderr.write(`rubricate: warning: ${warning}\n`);
  }
  const progress = new Progress(tasks * flags.rollouts * policies.length, !flags.quiet);
  const interrupt = interruptSignal();
  const remote = spec
    ? queuedEval(spec, gridOf(env, tasks, flags.rollouts, policies), { url: flags.queue!, chunkSize: flags.chunkSize, signal: interrupt.signal, log: (line) => flags.quiet || process.stderr.write(`queue: ${line}\n`) })
    : undefined;
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
      models,
      unsafeNoSandbox: flags.unsafeNoSandbox,
      remote,
      onRollout: (_rec, p) => progress.update(p.done, spec ? "on the queue" : () => `calls ${engine.stats().usage.calls}, cache hits ${engine.stats().usage.cacheHits}`),
    });
  } finally {
    interrupt.dispose();
    progress.finish();
    engine.close();
  }
  const passThreshold = flags.passThreshold ?? env.rubric.scoring.pass_threshold ?? 1;
  const subtitle = `${envLine(env)} · ${result.records.length} rollouts (${result.resumed} resumed) · ${policies.length} model(s) · ${tasks} task(s) × ${flags.rollouts} rollout(s) · pass threshold ${passThreshold}`;
  const summary = evalMarkdown(result.records, { env: env.id, subtitle }, { passThreshold });
  printReport(summary);
  if (flags.summaryMd) writeOutputFile(flags.summaryMd, summary);
  if (flags.report) writeOutputFile(flags.report, evalReportHtml(result.records, { env: env.id, subtitle }, { passThreshold }));
  if (!flags.quiet) process.stderr.write(`rubricate: rollouts in ${out}${flags.report ? `, report in ${flags.report}` : ""}\n`);
  if (result.interrupted) return EXIT.interrupted;
  if (flags.push) await pushRecords(flags.push, result.records, pendingFileOf(out), { judge: judge?.id ?? judgeRef?.ref, passThreshold, step: flags.step, series: flags.series }, flags);
  return result.records.some((r) => r.reward === null) ? EXIT.partial : EXIT.ok;
}

/** `rubricate eval suite.yaml`: every environment × every model, one combined table and report. */
async function runSuiteCommand(path: string, flags: EvalFlags): Promise<number> {
  checkEvalFlags(flags);
  if (flags.queue) throw usageError(`--queue plays one environment at a time: queue each environment of ${path} with its own eval`);
  if (flags.model?.length) throw usageError(`${path} is a suite: it names its models under models:; drop --model`);
  const suite = loadSuite(path);
  // Every environment is resolved (and installed) before any call is paid: a bad spec costs nothing.
  const envs: Environment[] = [];
  for (const e of suite.environments) envs.push(await loadEnvironmentSpec(e.spec, { envsDir: flags.envsDir, onNotice: notice(flags) }));
  refuseUnwritableOutputs({ "--report": flags.report, "--summary-md": flags.summaryMd }, { "the suite file": path, "--judge": existingFile(flags.judge), "--cache": cachePathOf(flags.cache) });
  const labels = envLabels(envs, suite.environments.map((e) => e.spec));
  const outDir = flags.out ?? join(".rubricate", "evals", suite.name);
  for (const label of labels) {
    const out = join(outDir, `${labelFile(label)}.jsonl`);
    if (existsSync(out) && !flags.resume) throw new RubricateError("BAD_INPUT", `${out} already exists: pass --resume to continue it, or remove it`);
  }
  // Each environment's grid is checked before the first one plays: a later one too large would fail after the earlier ones were paid.
  envs.forEach((env, i) => {
    const { spec, tasks, rollouts } = suite.environments[i];
    const tooLarge = evalGridTooLarge({ tasks: Math.min(tasks ?? env.tasks.length, env.tasks.length), rollouts, models: suite.models.length });
    if (tooLarge) throw new RubricateError("BAD_INPUT", `${path}: environment ${spec}: ${tooLarge}; lower its tasks or rollouts`);
  });
  const engine = createEngine({ cache: openCache({ path: cachePathOf(flags.cache), onError: warnCacheDegraded }), limits: { maxConcurrency: 8, maxRetries: 5, timeoutMs: 120_000 } });
  const judges = new Map<string, EngineJudge>();
  const judgeFor = (env: Environment, ref: string | undefined) => {
    // The suite's `judge:` is named by a file as a rubric's is: resolved beside the suite, key destination checked.
    const wanted = chooseJudge(flags.judge, ref !== undefined ? { judge: ref, source: path } : env.rubric);
    if (!wanted || !needsJudge(env)) return undefined;
    const key = `${wanted.origin} ${wanted.baseDir ?? ""} ${wanted.ref}`;
    if (!judges.has(key)) judges.set(key, warnIfBatchJudge(createJudge(wanted, { engine }), "eval"));
    return judges.get(key);
  };
  // Every judge is built (and its key destination checked) before any call is paid.
  envs.forEach((env, i) => judgeFor(env, suite.environments[i].judge));
  const total = envs.reduce((n, env, i) => n + Math.min(suite.environments[i].tasks ?? env.tasks.length, env.tasks.length) * suite.environments[i].rollouts * suite.models.length, 0);
  const progress = new Progress(total, !flags.quiet);
  let done = 0;
  const interrupt = interruptSignal();
  let run;
  try {
    run = await runSuite(suite, {
      engine,
      envs,
      judgeFor,
      outDir,
      resume: flags.resume,
      concurrency: flags.concurrency,
      errors: flags.errors,
      signal: interrupt.signal,
      passThreshold: flags.passThreshold,
      onRollout: () => progress.update(++done, () => `calls ${engine.stats().usage.calls}, cache hits ${engine.stats().usage.cacheHits}`),
    });
  } finally {
    interrupt.dispose();
    progress.finish();
    engine.close();
  }
  const rollouts = run.results.reduce((n, r) => n + r.records.length, 0);
  const subtitle = `${rollouts} rollouts · ${envs.length} environment(s) × ${suite.models.length} model(s)`;
  const summary = suiteMarkdown(suite, run.results, subtitle);
  printReport(summary);
  if (flags.summaryMd) writeOutputFile(flags.summaryMd, summary);
  if (flags.report) writeOutputFile(flags.report, suiteReportHtml(suite, run.results, subtitle));
  if (!flags.quiet) process.stderr.write(`rubricate: rollouts in ${outDir}${flags.report ? `, report in ${flags.report}` : ""}\n`);
  if (run.interrupted) return EXIT.interrupted;
  if (flags.push) {
    // Every environment is tried; the first refusal is reported after all, each one's leftovers kept beside its rollouts.
    let failed: unknown;
    for (const [i, r] of run.results.entries()) {
      if (r.records.length === 0) continue;
      const judge = judgeFor(envs[i], suite.environments[i].judge);
      try {
        await pushRecords(flags.push, r.records, pendingFileOf(join(outDir, `${labelFile(r.label)}.jsonl`)), { judge: judge?.id, passThreshold: r.passThreshold, step: flags.step, series: flags.series }, flags);
      } catch (e) {
        failed ??= e;
      }
    }
    if (failed) throw failed;
  }
  return run.results.some((r) => r.records.some((x) => x.reward === null)) ? EXIT.partial : EXIT.ok;
}

/** Pushes an eval's results to a hub; what the hub did not take stays in `pendingFile` and the error says how to resend. */
async function pushRecords(hub: string, records: RolloutRecord[], pendingFile: string, meta: HubResultMeta, flags: EvalFlags): Promise<void> {
  const results = buildHubResults(records, meta);
  const answers = await pushAll(hub, results, pendingFile);
  if (flags.quiet) return;
  for (const [i, a] of answers.entries()) process.stderr.write(`rubricate: pushed ${results[i].model} on ${results[i].env.name}@${results[i].env.version} to ${hub}${typeof a.url === "string" ? `: ${a.url}` : ""}\n`);
}

function needsJudge(env: Environment): boolean {
  return env.rubric.criteria.some((c) => c.question) || env.tasks.some((t) => t.criteria?.some((c) => typeof c === "object" && c !== null && "question" in c));
}

/** The eval's whole grid in runEval's order (task, rollout, model), for numbering queued chunks. */
function gridOf(env: Environment, tasks: number, rollouts: number, policies: Policy[]): EvalCell[] {
  const grid: EvalCell[] = [];
  for (const task of env.tasks.slice(0, tasks)) for (let r = 0; r < rollouts; r++) for (const p of policies) grid.push({ task: task.id, model: p.id, rollout: r });
  return grid;
}
