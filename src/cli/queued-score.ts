/**
 * `score --queue`: the command as a coordinator. The queue does the work (src/queue/); this file
 * turns the command's flags into a run and remembers, beside the output, which run its `.partial`
 * belongs to, so the same command started again resumes instead of starting over.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { judgePath } from "../judge/load.js";
import type { JudgeChoice } from "../judge/create.js";
import type { Rubric } from "../rubric/schema.js";
import type { ErrorPolicy, Sample, ScoreResult } from "../types.js";
import { DEFAULT_CACHE_PATH } from "../engine/cache/sqlite.js";
import { scoreQueued } from "../queue/coordinator.js";
import { chunkCacheUrl, fingerprintOf, isJudgeFileRef, portablePath, runKeyOf, type ScoreSpec } from "../queue/score-job.js";
import { usageError } from "./run.js";
import { packageVersion } from "../config/load.js";

/** Input lines per chunk: measured in BENCHMARKS.md ("Scale past one machine"). */
export const DEFAULT_CHUNK_SIZE = 50;

/** A queued run, ready to stream. */
export interface QueuedRun {
  url: string;
  spec: ScoreSpec;
  runKey: string;
  chunkSize: number;
  /** True when the output's `.partial` belongs to this very run: it is resumed. */
  resumes: boolean;
  /** Start over (`distill --no-resume`): chunks an earlier run of it left finished on the queue are done again, not collected. */
  fresh: boolean;
  /** Called once the output is complete: forgets the run beside the output. */
  finished(): void;
}

interface QueueFlags {
  queue?: string;
  /** true: resume, and refuse a `.partial` of another run; false: start over; unset: resume the same run. */
  resume?: boolean;
  chunkSize?: number;
  output?: string;
  checks?: string;
  errors: ErrorPolicy;
  concurrency?: number;
  batch?: boolean;
  shard?: string;
  unsafeNoSandbox?: boolean;
}

/**
 * Refuses what a queued run cannot take (exit 2, one line), before the rubric is loaded or the
 * queue reached: `score` checks it with its other flags.
 */
export function checkQueueFlags(flags: QueueFlags, samplesPath: string): void {
  if (!flags.output || flags.output === "-") throw usageError("--queue writes results to a file it can resume: give -o <file>");
  if (samplesPath === "-") throw usageError("--queue reads the samples again when resumed: give a file, not stdin");
  if (flags.batch) throw usageError("--queue and --batch do not combine: fill the cache with `score --batch` first, then queue the run (it finds every answer cached)");
  if (flags.shard) throw usageError("--queue shares the work out itself: drop --shard");
  if (flags.unsafeNoSandbox) throw usageError("--unsafe-no-sandbox is a worker's choice: start `rubricate worker --unsafe-no-sandbox` instead");
}

/** Works out a queued run's spec and key (its flags passed `checkQueueFlags`). */
export function queuedRun(rubric: Rubric, rubricPath: string, samplesPath: string, judge: JudgeChoice | undefined, cache: string | null | undefined, flags: QueueFlags): QueuedRun {
  const url = flags.queue!;
  // The judge file as this folder resolves it (a rubric's `judge:` beside the rubric); chunks name it
  // relative to the folder, or by its packaged id.
  const judgeFile = judge ? judgePath(judge.ref, judge.baseDir ?? process.cwd()) : undefined;
  const packaged = judge !== undefined && !isJudgeFileRef(judge.ref);
  const spec: ScoreSpec = {
    rubric: portablePath(rubricPath),
    ...(judge && judgeFile ? { judge: packaged ? judge.ref : portablePath(judgeFile), origin: judge.origin } : { origin: "rubric" as const }),
    ...(flags.checks ? { checks: portablePath(flags.checks) } : {}),
    // Every worker must share one cache for "nothing paid twice": by default the queue's own database.
    // (Without the queue's password: chunks live in Redis, and workers have it in their own --queue.)
    cache: chunkCacheUrl(cache === null ? null : cache === undefined || cache === DEFAULT_CACHE_PATH ? url : cache, url),
    errors: flags.errors,
    ...(flags.concurrency ? { concurrency: flags.concurrency } : {}),
    fingerprint: fingerprintOf(rubric, judgeFile, flags.checks ? resolve(flags.checks) : undefined),
    version: packageVersion(),
  };
  const chunkSize = flags.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const input = statSync(samplesPath);
  const runKey = runKeyOf(spec, `${resolve(samplesPath)}|${input.size}|${input.mtimeMs}`, chunkSize);
  const marker = `${flags.output}.queue`;
  const previousRun = existsSync(`${flags.output}.partial`) && existsSync(marker) ? readFileSync(marker, "utf8").trim() : undefined;
  const resumes = flags.resume !== false && previousRun === runKey;
  // The marker says whose the .partial is: results of another rubric, judge, input or chunk size
  // must not be carried into this run's output by an explicit --resume.
  if (flags.resume && previousRun !== undefined && !resumes) {
    throw usageError(`--resume: ${flags.output}.partial holds the results of another run (the rubric, judge, checks, input, options or chunk size differ): drop --resume to start over`);
  }
  // Beside the output, whose folder the results writer makes later: made here first, as a local run would.
  mkdirSync(dirname(resolve(marker)), { recursive: true });
  writeFileSync(marker, `${runKey}\n`);
  return { url, spec, runKey, chunkSize, resumes, fresh: flags.resume === false, finished: () => rmSync(marker, { force: true }) };
}

/**
 * The results of `samples` through the queue, as `scoreStream` would give them: `index` counts
 * the samples handed in, and `positionOf` (filled by the caller's generator before each sample is
 * handed over) gives each one's input line, which decides its chunk.
 */
export async function* queuedStream(
  samples: AsyncIterable<Sample>,
  positionOf: ReadonlyMap<number, number>,
  run: QueuedRun,
  options: { signal?: AbortSignal; onProgress?: (done: number) => void; log?: (line: string) => void },
): AsyncGenerator<ScoreResult & { index: number }> {
  const indexOfKey = new Map<number, number>();
  async function* rows() {
    let index = 0;
    for await (const sample of samples) {
      const key = positionOf.get(index)!;
      indexOfKey.set(key, index++);
      yield { key, sample };
    }
  }
  const outageMs = Number(process.env.RUBRICATE_QUEUE_OUTAGE_MS) || undefined;
  for await (const { key, result } of scoreQueued(rows(), { url: run.url, spec: run.spec, runKey: run.runKey, chunkSize: run.chunkSize, fresh: run.fresh, outageMs, ...options })) {
    const index = indexOfKey.get(key)!;
    indexOfKey.delete(key);
    yield { ...result, index };
  }
}
