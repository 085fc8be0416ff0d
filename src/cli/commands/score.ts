import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { emptyEstimate, estimateSample } from "../../score/estimate.js";
import { scoreStream } from "../../score/score.js";
import { RubricateError } from "../../errors.js";
import { createJudge, type EngineJudge } from "../../judge/create.js";
import { loadJudgeConfig } from "../../judge/load.js";
import type { ErrorPolicy } from "../../score/aggregate.js";
import { formatSummary, SummaryBuilder } from "../../score/summary.js";
import { loadRubricSync } from "../../rubric/load.js";
import type { Rubric } from "../../rubric/schema.js";
import type { Sample, ScoreResult } from "../../types.js";
import { type BadLine, BadLines, jsonlEntries } from "../../config/jsonl.js";
import { JsonlWriter, readJsonl } from "../io.js";
import { parseShard, takeShard } from "../../engine/shard.js";
import { fillCacheByBatch } from "../../engine/batch/runner.js";
import { openBatchJobStore } from "../../engine/batch/jobs.js";
import type { FleetMemberStats } from "../../providers/fleet.js";
import { Progress } from "../progress.js";
import { EXIT, interruptSignal, positiveInt, cachePathOf, errorPolicyOf } from "../run.js";

interface ScoreFlags {
  output?: string;
  judge?: string;
  cache: string | boolean;
  concurrency?: number;
  errors: ErrorPolicy;
  order: "input" | "completed";
  dryRun?: boolean;
  quiet?: boolean;
  summaryJson?: string;
  shard?: string;
  batch?: boolean;
  resume?: boolean;
  pollMs?: number;
}

/** `rubricate score <rubric> <samples.jsonl|-> [-o results.jsonl] [--judge j.yaml]`. */
export function register(program: Command): void {
  program
    .command("score")
    .description("Score samples (JSONL, or - for stdin) with a rubric; one JSON result line per sample, in input order")
    .argument("<rubric>", "rubric YAML file")
    .argument("<samples>", "samples JSONL file, or - to read stdin")
    .option("-o, --output <file>", "write results JSONL here (default: stdout)")
    .option("-j, --judge <judge>", "judge file or packaged judge id (default: the rubric's `judge`)")
    .option("--cache <path>", "cache database", ".rubricate/cache.db")
    .option("--no-cache", "do not read or write any cache (every call is paid)")
    .option("-c, --concurrency <n>", "samples scored at once (the judge file limits calls)", positiveInt)
    .option("--errors <policy>", "a criterion error makes the reward: null (default) | zero | skip-criterion", "null")
    .option("--order <order>", "input (default) or completed", "input")
    .option("--dry-run", "print the number of calls, tokens and cost a run would need, and call nothing")
    .option("-q, --quiet", "no progress and no summary on stderr")
    .option("--summary-json <file>", "also write the summary as JSON")
    .option("--batch", "answer judge calls through the provider's batch API (cheaper, slower); same cache, same results")
    .option("--resume", "with --batch: collect jobs a crashed run submitted (always done; kept for clarity)")
    .option("--poll-ms <ms>", "with --batch: first poll interval", positiveInt)
    .option("--shard <i/n>", "score only shard i of n (every n-th sample); join the outputs with `rubricate merge`")
    .action(async (rubricPath: string, samplesPath: string, flags: ScoreFlags) => {
      process.exitCode = await runScore(rubricPath, samplesPath, flags);
    });
}

