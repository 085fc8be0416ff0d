import { existsSync, readFileSync } from "node:fs";
import { InvalidArgumentError, Option, type Command } from "commander";
import { emptyEstimate, estimateSample } from "../../score/estimate.js";
import { scoreStream, type IndexedResult } from "../../score/score.js";
import { RubricateError } from "../../errors.js";
import { chooseJudge, createJudge, type EngineJudge, type JudgeChoice } from "../../judge/create.js";
import { loadJudgeConfig } from "../../judge/load.js";
import type { ErrorPolicy } from "../../score/aggregate.js";
import { formatSummary, SummaryBuilder, type RunSummary } from "../../score/summary.js";
import { loadRubricSync } from "../../rubric/load.js";
import type { CustomChecks } from "../../checks/custom.js";
import type { Rubric } from "../../rubric/schema.js";
import type { Sample, ScoreResult } from "../../types.js";
import { type BadLine, BadLines, badLineWhere, jsonlEntries } from "../../config/jsonl.js";
import { JsonlWriter, readJsonl, existingFile, refuseOutputOverInput, refuseUnwritableOutputs, writeOutputFile } from "../io.js";
import { isRecord, parseJsonLine } from "../../text/json.js";
import { isRolloutRecord, sampleOfRollout, samplesOfRows } from "../../env/records.js";
import { parseShard, takeShard } from "../../engine/shard.js";
import type { FleetMemberStats } from "../../providers/fleet.js";
import { countLines, Progress } from "../progress.js";
import { EXIT, finiteNumber, interruptSignal, positiveInt, cachePathOf, errorPolicyOf, usageError, warnCacheDegraded, exitAfterQueuedRun } from "../run.js";
import { isRedisUrl } from "../../engine/cache/index.js";
import { runInCappedWorker } from "../worker.js";
import { checkQueueFlags, DEFAULT_CHUNK_SIZE, queuedRun, queuedStream, type QueuedRun } from "../queued-score.js";
import { fillCacheByBatch } from "../../engine/batch/runner.js";
import { openBatchJobStore } from "../../engine/batch/jobs.js";
import { runCodeUnsandboxed } from "../../checks/code/spec.js";
import { attachGroups, groupMemberOf, type AdvantageScale, type GroupBy } from "../../score/group.js";
import { cacheOption, noCacheOption, concurrencyOption, errorsOption, judgeOption, outputOption, queueOption, chunkSizeOption } from "../options.js";

// Custom checks from an environment (`--checks`) load the environment area (its zod schemas among
// it) when a run asks for them; a plain run starts without. Through env/index.ts, which the package
// root already imports dynamically: a dynamic import of another module the root reaches would
// split the code they share into more chunks, each one more file every `import "rubricate"` reads.
const loadChecks = async (path: string): Promise<CustomChecks> => (await import("../../env/index.js")).loadChecks(path);

/** The flags of `rubricate score`. */
export interface ScoreFlags {
  output?: string;
  judge?: string;
  checks?: string;
  cache: string | boolean;
  concurrency?: number;
  errors: ErrorPolicy;
  order: "input" | "completed";
  dryRun?: boolean;
  quiet?: boolean;
  summaryJson?: string;
  shard?: string;
  batch?: boolean;
  /** `--resume`; false (`distill --queue --no-resume`): a queued run starts over even where it could resume. */
  resume?: boolean;
  pollMs?: number;
  groupBy?: string;
  advantage?: AdvantageScale;
  passK?: number[];
  lengthPenalty?: number;
  lengthField?: string;
  unsafeNoSandbox?: boolean;
  queue?: string;
  chunkSize?: number;
}

