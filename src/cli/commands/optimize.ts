import { readFileSync } from "node:fs";
import { join } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { readLabels } from "../../calibrate/inputs.js";
import { openCache } from "../../engine/cache/index.js";
import { createEngine, type Engine } from "../../engine/engine.js";
import { loadEnvironment } from "../../env/load.js";
import { createPolicy } from "../../env/policy.js";
import { isRubricateError, RubricateError } from "../../errors.js";
import { chooseJudge, createJudge } from "../../judge/create.js";
import { judgeFamilyWarning } from "../../judge/family.js";
import { optimize } from "../../optimize/optimize.js";
import { progressLine } from "../../optimize/progress.js";
import { reportHtml, reportMarkdown } from "../../optimize/report.js";
import { judgeQuestionTarget } from "../../optimize/targets/judge-question.js";
import { policyPromptTarget } from "../../optimize/targets/policy-prompt.js";
import { createReflector, type ReflectionPrompt } from "../../optimize/targets/reflect.js";
import { rewriteRubricQuestions } from "../../optimize/targets/rubric-rewrite.js";
import type { Candidate, Evaluate, OptimizeOptions, OptimizeResult } from "../../optimize/types.js";
import { loadRubric } from "../../rubric/load.js";
import { EXIT, interruptSignal, positiveInt, cachePathOf, warnCacheDegraded, warnIfBatchJudge, nonNegativeInt } from "../run.js";
import { cacheOption, collect, concurrencyOption, judgeOption, noCacheOption } from "../options.js";
import { existingFile, refuseUnwritableOutputs, writeOutputFile, type ReadPaths } from "../io.js";

/** Flags both `optimize` targets share. */
export interface OptimizeFlags {
  judge?: string;
  reflector: string;
  budget: number;
  minibatch: number;
  seed: number;
  valFraction: number;
  state?: string;
  resume?: boolean;
  report?: string;
  markdown?: string;
  out?: string;
  stopFile?: string;
  targetScore?: number;
  patience?: number;
  maxIterations?: number;
  maxTime?: number;
  tolerance: number;
  merge?: boolean;
  selection?: "pareto" | "current_best" | "uniform";
  maxReflections?: number;
  maxReflectionCost?: number;
  cache: string | boolean;
  concurrency?: number;
  quiet?: boolean;
}

/** Flags of `optimize policy`. */
export interface PolicyFlags extends OptimizeFlags {
  env: string;
  model: string;
  tasks?: number;
  rollouts: number;
}

/** Flags of `optimize question`. */
export interface QuestionFlags extends OptimizeFlags {
  rubric: string;
  criterion: string[];
  labels: string;
}

const number = (lo: number, hi: number, open = false) => (value: string) => {
  const n = Number(value);
  if (!(open ? n > lo && n < hi : n >= lo && n <= hi)) throw new InvalidArgumentError(`expected a number in ${open ? "(" : "["}${lo}, ${hi}${open ? ")" : "]"}, got "${value}"`);
  return n;
};

const selection = (value: string) => {
  if (value !== "pareto" && value !== "current_best" && value !== "uniform") throw new InvalidArgumentError(`expected pareto, current_best or uniform, got "${value}"`);
  return value;
};

function common(cmd: Command): Command {
  return cmd
    .addOption(judgeOption())
    .requiredOption("-r, --reflector <judge>", "the reflection model: a judge file or packaged judge id (provider, model, temperature, max_tokens)")
    .option("-b, --budget <n>", "calls allowed: metric calls (one per instance evaluated; cached re-evaluations are free) plus reflector calls", positiveInt, 200)
    .option("--minibatch <n>", "training instances per reflection", positiveInt, 3)
    .option("--seed <n>", "seed of every random choice (split, parents, minibatches)", nonNegativeInt, 0)
    .option("--val-fraction <x>", "share of the data held out for validation", number(0, 1, true), 0.5)
    .option("--state <file>", "resumable state, written after every iteration (default .rubricate/optimize/<name>.json)")
    .option("--resume", "continue from --state when it exists (same data, seed and options)")
    .option("--report <file>", "write a self-contained HTML report (score curve, lineage, diff against the seed)")
    .option("--markdown <file>", "write the markdown summary")
    .option("--stop-file <file>", "stop cleanly after the iteration during which this file appears")
    .option("--target-score <x>", "stop once the best mean validation score reaches x", number(0, Infinity))
    .option("--patience <k>", "stop after k iterations without a better best score", positiveInt)
    .option("--max-iterations <n>", "stop after n iterations in total", positiveInt)
    .option("--max-time <seconds>", "stop after this many seconds of this process", positiveInt)
    .option("--tolerance <x>", "accept a child whose minibatch sum beats its parent's by more than x (noisy judges)", number(0, Infinity), 0)
    .option("--merge", "also try merging two front members that share an ancestor")
    .option("--selection <how>", "parent of each reflection: pareto (front members by instances won), current_best (greedy) or uniform", selection, "pareto")
    .option("--max-reflections <n>", "stop after n reflection calls", positiveInt)
    .option("--max-reflection-cost <usd>", "stop once the reflection model has cost this many USD (needs its price in the reflector file)", number(0, Infinity))
    .addOption(cacheOption("cache database (policy, judge and reflection calls)"))
    .addOption(noCacheOption())
    .addOption(concurrencyOption("evaluations in flight at once (default 8)"))
    .option("-q, --quiet", "only warnings on stderr");
}

