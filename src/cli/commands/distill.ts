import { InvalidArgumentError, Option, type Command } from "commander";
import { distillHtml, distillMarkdown, reportHeadline, type DistillReport } from "../../distill/report.js";
import { runDistill } from "../../distill/run.js";
import { FORMATS, isPreferenceFormat, type ExportFormat, type FilterOptions } from "../../distill/types.js";
import { loadChecks } from "../../env/load.js";
import { RubricateError } from "../../errors.js";
import { chooseJudge, createJudge, type EngineJudge } from "../../judge/create.js";
import { judgeFamilyWarning } from "../../judge/family.js";
import type { ErrorPolicy } from "../../score/aggregate.js";
import { loadRubricSync } from "../../rubric/load.js";
import { markdownTable } from "../../report/markdown.js";
import { terminalText } from "../../report/terminal.js";
import { openCache } from "../../engine/cache/index.js";
import { createEngine } from "../../engine/engine.js";
import { generateRollouts, generationTooLarge } from "../../distill/generate.js";
import { hashHex } from "../../distill/hash.js";
import { loadEnvironmentSpec } from "../../hub/resolve.js";
import { createPolicy } from "../../env/policy.js";
import { Progress } from "../progress.js";
import { runScore } from "./score.js";
import { EXIT, interruptSignal, positiveInt, cachePathOf, errorPolicyOf, usageError, warnCacheDegraded, warnIfBatchJudge, finiteNumber, nonNegativeInt, exitAfterQueuedRun } from "../run.js";
import { cacheOption, collectList, concurrencyOption, errorsOption, jsonOption, judgeOption, noCacheOption, outputOption, queueOption, chunkSizeOption, userGave } from "../options.js";
import { existingFile, refuseOutputOverInput, refuseUnwritableOutputs, writeJsonResult, writeOutputFile } from "../io.js";

/** The flags of `rubricate distill`. */
export interface DistillFlags {
  output?: string;
  format: string;
  rubric?: string;
  checks?: string;
  judge?: string;
  results?: string;
  rescore?: boolean;
  cache: string | boolean;
  concurrency?: number;
  errors: ErrorPolicy;
  minReward?: number;
  require?: string[];
  bestOf?: number;
  groupBy?: string;
  groupWindow: number;
  sort?: boolean;
  topFraction?: number;
  margin?: number;
  minChars?: number;
  maxChars?: number;
  maxTokens?: number;
  dedup: string;
  nearThreshold?: number;
  ngram?: number;
  dedupOn: string;
  maxPerTag?: number;
  tagField?: string;
  promptTemplate?: string;
  responseField?: string;
  withMetadata?: boolean;
  report?: string;
  markdown?: string;
  json?: string;
  resume: boolean;
  checkpointMs: number;
  quiet?: boolean;
  env?: string;
  model?: string;
  rollouts: number;
  tasks?: number;
  queue?: string;
  chunkSize?: number;
}


/** Parses --top-fraction: a share in (0, 1] (0 keeps nothing) or throws a usage error (exit 2). */
function topFraction(value: string): number {
  const n = finiteNumber(value);
  if (!(n > 0 && n <= 1)) throw new InvalidArgumentError(`expected a fraction in (0, 1], got "${value}"`);
  return n;
}

/** Parses --near-threshold: a similarity strictly between 0 and 1 (the MinHash banding needs one) or throws a usage error (exit 2). */
function nearThreshold(value: string): number {
  const n = finiteNumber(value);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError(`expected a similarity between 0 and 1 (exclusive), got "${value}"`);
  return n;
}