/** `rubricate score <rubric> <samples.jsonl|-> [-o results.jsonl] [--judge j.yaml]`. */
export function register(program: Command): void {
  program
    .command("score")
    .description("Score samples (JSONL, or - for stdin) with a rubric; one JSON result line per sample, in input order")
    .argument("<rubric>", "rubric YAML file")
    .argument("<samples>", "samples JSONL file, or - to read stdin")
    .addOption(outputOption("write results JSONL here (default: stdout)"))
    .addOption(judgeOption())
    .addOption(cacheOption())
    .addOption(noCacheOption())
    .addOption(concurrencyOption("samples scored at once (the judge file limits calls)"))
    .addOption(errorsOption())
    .addOption(new Option("--order <order>", "input (default) or completed").choices(["input", "completed"]).default("input"))
    .option("--dry-run", "print the number of calls, tokens and cost a run would need, and call nothing")
    .option("-q, --quiet", "no progress and no summary on stderr")
    .option("--summary-json <file>", "also write the summary as JSON")
    .option("--batch", "answer judge calls through the provider's batch API (cheaper, slower); same cache, same results")
    .option("--resume", "continue an interrupted -o run: keep the results in <output>.partial and score only the samples missing there (--batch always collects jobs a crashed run submitted)")
    .option("--poll-ms <ms>", "with --batch: first poll interval", positiveInt)
    .option("--checks <file>", "custom checks the rubric names (`check: { custom: … }`): an environment YAML (its hooks' checks) or a module exporting `checks`")
    .option("--shard <i/n>", "score only shard i of n (every n-th sample); join the outputs with `rubricate merge`", shardText)
    .option("--group-by <field>", "GRPO groups: responses sharing this input form a group; lines gain group and advantage (written at the end)")
    .addOption(new Option("--advantage <scale>", "with --group-by: group (default), batch or none — the std the advantage is divided by (TRL's scale_rewards)").choices(["group", "batch", "none"]))
    .option("--pass-k <list>", "with --group-by: values of k for pass@k, e.g. 1,8 (default 1 and the group size)", kList)
    .option("--length-penalty <weight>", "with --group-by: Kimi k1.5 length penalty of this weight (shorter correct responses gain)", finiteNumber)
    .option("--unsafe-no-sandbox", "let `tests` checks run the responses' code in a plain child process (limits, no isolation): only for code you trust")
    .option("--length-field <field>", "with --length-penalty: the input with each response's length (default: characters of the response)")
    .addOption(queueOption("score on `rubricate worker`s anywhere: put chunks on this Redis queue (redis://host:port/db), write results here in input order; run the same command again to resume (needs -o)"))
    .addOption(chunkSizeOption(`with --queue: input lines per chunk (default ${DEFAULT_CHUNK_SIZE})`))
    .action(async (rubricPath: string, samplesPath: string, flags: ScoreFlags) => {
      try {
        process.exitCode = await runScore(rubricPath, samplesPath, flags);
      } finally {
        exitAfterQueuedRun(flags.queue);
      }
    });
}

/** Runs `rubricate score` with parsed flags; returns the exit code (`distill --queue` scores through it). */
export async function runScore(rubricPath: string, samplesPath: string, flags: ScoreFlags): Promise<number> {
  checkScoreFlags(flags, samplesPath);
  refuseOutputOverInput(flags.output, [samplesPath, rubricPath]);
  refuseUnwritableOutputs({ "-o": flags.output, "--summary-json": flags.summaryJson }, { "the samples file": samplesPath, "the rubric file": rubricPath, "--judge": existingFile(flags.judge), "--checks": flags.checks, "--cache": cachePathOf(flags.cache) });
  if (flags.unsafeNoSandbox) await runCodeUnsandboxed();
  const rubric = loadRubricSync(rubricPath);
  const checks = flags.checks ? await loadChecks(flags.checks) : undefined;
  const judgeRef = chooseJudge(flags.judge, rubric);
  // An explicit --judge is always used: samples may carry questions of their own (per-sample criteria).
  const needsJudge = rubric.criteria.some((c) => c.question) || flags.judge !== undefined || rubric.criteria_from_samples === true;
  if (flags.dryRun) return dryRun(rubric, samplesPath, judgeRef && needsJudge ? judgeRef : undefined);
  const cachePath = cachePathOf(flags.cache);
  if (flags.batch && isRedisPath(cachePath)) throw batchCacheRefusal(cachePath);
  const queued = flags.queue ? queuedRun(rubric, rubricPath, samplesPath, judgeRef && needsJudge ? judgeRef : undefined, cachePath, flags) : undefined;
  if (queued?.resumes) flags.resume = true;
  const judge: EngineJudge | undefined = queued ? undefined : judgeRef && needsJudge ? createJudge(judgeRef, { cache: cachePath, onCacheError: warnCacheDegraded }) : undefined;
  if (judge && (flags.batch || judge.config.mode === "batch")) {
    const code = await batchPass(rubric, samplesPath, judge, cachePath, flags);
    if (code !== undefined) return code;
  }
  const run = await writeResults({ rubric, samplesPath, flags, judge, checks, queued });
  return reportRun(run, judge, flags);
}