/** `rubricate optimize policy|question`: GEPA on an environment's system prompt, or on rubric questions against human labels. */
export function register(program: Command): void {
  const optimizeCmd = program.command("optimize").description("Evolve a prompt with GEPA (reflection on rubric feedback, Pareto front over instances)");
  common(
    optimizeCmd
      .command("policy")
      .description("Optimise an environment's policy system prompt, scored by the environment's rubric")
      .requiredOption("-e, --env <file>", "environment YAML file")
      .requiredOption("-m, --model <model>", "policy: provider:model, openai-compatible:<model>@<base_url>, or a policy config file")
      .option("-n, --tasks <n>", "use the first n tasks (default: all), split into train and validation", positiveInt)
      .option("-k, --rollouts <k>", "rollouts per task, rewards averaged", positiveInt, 1)
      .option("-o, --out <file>", "write the best system prompt here"),
  ).action(async (flags: PolicyFlags) => {
    process.exitCode = await runPolicy(flags);
  });
  common(
    optimizeCmd
      .command("question")
      .description("Optimise rubric questions' wording for agreement with human labels")
      .requiredOption("--rubric <file>", "rubric YAML file")
      .requiredOption("--criterion <id>", "a criterion whose question is reworded (repeatable)", collect)
      .requiredOption("-l, --labels <file>", "human labels with their samples: JSONL or CSV rows of {id | sample, criterion, label}")
      .option("-o, --out <file>", "write the rubric with the best questions here (YAML, comments kept)"),
  ).action(async (flags: QuestionFlags) => {
    process.exitCode = await runQuestion(flags);
  });
}

function openEngine(flags: OptimizeFlags): Engine {
  const path = cachePathOf(flags.cache);
  return createEngine({ cache: openCache({ path, onError: warnCacheDegraded }), limits: { maxConcurrency: 8, maxRetries: 5, timeoutMs: 120_000 } });
}

/** Runs `optimize policy` with parsed flags; returns the exit code. */
export async function runPolicy(flags: PolicyFlags): Promise<number> {
  const env = await loadEnvironment(flags.env);
  const state = flags.state ?? join(".rubricate", "optimize", `${env.id}.policy.json`);
  refuseUnwritableOptimizeOutputs(flags, state, { "--env": existingFile(flags.env) });
  const engine = openEngine(flags);
  try {
    const policy = createPolicy(flags.model, { defaults: env.policy });
    const judgeRef = chooseJudge(flags.judge, env.rubric);
    const asks = env.rubric.criteria.some((c) => c.question) || env.tasks.some((t) => t.criteria?.some((c) => typeof c === "object" && c !== null && "question" in c));
    if (asks && !judgeRef) throw new RubricateError("NO_JUDGE", `the rubric of ${env.id} asks LLM questions: give --judge (or set the rubric's \`judge\`)`);
    const judge = judgeRef ? warnIfBatchJudge(createJudge(judgeRef, { engine }), "optimize") : undefined;
    const warning = judge && judgeFamilyWarning(judge, { model: policy.model, provider: policy.provider.name }, "policy");
    if (warning) process.stderr.write(`rubricate: warning: ${warning}\n`);
    const tasks = env.tasks.slice(0, flags.tasks ?? env.tasks.length);
    const target = policyPromptTarget({ env, policy, engine, judge, tasks, valFraction: flags.valFraction, splitSeed: flags.seed, rollouts: flags.rollouts, concurrency: flags.concurrency });
    return await runGepa(flags, engine, { ...target, state, title: `GEPA: ${env.id} system prompt (${policy.id})` }, (result) => {
      const text = result.best.candidate.system;
      if (flags.out) writeOutputFile(flags.out, text.endsWith("\n") ? text : `${text}\n`);
      return text;
    });
  } finally {
    engine.close();
  }
}

/** Runs `optimize question` with parsed flags; returns the exit code. */
export async function runQuestion(flags: QuestionFlags): Promise<number> {
  const rubric = await loadRubric(flags.rubric);
  const state = flags.state ?? join(".rubricate", "optimize", `${rubric.id}.${flags.criterion.join("+")}.question.json`);
  // -o writes the improved rubric beside the one read, not over it (the docs' r.best.yaml).
  refuseUnwritableOptimizeOutputs(flags, state, { "--rubric": flags.rubric, "--labels": flags.labels });
  const judgeRef = chooseJudge(flags.judge, rubric);
  if (!judgeRef) throw new RubricateError("NO_JUDGE", "optimize question needs a judge: --judge or the rubric's `judge`");
  const engine = openEngine(flags);
  try {
    const judge = warnIfBatchJudge(createJudge(judgeRef, { engine }), "optimize");
    const target = judgeQuestionTarget({ rubric, labels: readLabels(flags.labels), judge, criteria: flags.criterion, valFraction: flags.valFraction, splitSeed: flags.seed, concurrency: flags.concurrency });
    for (const w of target.warnings) process.stderr.write(`rubricate: warning: ${w}\n`);
    return await runGepa(flags, engine, { ...target, state, title: `GEPA: ${rubric.id} question wording (${flags.criterion.join(", ")})` }, (result) => {
      if (flags.out) writeOutputFile(flags.out, rewriteRubricQuestions(readFileSync(flags.rubric, "utf8"), result.best.candidate, flags.rubric));
      return Object.entries(result.best.candidate).map(([id, q]) => `${id}: ${q}`).join("\n");
    });
  } finally {
    engine.close();
  }
}