/** `rubricate distill <input>`: filter scored samples or rollouts and export SFT or preference data. */
export function register(program: Command): void {
  program
    .command("distill")
    .description("Filter scored samples/rollouts (or score them with --rubric) and export SFT (OpenAI, TRL) or preference (DPO) JSONL")
    .argument("[input]", "JSONL: samples, `rubricate score`d samples (--results), or `rubricate eval` rollouts (omit with --env)")
    .option("--env <env>", "generate instead of reading: a teacher plays this environment's tasks, scored as it goes (a YAML file or package folder, a package name, name@version, a git URL — as eval takes it)")
    .option("--model <teacher>", "with --env: the teacher, provider:model or a policy config file")
    .option("--rollouts <n>", "with --env: rollouts per task", positiveInt, 8)
    .option("--tasks <n>", "with --env: use the first n tasks", positiveInt)
    .addOption(outputOption("export JSONL (written to <file>.partial, renamed at the end; default: stdout)"))
    .addOption(new Option("--format <format>", "export format").choices(FORMATS).default("openai"))
    .option("--rubric <file>", "score rows that carry no reward with this rubric (as they stream)")
    .option("--checks <file>", "with --rubric: custom checks it names, from an environment YAML (its hooks' checks) or a module exporting `checks`")
    .addOption(judgeOption("judge file or id for the rubric's LLM questions (default: the rubric's)"))
    .option("--results <file>", "`rubricate score` results of <input>: the k-th result line belongs to the k-th sample")
    .option("--rescore", "score every row with --rubric even when it carries a reward")
    .addOption(cacheOption("cache database (a resumed run re-pays nothing)"))
    .addOption(noCacheOption("do not read or write any cache"))
    .addOption(concurrencyOption("rows scored at once"))
    .addOption(errorsOption("what a criterion error makes of the reward (null: the row is dropped)"))
    .option("--min-reward <x>", "keep rows with reward ≥ x", finiteNumber)
    .option("--require <criterion>", "criteria that must be met (a pitfall: must not be met); repeatable or comma-separated", collectList)
    .option("--best-of <n>", "keep the best n rows of each prompt (ties: fewer tokens, then input order)", positiveInt)
    .option("--group-window <n>", "groups open at once: rows of a group may interleave with this many others (eval writes rollouts as they finish)", positiveInt, 64)
    .option("--sort", "sort the input by group key first (external sort via temporary files), for inputs whose groups are scattered")
    .option("--group-by <field>", "field holding the prompt key (default: task_id, prompt_id, rollout env/task, else a hash of the prompt)")
    .option("--top-fraction <f>", "keep the top fraction (0–1] of rows (pairs: by chosen reward) over the whole run", topFraction)
    .option("--margin <x>", "keep a prompt only when its best reward beats its worst by ≥ x (pairs: chosen − rejected)", finiteNumber)
    .option("--min-chars <n>", "drop responses shorter than n characters", nonNegativeInt)
    .option("--max-chars <n>", "drop responses longer than n characters", nonNegativeInt)
    .option("--max-tokens <n>", "drop completions over n tokens (usage.outputTokens, else ⌈chars/4⌉)", nonNegativeInt)
    .addOption(new Option("--dedup <mode>", "none, exact, or near (exact, then MinHash LSH)").choices(["none", "exact", "near"]).default("exact"))
    .option("--near-threshold <t>", "Jaccard similarity of character n-grams that counts as a near-duplicate (between 0 and 1)", nearThreshold, 0.8)
    .option("--ngram <n>", "characters per shingle for near-dedup", positiveInt, 5)
    .addOption(new Option("--dedup-on <what>", "conversation (prompt and completion) or completion").choices(["conversation", "completion"]).default("conversation"))
    .option("--max-per-tag <n>", "keep at most n rows (pairs) per tag", positiveInt)
    .option("--tag-field <field>", "field holding a row's tag or tags", "tags")
    .option("--prompt-template <text>", "the user turn of non-chat rows, from their fields ({{question}})")
    .option("--response-field <name>", "the field holding a non-chat row's response (default: the rubric's, else response)")
    .option("--with-metadata", "add reward and verdicts to each exported line under `metadata`")
    .option("--report <file.html>", "write the HTML report")
    .option("--markdown <file.md>", "write the markdown report")
    .addOption(jsonOption("the report"))
    .option("--no-resume", "start over even when a checkpoint of the same run exists (with --queue: the scoring too)")
    .option("--checkpoint-ms <ms>", "milliseconds between checkpoints", positiveInt, 2000)
    .option("-q, --quiet", "no progress and no summary on stderr")
    .addOption(queueOption("with --rubric: score the input on `rubricate worker`s (a Redis queue, as `score --queue`) into <output>.scores.jsonl, then filter and export here"))
    .addOption(chunkSizeOption("with --queue: input lines per chunk"))
    .action(async (input: string | undefined, flags: DistillFlags, command: Command) => {
      try {
        // Before the scoring --queue pays for, too.
        checkDistillFlags(input, flags, command);
        refuseOutputOverInput(flags.output, [input, flags.results, flags.rubric]);
        refuseUnwritableOutputs(
          { "-o": flags.output, "--report": flags.report, "--markdown": flags.markdown, "--json": flags.json },
          { "the input file": input, "--results": flags.results, "--rubric": flags.rubric, "--checks": flags.checks, "--judge": existingFile(flags.judge), "--cache": cachePathOf(flags.cache) },
        );
        if (flags.queue) {
          // checkDistillFlags made sure --queue has an input file and --rubric.
          const scored = await scoreOnQueue(input!, flags as DistillFlags & { rubric: string });
          if (scored !== EXIT.ok && scored !== EXIT.partial) {
            process.exitCode = scored;
            return;
          }
        }
        process.exitCode = await runDistillCommand(input, flags);
      } finally {
        exitAfterQueuedRun(flags.queue);
      }
    });
}