/** Refuses flag combinations that cannot work (exit 2), before anything is loaded or paid for. */
function checkScoreFlags(flags: ScoreFlags, samplesPath: string): void {
  errorPolicyOf(flags.errors);
  if (flags.groupBy === undefined && (flags.advantage || flags.passK || flags.lengthPenalty !== undefined)) throw usageError("--advantage, --pass-k and --length-penalty need --group-by <field>");
  if (flags.lengthField !== undefined && flags.lengthPenalty === undefined) throw usageError("--length-field gives --length-penalty its lengths: pass --length-penalty <weight> too");
  if (flags.groupBy && flags.shard) throw usageError("--group-by needs every response of a group: do not combine it with --shard");
  // Before batch mode pays for a whole batch.
  if (flags.resume && (!flags.output || flags.output === "-")) throw usageError("--resume continues the results file of an interrupted run: give it with -o <file>");
  if (flags.chunkSize !== undefined && !flags.queue) throw usageError("--chunk-size cuts the input for --queue: pass --queue <url> too, or drop it");
  if (flags.queue) checkQueueFlags(flags, samplesPath);
  if (flags.batch && samplesPath === "-") throw usageError("--batch reads the samples several times: give a file, not stdin");
  if (flags.batch && flags.cache === false) throw usageError("--batch keeps its answers in the cache for the scoring pass: drop --no-cache (every answer would be paid for in the batch, thrown away, then paid again live)");
}

/**
 * Batch mode: answers the judge's calls through the provider's batch API into the cache before
 * the scoring pass. Returns an exit code when the run went on in a heap-capped worker instead.
 */
async function batchPass(rubric: Rubric, samplesPath: string, judge: EngineJudge, cachePath: string | null | undefined, flags: ScoreFlags): Promise<number | undefined> {
  if (isRedisPath(cachePath)) {
    await judge.close?.();
    throw batchCacheRefusal(cachePath);
  }
  // --batch was checked with the other flags (checkScoreFlags): here it is the judge file's `mode: batch`.
  if (samplesPath === "-" || cachePath === null) {
    await judge.close?.();
    if (samplesPath === "-") throw usageError(`judge ${judge.id} has mode: batch, which reads the samples several times: give a file, not stdin`);
    throw usageError(`judge ${judge.id} has mode: batch, which keeps its answers in the cache for the scoring pass: drop --no-cache (every answer would be paid for in the batch, thrown away, then paid again live)`);
  }
  // Batch mode main.ts could not see from the command line (a judge inherited through `extends`):
  // the run goes on in a heap-capped worker (cli/worker.ts) and this thread waits for it.
  const code = await runInCappedWorker("batch run", (line) => flags.quiet || process.stderr.write(`batch: ${line}\n`));
  if (code !== undefined) {
    await judge.close?.();
    return code;
  }
  await runBatch(rubric, samplesPath, judge, typeof cachePath === "string" ? cachePath : undefined, flags);
  return undefined;
}

/** What `writeResults` scores with. */
interface ResultsRun {
  rubric: Rubric;
  samplesPath: string;
  flags: ScoreFlags;
  judge?: EngineJudge;
  checks?: CustomChecks;
  queued?: QueuedRun;
}

/** How a run ended: its summary, the group report with --group-by, and whether Ctrl-C stopped it. */
interface RunOutcome {
  finished: RunSummary;
  groupReport?: { groups: number; passAtK: Record<string, number> };
  interrupted: boolean;
}

/**
 * Scores the samples and writes one result line per input line, in input order (a bad input
 * line keeps its place as a line without a reward). Only a finished run replaces the output; an
 * interrupted one leaves `<output>.partial` for --resume. Closes the judge.
 */