async function runScore(rubricPath: string, samplesPath: string, flags: ScoreFlags): Promise<number> {
  errorPolicyOf(flags.errors);
  const rubric = loadRubricSync(rubricPath);
  const judgeRef = flags.judge ?? rubric.judge;
  // An explicit --judge is always used: samples may carry questions of their own (per-sample criteria).
  const needsJudge = rubric.criteria.some((c) => c.question) || flags.judge !== undefined;
  if (flags.dryRun) return dryRun(rubric, samplesPath, judgeRef && needsJudge ? judgeRef : undefined);
  const cachePath = cachePathOf(flags.cache);
  const judge: EngineJudge | undefined = judgeRef && needsJudge ? createJudge(judgeRef, { cache: cachePath, origin: flags.judge ? "user" : "rubric" }) : undefined;
  if (judge && (flags.batch || judge.config.mode === "batch")) {
    if (samplesPath === "-") throw new RubricateError("BAD_INPUT", "--batch reads the samples several times: give a file, not stdin");
    await runBatch(rubric, samplesPath, judge, typeof cachePath === "string" ? cachePath : undefined, flags);
  }
  const writer = new JsonlWriter(flags.output);
  const summary = new SummaryBuilder();
  const progress = new Progress(undefined, !flags.quiet);
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
    const positionOf = new Map<number, number>();
    const pendingBad: { position: number; bad: BadLine }[] = [];
    async function* samples(): AsyncGenerator<Sample> {
      let position = 0;
      let good = 0;
      for await (const entry of mine) {
        if ("bad" in entry) {
          bad.add(entry.bad);
          pendingBad.push({ position: position++, bad: entry.bad });
          continue;
        }
        positionOf.set(good++, position++);
        yield entry.value as Sample;
      }
    }
    const globalIndex = (position: number) => (shard ? position * shard.count + shard.index - 1 : position);
    let done = 0;
    const writeBadBefore = async (position: number) => {
      while (pendingBad.length > 0 && pendingBad[0].position < position) {
        const { position: p, bad: b } = pendingBad.shift()!;
        const result = badLineResult(b);
        await writer.write({ index: globalIndex(p), ...result });
        summary.add(result);
        progress.update(++done, "");
      }
    };
    const stream = scoreStream(rubric, samples(), { judge, concurrency: flags.concurrency, errors: flags.errors, order: flags.order, signal: interrupt.signal });
    for await (const result of stream) {
      const { index: local, ...line } = result;
      const position = positionOf.get(local)!;
      positionOf.delete(local);
      await writeBadBefore(position);
      // Lines carry the sample's index in the whole input, so shards merge back in order.
      await writer.write({ index: globalIndex(position), ...line });
      summary.add(result);
      progress.update(++done, judge ? `calls ${judge.engine.stats().usage.calls}` : "");
    }
    await writeBadBefore(Number.POSITIVE_INFINITY);
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
    if (!interrupted && !failed) await writer.close();
    else {
      const kept = await writer.abandon();
      if (kept) process.stderr.write(`rubricate: results so far kept in ${kept}; ${flags.output} was not replaced\n`);
    }
    if (bad.count > 0) process.stderr.write(`${bad.describe()}rubricate: ${bad.count} input line(s) are not samples (no reward, listed above); the other lines were scored\n`);
    await judge?.close?.();
  }
  const finished = summary.finish();
  if (judge) finished.usage = { ...finished.usage, calls: judge.engine.stats().usage.calls };
  if (!flags.quiet) process.stderr.write(`${formatSummary(finished)}\n`);
  const fleet = judge && "stats" in judge.provider ? (judge.provider as { stats(): FleetMemberStats[] }).stats() : undefined;
  if (fleet && !flags.quiet) {
    process.stderr.write(`fleet load: ${fleet.map((m) => `${m.baseURL} ${m.succeeded} ok / ${m.failed} failed${m.healthy ? "" : " (out)"}`).join("; ")}\n`);
  }
  if (flags.summaryJson) {
    writeFileSync(flags.summaryJson, `${JSON.stringify(finished, null, 2)}\n`);
  }
  if (interrupted) return EXIT.interrupted;
  // Exit 3 when some sample has no reward; errors an --errors policy turned into rewards are in the summary.
  return finished.scored < finished.samples ? EXIT.partial : EXIT.ok;
}

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
        for await (const _ of scoreStream(rubric, readJsonl(samplesPath, { onBadLine: () => {} }) as AsyncIterable<Sample>, { judge, concurrency: flags.concurrency })) void _;
      },
    });
    if (!flags.quiet) {
      const u = report.usage;
      process.stderr.write(
        `batch: ${report.jobs} job(s) submitted (${report.resumedJobs} resumed), ${report.submitted} requests, ${report.succeeded} answered, ${report.failed} failed, ${report.expired} expired; tokens in ${u.inputTokens} out ${u.outputTokens}; est. cost $${u.costUsd.toFixed(4)} at the batch price\n`,
      );
    }
  } finally {
    interrupt.dispose();
    store.close();
  }
}

async function dryRun(rubric: Rubric, samplesPath: string, judgeRef: string | undefined): Promise<number> {
  const judge = judgeRef ? loadJudgeConfig(judgeRef) : undefined;
  const estimate = emptyEstimate();
  for await (const sample of readJsonl(samplesPath, { onBadLine: () => {} })) estimateSample(estimate, rubric, sample as Sample, judge);
  const lines = [
    `samples ${estimate.samples}, LLM questions ${estimate.llmQuestions}${judge ? ` (judge ${judge.id}: ${judge.mode}, ${judge.samples} vote(s))` : " (no judge)"}`,
    `calls at most ${estimate.calls}`,
    `tokens about ${estimate.inputTokens} in, ${estimate.outputTokens} out`,
    estimate.costUsd === undefined ? "cost: no price in the judge file" : `cost about $${estimate.costUsd.toFixed(4)} (before cache hits and provider prefix caching)`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  return EXIT.ok;
}

/** The result line of an input line that is not a sample: no reward, the reason as its error. */
function badLineResult(bad: BadLine): ScoreResult {
  const message = `${bad.file}:${bad.line}: ${bad.message}`;
  return { reward: null, passed: null, verdicts: [], errors: [{ criterion: "(input)", code: "BAD_INPUT", message }], feedback: `no reward: input line ${bad.line} is not a sample (${bad.message})` };
}

async function* rowsOf<T>(items: AsyncIterable<{ row: T }>): AsyncGenerator<T> {
  for await (const item of items) yield item.row;
}