/**
 * `distill --queue`: the scoring, which is where the money and the time go, runs on the queue's
 * workers exactly as `score --queue` does (resumable; its results in <output>.scores.jsonl); the
 * filtering and export that follow are a streaming pass here, reading those results (--results).
 */
async function scoreOnQueue(input: string, flags: DistillFlags & { rubric: string }): Promise<number> {
  const scores = `${flags.output}.scores.jsonl`;
  // --no-resume starts the scoring over too: not the .partial of the scores, nor chunks an earlier run left finished.
  const resume = flags.resume ? undefined : false;
  const code = await runScore(flags.rubric, input, { output: scores, judge: flags.judge, checks: flags.checks, cache: flags.cache, concurrency: flags.concurrency, errors: flags.errors, order: "input", quiet: flags.quiet, queue: flags.queue, chunkSize: flags.chunkSize, resume });
  // Every row now has its result: the rubric stays for reading rows (inputs, response field), never to score.
  flags.results = scores;
  flags.rescore = false;
  return code;
}

/** Refuses flag combinations that cannot work (exit 2), before anything is read, generated or scored. */
function checkDistillFlags(input: string | undefined, flags: DistillFlags, command: Command): void {
  if ((input === undefined) === (flags.env === undefined)) throw usageError("give either an input file or --env (to generate with a teacher), not both or neither");
  if (flags.env && !flags.model) throw usageError("--env needs --model <teacher>");
  if (!flags.env && (flags.model !== undefined || flags.tasks !== undefined)) throw usageError("--model and --tasks choose the teacher and the tasks of --env: pass --env <env> too, or drop them");
  // Options with a default: only one the user gave is a mistake without its partner.
  if (!flags.env && userGave(command, "--rollouts")) throw usageError("--rollouts is how many times the teacher of --env plays each task: pass --env <env> too, or drop it");
  // What can be told before the environment loads (maybe installs): --tasks × --rollouts, or --rollouts alone (one task at least).
  const atLeast = generationTooLarge({ tasks: flags.tasks ?? 1, rollouts: flags.rollouts });
  if (flags.env && atLeast) throw usageError(`--rollouts ${flags.rollouts}: ${atLeast}; lower --rollouts or --tasks`);
  const nearOnly = ["--near-threshold", "--ngram"].filter((flag) => userGave(command, flag));
  if (flags.dedup !== "near" && nearOnly.length > 0) throw usageError(`${nearOnly.join(" and ")} tune${nearOnly.length > 1 ? "" : "s"} --dedup near: pass --dedup near too, or drop ${nearOnly.length > 1 ? "them" : "it"}`);
  if (flags.env && (flags.rubric || flags.results)) throw usageError("--env scores with the environment's rubric: drop --rubric/--results");
  if (flags.rescore && !flags.rubric) throw usageError("--rescore needs --rubric");
  if (flags.checks && !flags.rubric && !flags.env) throw usageError("--checks are the custom checks --rubric names: pass --rubric too");
  if (flags.minChars !== undefined && flags.maxChars !== undefined && flags.minChars > flags.maxChars) throw usageError(`--min-chars ${flags.minChars} is above --max-chars ${flags.maxChars}: every response would be dropped`);
  if (flags.bestOf !== undefined && isPreferenceFormat(flags.format as ExportFormat)) throw usageError(`--best-of does not apply to --format ${flags.format} (each prompt gives one pair: its best against its worst)`);
  if (flags.json === "-" && (flags.output === undefined || flags.output === "-")) throw usageError("--json - needs stdout, which holds the exported rows: give -o <file>, or --json <file>");
  if (flags.chunkSize !== undefined && !flags.queue) throw usageError("--chunk-size cuts the input for --queue: pass --queue <url> too, or drop it");
  if (!flags.queue) return;
  if (!input || flags.env) throw usageError("--queue scores an input file: give one (not --env)");
  if (!flags.rubric) throw usageError("--queue scores the input with --rubric: give the rubric");
  if (flags.results) throw usageError("--queue writes the results itself: drop --results");
  if (!flags.output || flags.output === "-") throw usageError("--queue keeps the scores beside the export so a rerun resumes: give -o <file>");
}