async function writeResults({ rubric, samplesPath, flags, judge, checks, queued }: ResultsRun): Promise<RunOutcome> {
  const resumed = flags.resume ? previousResults(`${flags.output}.partial`) : undefined;
  if (resumed) warnUnreadablePartial(resumed.unreadable);
  const previous = resumed?.done ?? new Map<number, Record<string, unknown>>();
  const writer = new JsonlWriter(flags.output);
  let groupReport: { groups: number; passAtK: Record<string, number> } | undefined;
  const summary = new SummaryBuilder();
  const progress = new Progress(undefined, !flags.quiet, { already: previous.size });
  // The total is the input's line count (a shard's share is not known in advance): counted
  // alongside the run, so a large file does not delay the first result.
  if (!flags.quiet && samplesPath !== "-" && !flags.shard) void countLines(samplesPath).then((n) => n !== undefined && progress.setTotal(n));
  const interrupt = interruptSignal();
  const bad = new BadLines();
  let interrupted = false;
  let failed = false;
  try {
    const shard = flags.shard ? parseShard(flags.shard) : undefined;
    // A bad input line keeps its place: it becomes a result line without a reward, so result k
    // still belongs to input line k, and the good lines around it are scored.
    const entries = jsonlEntries(samplesPath);
    const mine = shard ? rowsOf(takeShard(entries, shard)) : entries;
    // Lines carry the sample's index in the whole input, so shards merge back in order.
    const globalIndex = (position: number) => (shard ? position * shard.count + shard.index - 1 : position);
    const grouping = groupingOf(flags, rubric);
    // Grouped lines are written only once their whole group is scored, so a .partial holds none to resume from.
    if (grouping && previous.size > 0) throw new RubricateError("BAD_INPUT", "--resume cannot continue a --group-by run (its lines are written at the end): run it again without --resume");
    for (const line of [...previous.values()].sort((a, b) => (a.index as number) - (b.index as number))) {
      await writer.write(line);
      summary.add(line as unknown as ScoreResult);
    }
    // Each scored sample's position in this shard's input: bad lines, and lines a resumed run already has, are not scored.
    const positionOf = new Map<number, number>();
    const pendingBad: { position: number; bad: BadLine }[] = [];
    async function* samples(): AsyncGenerator<Sample> {
      let position = 0;
      let good = 0;
      for await (const entry of mine) {
        const here = position++;
        if (previous.has(globalIndex(here))) continue;
        if ("bad" in entry) {
          bad.add(entry.bad);
          pendingBad.push({ position: here, bad: entry.bad });
          continue;
        }
        positionOf.set(good++, here);
        // Rollout records from `eval` carry the sample their rubric saw.
        yield (isRolloutRecord(entry.value) ? sampleOfRollout(entry.value) : entry.value) as Sample;
      }
    }
    let done = previous.size;
    let queuedDone = 0;
    const writeBadBefore = async (position: number) => {
      while (pendingBad.length > 0 && pendingBad[0].position < position) {
        const { position: p, bad: b } = pendingBad.shift()!;
        const result = badLineResult(b);
        await writer.write({ index: globalIndex(p), ...result });
        summary.add(result);
        progress.update(++done, "");
      }
    };
    const members: { group: string; length?: number }[] = [];
    const input = grouping ? recordGroups(samples(), grouping, members) : samples();
    const stream = queued
      ? queuedStream(input, positionOf, queued, { signal: interrupt.signal, onProgress: (n) => progress.update((queuedDone = previous.size + n), "on the queue"), log: (line) => flags.quiet || process.stderr.write(`queue: ${line}\n`) })
      : scoreStream(rubric, input, { judge, checks, concurrency: flags.concurrency, errors: flags.errors, order: flags.order, signal: interrupt.signal });
    const held: IndexedResult[] = [];
    for await (const result of stream) {
      const local = result.index;
      const position = positionOf.get(local)!;
      positionOf.delete(local);
      await writeBadBefore(position);
      const line = outputLine(result, globalIndex(position));
      // With groups, a line is complete only once its whole group is scored: lines are held to the end.
      if (grouping) held.push(line);
      else await writer.write(line);
      summary.add(result);
      progress.update(Math.max(++done, queuedDone), judge ? () => `calls ${judge.engine.stats().usage.calls}` : "");
    }
    await writeBadBefore(Number.POSITIVE_INFINITY);
    if (grouping) {
      const grouped = attachGroups(held, members, grouping);
      for (const line of grouped.results) await writer.write(line);
      groupReport = { groups: grouped.groups.length, passAtK: grouped.passAtK };
    }
  } catch (e) {
    if (!(e instanceof RubricateError && e.code === "ABORTED")) {
      failed = true;
      throw e;
    }
    interrupted = true;
  } finally {
    interrupt.dispose();
    progress.finish();
    // Only a finished run replaces the output; otherwise results so far stay in <output>.partial
    // and a previous file is left as it was. The cache already holds every paid answer.
    if (!interrupted && !failed) {
      await writer.close();
      queued?.finished();
    }
    else {
      const kept = await writer.abandon();
      if (kept) process.stderr.write(`rubricate: results so far kept in ${kept}; ${flags.output} was not replaced\n`);
    }
    if (bad.count > 0) process.stderr.write(`${bad.describe()}rubricate: ${bad.count} input line(s) are not samples (no reward, listed above); the other lines were scored\n`);
    await judge?.close?.();
  }
  const finished = summary.finish();
  if (judge) finished.usage = { ...finished.usage, calls: judge.engine.stats().usage.calls };
  return { finished, groupReport, interrupted };
}