/**
 * The files an optimize run writes (its state after every iteration, the reports and the best text
 * at the end), checked before the first call, also against the files it reads (`reads`, the judge
 * and the cache).
 */
function refuseUnwritableOptimizeOutputs(flags: OptimizeFlags, state: string, reads: Record<string, ReadPaths>): void {
  refuseUnwritableOutputs({ "--state": state, "--report": flags.report, "--markdown": flags.markdown, "-o": flags.out }, { ...reads, "--judge": existingFile(flags.judge), "--cache": cachePathOf(flags.cache) });
}

type TargetLike<I> = Pick<OptimizeOptions<I>, "trainset" | "valset" | "instanceText" | "makeReflectiveDataset" | "validateProposal"> & {
  seed: Candidate;
  evaluate: Evaluate<I>;
  reflectionPrompt: ReflectionPrompt<I>;
  state: string;
  title: string;
};

/** The shared run: reflector, GEPA with progress and state, then report, summary and the best text. */
async function runGepa<I>(flags: OptimizeFlags, engine: Engine, t: TargetLike<I>, finish: (r: OptimizeResult) => string): Promise<number> {
  const reflector = createReflector<I>(flags.reflector, { engine, prompt: t.reflectionPrompt });
  if (flags.maxReflectionCost !== undefined && !reflector.config.price) {
    throw new RubricateError("BAD_INPUT", `--max-reflection-cost needs the reflection model's price: add \`price: { input, output }\` (USD per million tokens) to ${flags.reflector}`);
  }
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const interrupt = interruptSignal();
  let result: OptimizeResult;
  try {
    result = await optimize<I>({
      seed: t.seed, evaluate: t.evaluate, reflect: reflector.reflect, trainset: t.trainset, valset: t.valset, instanceText: t.instanceText,
      makeReflectiveDataset: t.makeReflectiveDataset, validateProposal: t.validateProposal,
      budget: flags.budget, minibatchSize: flags.minibatch, rngSeed: flags.seed, acceptTolerance: flags.tolerance, useMerge: flags.merge ?? false,
      candidateSelection: flags.selection, reflectionCostUsd: () => reflector.usage().costUsd,
      // --budget bounds every paid call: metric calls and the reflector's calls together.
      stop: {
        maxTotalCalls: flags.budget, targetScore: flags.targetScore, noImprovementIterations: flags.patience, maxIterations: flags.maxIterations, timeMs: flags.maxTime === undefined ? undefined : flags.maxTime * 1000, stopFile: flags.stopFile,
        maxReflectionCalls: flags.maxReflections, maxReflectionCostUsd: flags.maxReflectionCost,
      },
      stateFile: t.state, resume: flags.resume ?? false, signal: interrupt.signal,
      onWarning: () => {},
      onProgress: (e) => {
        if (!flags.quiet || e.type === "warning") say(progressLine(e));
      },
    });
  } catch (e) {
    if (isRubricateError(e, "ABORTED") || interrupt.signal.aborted) {
      say(`rubricate: interrupted; the last finished iteration is in ${t.state} (continue with --resume)`);
      return EXIT.interrupted;
    }
    throw e;
  } finally {
    interrupt.dispose();
  }
  const best = finish(result);
  if (flags.report) writeOutputFile(flags.report, reportHtml(result, { title: t.title }));
  if (flags.markdown) writeOutputFile(flags.markdown, reportMarkdown(result, { title: t.title }));
  const usage = engine.stats().usage;
  const seed = result.candidates[0].meanScore;
  say(
    `rubricate: best #${result.best.index} mean validation score ${result.best.meanScore.toFixed(3)} (seed ${seed.toFixed(3)}); ` +
      `${result.iterations} iterations, ${result.budget.metricCalls}/${result.budget.maxMetricCalls} metric calls, ${result.budget.reflectionCalls} reflections, ` +
      `stopped: ${result.stopReason}; LLM calls ${usage.calls} paid, ${usage.cacheHits} cached, ~$${usage.costUsd.toFixed(4)}; state in ${t.state}` +
      `${flags.report ? `, report in ${flags.report}` : ""}${flags.out ? `, best in ${flags.out}` : ""}`,
  );
  process.stdout.write(best.endsWith("\n") ? best : `${best}\n`);
  return result.stopReason === "aborted" ? EXIT.interrupted : EXIT.ok;
}