/** Turns flags into filter options, rejecting contradictions before any work. */
export function filtersFromFlags(flags: DistillFlags): FilterOptions {
  if (!["none", "exact", "near"].includes(flags.dedup)) throw new RubricateError("BAD_INPUT", `--dedup must be none, exact or near, not "${flags.dedup}"`);
  if (!["conversation", "completion"].includes(flags.dedupOn)) throw new RubricateError("BAD_INPUT", `--dedup-on must be conversation or completion, not "${flags.dedupOn}"`);
  return {
    minReward: flags.minReward,
    require: flags.require,
    bestOf: flags.bestOf,
    topFraction: flags.topFraction,
    margin: flags.margin,
    minChars: flags.minChars,
    maxChars: flags.maxChars,
    maxTokens: flags.maxTokens,
    dedup: flags.dedup as FilterOptions["dedup"],
    nearThreshold: flags.nearThreshold,
    ngram: flags.ngram,
    dedupOn: flags.dedupOn as FilterOptions["dedupOn"],
    maxPerTag: flags.maxPerTag,
  };
}

async function runDistillCommand(input: string | undefined, flags: DistillFlags): Promise<number> {
  if (!(FORMATS as readonly string[]).includes(flags.format)) throw new RubricateError("BAD_INPUT", `--format must be one of ${FORMATS.join(", ")}, not "${flags.format}"`);
  errorPolicyOf(flags.errors);
  const filters = filtersFromFlags(flags);
  const cachePath = cachePathOf(flags.cache);
  const generation = flags.env ? await teacher(flags, cachePath) : undefined;
  const rubric = flags.rubric ? loadRubricSync(flags.rubric) : undefined;
  const judgeRef = chooseJudge(flags.judge, rubric);
  const needsJudge = rubric?.criteria.some((c) => c.question) ?? false;
  // Queued: the workers judged every row; this process calls no judge and needs no key.
  const judge: EngineJudge | undefined = generation?.judge ?? (rubric && judgeRef && needsJudge && !flags.queue ? warnIfBatchJudge(createJudge(judgeRef, { cache: cachePath, onCacheError: warnCacheDegraded }), "distill", "for the batch price, run `rubricate score … --batch` over the same samples first: distill --rescore then reads those answers from the cache") : undefined);
  const progress = new Progress(undefined, !flags.quiet && flags.output !== undefined);
  const interrupt = interruptSignal();
  let report: DistillReport;
  let interrupted: boolean;
  try {
    const result = await runDistill({
      input: generation ? () => generateRollouts({ ...generation.options, signal: interrupt.signal }) : input!,
      sourceId: generation?.sourceId,
      results: flags.results,
      output: flags.output ?? "-",
      format: flags.format as ExportFormat,
      withMetadata: flags.withMetadata,
      filters,
      rows: { groupBy: flags.groupBy, tagField: flags.tagField, promptTemplate: flags.promptTemplate, ...(flags.responseField ? { responseField: flags.responseField } : {}) },
      rubric,
      judge,
      checks: flags.checks ? await loadChecks(flags.checks) : generation?.options.env.hooks.checks,
      rescore: flags.rescore,
      concurrency: flags.concurrency,
      errors: flags.errors,
      signal: interrupt.signal,
      resume: flags.resume,
      checkpointMs: flags.checkpointMs,
      groupWindow: flags.groupWindow,
      sort: flags.sort,
      onStartOver: (line) => process.stderr.write(`rubricate distill: ${terminalText(line)} (pass the same input and options to resume)\n`),
      onProgress: (p) => progress.update(p.rows, `kept ${p.kept}${p.replaying ? " (replaying what an earlier run wrote)" : ""}`),
    });
    report = result.report;
    interrupted = result.interrupted;
  } finally {
    interrupt.dispose();
    progress.finish();
    await judge?.close?.();
    generation?.options.engine.close();
  }
  if (flags.report) writeOutputFile(flags.report, distillHtml(report));
  if (flags.markdown) writeOutputFile(flags.markdown, distillMarkdown(report));
  if (flags.json) writeJsonResult(flags.json, report, writeOutputFile);
  if (!flags.quiet) {
    const funnel = report.funnel.map((s) => ({ stage: s.stage, unit: s.unit, in: s.in, out: s.out, dropped: Object.entries(s.dropped).map(([k, n]) => `${k} ${n}`).join(", ") || "-" }));
    const lines = [reportHeadline(report), markdownTable(funnel, [{ label: "stage", value: "stage" }, { label: "unit", value: "unit" }, { label: "in", value: "in", numeric: true }, { label: "kept", value: "out", numeric: true }, { label: "dropped", value: "dropped" }]), ...report.warnings.map((w) => `warning: ${w}`)];
    if (generation) lines.push(`teacher and judge calls ${generation.options.engine.stats().usage.calls}, cache hits ${generation.options.engine.stats().usage.cacheHits}`);
    else if (judge) lines.push(`judge calls ${judge.engine.stats().usage.calls}, cache hits ${judge.engine.stats().usage.cacheHits}`);
    if (interrupted) lines.push(`interrupted: rerun the same command to resume (checkpoint ${flags.output}.checkpoint.json)`);
    // stderr is read by a person: the funnel as aligned columns, not markdown.
    process.stderr.write(`${terminalText(lines.join("\n"))}\n`);
  }
  const failed = Object.keys(report.errorCodes).length > 0;
  if (flags.quiet && (report.badLines > 0 || failed)) process.stderr.write(`${report.warnings.filter((w) => w.includes("not JSON objects") || w.includes("have no reward")).join("\n")}\n`);
  // Bad input lines were skipped, and rows whose scoring failed were dropped, both named in the
  // warnings; the exit code says some rows failed (a judge that was down must not look like a run).
  return interrupted ? EXIT.interrupted : report.badLines > 0 || failed ? EXIT.partial : EXIT.ok;
}