/** Prints the summary (and the group and fleet lines), writes --summary-json, and gives the exit code. */
function reportRun({ finished, groupReport, interrupted }: RunOutcome, judge: EngineJudge | undefined, flags: ScoreFlags): number {
  if (!flags.quiet) process.stderr.write(`${formatSummary(finished)}\n`);
  if (groupReport && !flags.quiet) {
    process.stderr.write(`groups: ${groupReport.groups}; ${Object.entries(groupReport.passAtK).map(([k, v]) => `pass@${k} ${v.toFixed(3)}`).join(", ") || "no pass@k (no scored group)"}\n`);
  }
  const fleet = judge && "stats" in judge.provider ? (judge.provider as { stats(): FleetMemberStats[] }).stats() : undefined;
  if (fleet && !flags.quiet) {
    process.stderr.write(`fleet load: ${fleet.map((m) => `${m.baseURL} ${m.succeeded} ok / ${m.failed} failed${m.healthy ? "" : " (out)"}`).join("; ")}\n`);
  }
  if (flags.summaryJson) {
    writeOutputFile(flags.summaryJson, `${JSON.stringify(groupReport ? { ...finished, groups: groupReport } : finished, null, 2)}\n`);
  }
  if (interrupted) return EXIT.interrupted;
  // Exit 3 when some sample has no reward; errors an --errors policy turned into rewards are in the summary.
  return finished.scored < finished.samples ? EXIT.partial : EXIT.ok;
}

/** A --shard value as given, once it reads as i/n (else a usage error, exit 2). */
function shardText(value: string): string {
  try {
    parseShard(value);
  } catch {
    throw new InvalidArgumentError(`expected i/n with 1 ≤ i ≤ n, e.g. 2/4, got "${value}"`);
  }
  return value;
}

function kList(value: string): number[] {
  const ks = value.split(",").map((k) => Number(k.trim()));
  if (ks.length === 0 || ks.some((k) => !Number.isInteger(k) || k < 1)) throw new InvalidArgumentError(`--pass-k takes positive integers separated by commas (got "${value}")`);
  return ks;
}

/** The group options the flags ask for, or undefined without --group-by. */
function groupingOf(flags: ScoreFlags, rubric: Rubric): GroupBy | undefined {
  if (flags.groupBy === undefined) return undefined;
  return {
    by: flags.groupBy,
    scale: flags.advantage,
    k: flags.passK,
    responseField: rubric.response_field,
    lengthField: flags.lengthField,
    ...(flags.lengthPenalty !== undefined ? { lengthPenalty: { weight: flags.lengthPenalty } } : {}),
  };
}

/** Passes samples through, noting each one's group (a missing key fails before it is scored). */
async function* recordGroups(samples: AsyncIterable<Sample>, grouping: GroupBy, into: { group: string; length?: number }[]): AsyncGenerator<Sample> {
  for await (const sample of samples) {
    into.push(groupMemberOf(sample, grouping));
    yield sample;
  }
}

/**
 * Batch mode records its jobs (batch ids, their custom_ids) beside the cache, synchronously and
 * before anything is sent, so a crash never pays twice: that needs a local SQLite file. A Redis
 * URL would be opened as a file path ("Cannot open database"); it is refused before anything opens.
 */
function batchCacheRefusal(url: string): Error {
  return usageError(`batch mode keeps its job records in a local cache file, not in Redis (${url.replace(/\/\/[^@/]*@/, "//***@")}): run the batch with --cache <file>`);
}

const isRedisPath = (cachePath: string | null | undefined): cachePath is string => typeof cachePath === "string" && isRedisUrl(cachePath);

async function runBatch(rubric: Rubric, samplesPath: string, judge: EngineJudge, cachePath: string | undefined, flags: ScoreFlags): Promise<void> {
  const store = openBatchJobStore(cachePath);
  const interrupt = interruptSignal();
  try {
    const report = await fillCacheByBatch({
      engine: judge.engine,
      provider: judge.provider,
      store,
      price: judge.config.price,
      pollMs: flags.pollMs,
      signal: interrupt.signal,
      onEvent: (e) => flags.quiet || process.stderr.write(`batch: ${e}\n`),
      pass: async () => {
        for await (const _ of scoreStream(rubric, samplesOfRows(readJsonl(samplesPath, { onBadLine: () => {} })) as AsyncIterable<Sample>, { judge, checks: flags.checks ? await loadChecks(flags.checks) : undefined, concurrency: flags.concurrency })) void _;
      },
    });
    if (!flags.quiet) {
      const u = report.usage;
      process.stderr.write(
        `batch: ${report.jobs} job(s) submitted (${report.resumedJobs} resumed), ${report.submitted} requests, ${report.succeeded} answered, ${report.failed} failed, ${report.expired} expired, ${report.rejected} rejected as invalid, ${report.found} found after a lost create, ${report.lost} lost; tokens in ${u.inputTokens} out ${u.outputTokens}; est. cost $${u.costUsd.toFixed(4)} at the batch price\n`,
      );
    }
  } finally {
    interrupt.dispose();
    store.close();
  }
}

async function dryRun(rubric: Rubric, samplesPath: string, judgeRef: JudgeChoice | undefined): Promise<number> {
  const judge = judgeRef ? loadJudgeConfig(judgeRef.ref, judgeRef.baseDir) : undefined;
  const estimate = emptyEstimate();
  for await (const sample of samplesOfRows(readJsonl(samplesPath, { onBadLine: () => {} }))) estimateSample(estimate, rubric, sample as Sample, judge);
  const lines = [
    `samples ${estimate.samples}, LLM questions ${estimate.llmQuestions}${judge ? ` (judge ${judge.id}: ${judge.mode}, ${judge.samples} vote(s))` : " (no judge)"}`,
    `calls at most ${estimate.calls}`,
    `tokens about ${estimate.inputTokens} in, ${estimate.outputTokens} out`,
    estimate.costUsd === undefined ? "cost: no price in the judge file" : `cost about $${estimate.costUsd.toFixed(4)} (before cache hits and provider prefix caching)`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  return EXIT.ok;
}

/** A result as its output line: `index` (the sample's place in the whole input) first, then the result's fields; one copy. */
function outputLine<R extends { index: number }>(result: R, index: number): R {
  const line = Object.assign({ index }, result); // `index` stays first, with the result's value…
  line.index = index; // …which is its place in this run's input
  return line;
}

/** The result line of an input line that is not a sample: no reward, the reason as its error. */
function badLineResult(bad: BadLine): ScoreResult {
  const message = `${badLineWhere(bad)}: ${bad.message}`;
  return { reward: null, passed: null, verdicts: [], errors: [{ criterion: "(input)", code: "BAD_INPUT", message }], feedback: `no reward: input line ${bad.line} is not a sample (${bad.message})` };
}

async function* rowsOf<T>(items: AsyncIterable<{ row: T }>): AsyncGenerator<T> {
  for await (const item of items) yield item.row;
}

/** The result lines an interrupted run wrote, by sample index, and its lines that are no result (each one a sample scored, and paid for, again). */
interface PreviousResults {
  done: Map<number, Record<string, unknown>>;
  unreadable: BadLines;
}

/** The result lines an interrupted run wrote, by sample index; a line that is not a result (one cut off by a crash) is counted and its sample scored again. */
function previousResults(path: string): PreviousResults {
  const done = new Map<number, Record<string, unknown>>();
  const unreadable = new BadLines(1);
  if (!existsSync(path)) return { done, unreadable };
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((text, i) => {
      if (text.trim() === "") return;
      const parsed = parseJsonLine(text);
      if ("reason" in parsed) unreadable.add({ file: path, line: i + 1, col: parsed.col, message: `invalid JSON: ${parsed.reason}` });
      else if (isRecord(parsed.value) && typeof parsed.value.index === "number") done.set(parsed.value.index, parsed.value);
      else unreadable.add({ file: path, line: i + 1, message: "not a result line (no numeric `index`)" });
    });
  return { done, unreadable };
}

/** Says that --resume pays again for the samples of the .partial lines it could not read (the last line of a crashed run is often cut short). */
function warnUnreadablePartial(unreadable: BadLines): void {
  if (unreadable.count === 0) return;
  const first = unreadable.first[0];
  process.stderr.write(`rubricate: --resume: ${unreadable.count} line(s) of ${first.file} could not be read (first ${badLineWhere(first)}: ${first.message}); the samples they held are scored again\n`);
}