/** The teacher side of --env: environment, policy, one engine (cache) for the teacher and the judge. */
async function teacher(flags: DistillFlags, cachePath: string | null | undefined) {
  // Resolved as eval resolves it: a file or folder, a package name (installed into .rubricate/envs), name@version, a git URL.
  const env = await loadEnvironmentSpec(flags.env!, { onNotice: (line) => process.stderr.write(`rubricate: ${line}\n`) });
  // Before the teacher is built or called (generateRollouts refuses it too, for library callers).
  const tooLarge = generationTooLarge({ tasks: Math.min(flags.tasks ?? env.tasks.length, env.tasks.length), rollouts: flags.rollouts });
  if (tooLarge) throw usageError(`--rollouts ${flags.rollouts}: ${tooLarge}; lower --rollouts or --tasks`);
  const policy = createPolicy(flags.model!, { defaults: env.policy });
  const engine = createEngine({ cache: openCache({ path: cachePath, onError: warnCacheDegraded }), limits: { maxConcurrency: 8, maxRetries: 5, timeoutMs: 120_000 } });
  const needsJudge = env.rubric.criteria.some((c) => c.question) || env.tasks.some((t) => t.criteria?.some((c) => typeof c === "object" && c !== null && "question" in c));
  const judgeRef = chooseJudge(flags.judge, env.rubric);
  const judge: EngineJudge | undefined = needsJudge && judgeRef ? warnIfBatchJudge(createJudge(judgeRef, { engine }), "distill") : undefined;
  const warning = judge && judgeFamilyWarning(judge, { model: policy.model, provider: policy.provider.name }, "teacher");
  if (warning) process.stderr.write(`rubricate: warning: ${warning}\n`);
  const rollouts = flags.rollouts;
  // What the rows will be: same env tasks, teacher and k → same rollouts (replayed from the cache).
  const sourceId = hashHex(JSON.stringify({ env: env.id, version: env.version, tasks: env.tasks, harness: env.harness, policy: policy.id, params: policy.params, rollouts, n: flags.tasks ?? null }));
  return { judge, sourceId, options: { env, policy, engine, judge, rollouts, tasks: flags.tasks, concurrency: flags.concurrency, errors: flags.errors } };
}
