/**
 * `rubricate worker`: takes chunks from the queue and scores them with the engine a local run
 * uses (judge, shared Redis cache, sandboxed checks). BullMQ supplies the distributed parts:
 * a chunk is locked while its worker lives (the lock is renewed in the background) and handed to
 * another worker when the lock lapses (stalled-job detection), so a worker that dies mid-chunk
 * loses only the judge calls it had in flight; everything it had been answered is in the shared
 * cache, so the chunk's second run pays for nothing twice.
 */
import type { Job, JobJson, UnrecoverableError, Worker } from "bullmq";
import type * as z from "zod";
import { RubricateError, isRubricateError } from "../errors.js";
import { chooseJudge, createJudge, type EngineJudge } from "../judge/create.js";
import { judgePath } from "../judge/load.js";
import { loadRubricSync } from "../rubric/load.js";
import type { Rubric } from "../rubric/schema.js";
import { scoreStream } from "../score/score.js";
import { loadChecks } from "../env/load.js";
import type { CheckFunction } from "../checks/types.js";
import { QUEUE_NAME, bullConnection, loadBullMQ, queueConnection } from "./connection.js";
import { settleWithin } from "./coordinator.js";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { openCache } from "../engine/cache/index.js";
import { createEngine } from "../engine/engine.js";
import { cellKey, runEval, type EvalOptions } from "../env/eval.js";
import { envModels } from "../env/models.js";
import { createPolicy } from "../env/policy.js";
import type { Environment } from "../env/types.js";
import { loadEnvironmentSpec } from "../hub/resolve.js";
import { EvalChunkSchema, envFingerprint, type EvalChunk, type EvalChunkResult, type EvalSpec } from "./eval-job.js";
import { ScoreChunkSchema, checkChunkVersion, fingerprintOf, isJudgeFileRef, pathInside, workerCachePath, workerCacheUrl, type ScoreChunk, type ScoreChunkResult, type ScoreSpec } from "./score-job.js";
import { issueLines } from "../config/issues.js";

/** Options of `startQueueWorker`. */
export interface QueueWorkerOptions {
  /** `redis://host:port/db` of the queue. */
  url: string;
  /** Chunks worked on at once (default 2); each scores up to its spec's `concurrency` samples at once. */
  chunks?: number;
  /** The folder chunk paths are relative to (default: the working folder). */
  root?: string;
  /** How long a chunk's lock lives without renewal (default 30,000 ms): how soon a dead worker's chunk goes to another. */
  lockMs?: number;
  /** Told about each chunk taken, finished or failed. */
  log?: (line: string) => void;
  /** Where environments from a registry or git are installed (as `eval --envs-dir`). */
  envsDir?: string;
  /** Run environments' sandbox commands unisolated on this machine (`--unsafe-no-sandbox`): the worker's choice, never a chunk's. */
  unsafeNoSandbox?: boolean;
}

/** A running worker. */
export interface QueueWorker {
  /** Stops taking chunks and resolves once the chunks in hand are finished (`force`: at once; they go back to the queue). */
  close(force?: boolean): Promise<void>;
  /** Chunks finished so far. */
  readonly finished: number;
}

/** What a worker keeps between score chunks of one run. */
interface Loaded {
  rubric: Rubric;
  judge?: EngineJudge;
  checks?: Record<string, CheckFunction>;
  close(): Promise<void>;
}

/** What a worker keeps between eval chunks of one run: the environment, and what plays and scores it. */
interface LoadedEval {
  env: Environment;
  run: Pick<EvalOptions, "policies" | "engine" | "judge" | "models" | "unsafeNoSandbox">;
  close(): Promise<void>;
}

/**
 * Starts a worker; it runs until `close()`.
 * @example
 * const worker = await startQueueWorker({ url: "redis://10.0.0.5:6379/0", log: console.error });
 * process.on("SIGTERM", () => worker.close());
 */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
  const unsafeNoSandbox = () => options.unsafeNoSandbox === true;
  const connection = queueConnection(options.url);
  const root = options.root ?? process.cwd();
  const log = options.log ?? (() => {});
  const loaded = new Map<string, { value: Promise<{ close(): Promise<void> }>; users: number }>();
  let finished = 0;

  /**
   * What a spec names, loaded once per spec and held while a chunk uses it: a judge or an
   * environment per chunk would be waste. Only the last `KEPT_SPECS` specs are kept: each holds a
   * judge and its cache's connections, and a worker living through many runs would otherwise
   * keep every run's open until it stops.
   */
  const using = async <T extends { close(): Promise<void> }, R>(kind: string, spec: unknown, make: () => Promise<T>, use: (loaded: T) => Promise<R>): Promise<R> => {
    const key = `${kind} ${JSON.stringify(spec)}`;
    let entry = loaded.get(key);
    if (!entry) {
      const made = { value: make() as Promise<{ close(): Promise<void> }>, users: 0 };
      // A spec that failed to load is not kept: the files may be fixed before the chunk's retry.
      made.value.catch(() => loaded.get(key) === made && loaded.delete(key));
      entry = made;
    }
    loaded.delete(key);
    loaded.set(key, entry); // the most recently used last
    entry.users++;
    try {
      return await use((await entry.value) as T);
    } finally {
      entry.users--;
      for (const [k, e] of loaded) {
        if (loaded.size <= KEPT_SPECS) break;
        if (e.users > 0) continue;
        loaded.delete(k);
        void e.value.then((l) => l.close()).catch(() => undefined);
      }
    }
  };

  const scoreChunk = async (job: Job<ScoreChunk, ScoreChunkResult>): Promise<ScoreChunkResult> => {
    const { spec, rows } = job.data;
    return using("score", spec, () => loadSpec({ ...spec, cache: workerCachePath(workerCacheUrl(spec.cache, options.url), root) }, root), ({ rubric, judge, checks }) => scoreRows(job, rubric, judge, checks));
  };

  const scoreRows = async (job: Job<ScoreChunk, ScoreChunkResult>, rubric: Rubric, judge: EngineJudge | undefined, checks: Record<string, CheckFunction> | undefined): Promise<ScoreChunkResult> => {
    const { spec, rows } = job.data;
    const results: ScoreChunkResult["results"] = [];
    let reported = 0;
    for await (const { index, ...result } of scoreStream(rubric, rows.map((r) => r.sample), { judge, checks, errors: spec.errors, concurrency: spec.concurrency })) {
      results.push({ key: rows[index].key, result });
      // Progress for the coordinator's one bar; a few updates a chunk are plenty.
      if (results.length - reported >= Math.max(1, Math.ceil(rows.length / 4))) {
        reported = results.length;
        await job.updateProgress(reported);
      }
    }
    return { results };
  };

  const evalChunk = async (job: Job<EvalChunk, EvalChunkResult>): Promise<EvalChunkResult> => {
    const { spec, rows } = job.data;
    return using("eval", spec, () => loadEvalSpec({ ...spec, cache: workerCachePath(workerCacheUrl(spec.cache, options.url), root) }, root, options.envsDir, unsafeNoSandbox), async (loadedEval) => {
      // The grid runEval walks must reach every cell asked for: rollouts up to the highest index.
      const rollouts = Math.max(...rows.map((r) => r.rollout)) + 1;
      const result = await runEval(loadedEval.env, { ...loadedEval.run, rollouts, only: new Set(rows.map(cellKey)), concurrency: spec.concurrency, errors: spec.errors });
      await job.updateProgress(result.records.length);
      return { results: result.records };
    });
  };

  const handlers: Record<string, { schema: z.ZodType; run: (job: Job) => Promise<unknown> }> = { score: { schema: ScoreChunkSchema, run: scoreChunk }, eval: { schema: EvalChunkSchema, run: evalChunk } };
  let inHand = 0;
  const dispatch = async (job: Job) => {
    const handler = handlers[job.name];
    if (!handler) throw new RubricateError("BAD_INPUT", `this worker does not know chunks of kind "${job.name}" (a newer coordinator?)`);
    refuseMalformed(job, handler.schema, unreadable.get(job), UnrecoverableError);
    inHand++;
    try {
      return await handler.run(job);
    } finally {
      inHand--;
    }
  };

  const { Worker, UnrecoverableError } = await loadBullMQ();
  const unreadable = new WeakMap<Job, string>();
  /**
   * BullMQ parses a job's data before any code of ours sees it; data that is not JSON threw there,
   * was reported as a worker error (which reads as Redis trouble), and left the job locked until
   * its lock lapsed, to be taken and fail alike again. Here such a job reaches `dispatch` without
   * data, with the reason, and fails there like any other malformed chunk.
   */
  class ChunkWorker extends Worker {
    protected override createJob(json: JobJson, jobId: string): Job {
      try {
        return super.createJob(json, jobId);
      } catch (error) {
        const job = super.createJob({ ...json, data: "null" }, jobId);
        unreadable.set(job, `its data is not JSON: ${error instanceof Error ? error.message : String(error)}`);
        return job;
      }
    }
  }
  const worker: Worker = new ChunkWorker(QUEUE_NAME, dispatch, {
    connection: bullConnection(connection),
    concurrency: options.chunks ?? 2,
    lockDuration: options.lockMs ?? 30_000,
    stalledInterval: Math.max(1_000, Math.floor((options.lockMs ?? 30_000) / 2)),
    // A chunk whose worker died twice is more likely killing workers than unlucky: it fails, and the coordinator says why.
    maxStalledCount: 2,
    autorun: true,
  });
  worker.on("active", (job) => log(`chunk ${job.id} (${rowsOf(job)} samples) taken`));
  worker.on("completed", (job) => {
    finished++;
    log(`chunk ${job.id} done`);
  });
  worker.on("failed", (job, error) => log(`chunk ${job?.id ?? "?"} failed: ${isRubricateError(error) ? `${error.code}: ` : ""}${error.message}`));
  // While Redis is away every reconnect fails alike: say it once, and again when the reason changes.
  let lastError = "";
  worker.on("error", (error) => {
    // An error of the code itself (a value of the wrong type) is no outage: said as it is, never as Redis's.
    if (error instanceof TypeError || error instanceof SyntaxError || error instanceof RangeError) return log(`queue: unexpected error: ${error.message}`);
    if (error.message !== lastError) log(`queue: ${error.message} (Redis at ${connection.label}; waiting for it)`);
    lastError = error.message;
  });
  worker.on("ready", () => {
    if (lastError) log(`queue: Redis at ${connection.label} is back`);
    lastError = "";
  });
  await worker.waitUntilReady();
  log(`worker on ${connection.label} (queue "${QUEUE_NAME}", ${options.chunks ?? 2} chunk(s) at once)`);

  return {
    get finished() {
      return finished;
    },
    close: async (force = false) => {
      // BullMQ's close waits on Redis (a Redis that is down makes it wait forever), and a second
      // close only returns the first one's promise (a graceful one waits for the chunks in hand).
      // So: a forced close, or a graceful one with no chunk in hand, drops the connections once
      // the close has had 2 s; the chunks in hand go back to the queue when their locks lapse.
      const closing = worker.close(force);
      for (;;) {
        const bounded = force || inHand === 0;
        if ((await settleWithin(closing, bounded ? 2_000 : 1_000)) !== "slow") break;
        if (bounded) {
          await settleWithin(worker.disconnect(), 2_000);
          break;
        }
      }
      for (const entry of loaded.values()) await entry.value.then((l) => l.close()).catch(() => undefined);
    },
  };
}

/** A chunk's row count for the log, whatever its data holds. */
function rowsOf(job: Job): number | string {
  const rows: unknown = (job.data as { rows?: unknown } | null)?.rows;
  return Array.isArray(rows) ? rows.length : "?";
}

/**
 * Fails a chunk whose data is not what a coordinator of this version writes (pushed by hand, or
 * by another program) at once and for good, naming it: every attempt would fail alike, and the
 * worker goes on with other chunks. A chunk of another rubricate version is told as such first.
 */
function refuseMalformed(job: Job, schema: z.ZodType, unreadable: string | undefined, Unrecoverable: typeof UnrecoverableError): void {
  let reason = unreadable;
  if (reason === undefined) {
    const version: unknown = (job.data as { spec?: { version?: unknown } } | null)?.spec?.version;
    if (typeof version === "string") checkChunkVersion({ version });
    const parsed = schema.safeParse(job.data);
    if (parsed.success) return;
    reason = issueLines(parsed.error, { prefix: ["data"], max: 3 }).join("; ");
  }
  throw new Unrecoverable(`chunk ${job.id} (kind "${job.name}") is malformed; ${reason}. No coordinator of this rubricate version wrote it (another program, or pushed by hand?): it fails without retries`);
}

/** Specs (runs) a worker keeps loaded at once, besides those its chunks in hand use. */
const KEPT_SPECS = 4;

/** Loads what a spec names from the worker's folder, and checks it is what the coordinator read. */
async function loadSpec(spec: ScoreSpec, root: string): Promise<Loaded> {
  checkChunkVersion(spec);
  const rubricFile = pathInside(root, spec.rubric, "rubric");
  const rubric = loadRubricSync(rubricFile);
  const judgeFile = spec.judge ? judgeFileOf(spec.judge, root) : undefined;
  const checksFile = spec.checks ? pathInside(root, spec.checks, "checks module") : undefined;
  const fingerprint = fingerprintOf(rubric, judgeFile, checksFile);
  if (fingerprint !== spec.fingerprint) {
    throw new RubricateError("BAD_INPUT", `the rubric, judge or checks at ${spec.rubric}${spec.judge ? `, ${spec.judge}` : ""}${spec.checks ? `, ${spec.checks}` : ""}, or the servers the judge calls (base_url, OPENAI_BASE_URL, ANTHROPIC_BASE_URL), differ on this worker from the coordinator's: give every machine the same files (same folder layout) and the same endpoint variables`);
  }
  const judge = spec.judge ? createJudge(spec.judge, { cache: spec.cache, origin: spec.origin, baseDir: root }) : undefined;
  const checks = checksFile ? await loadChecks(checksFile) : undefined;
  return { rubric, judge, checks, close: async () => judge?.close?.() };
}

/** Loads an eval chunk's environment, models and judge from the worker's folder (or its registry), checked against the coordinator's. */
async function loadEvalSpec(spec: EvalSpec, root: string, envsDir: string | undefined, unsafeNoSandbox: () => boolean): Promise<LoadedEval> {
  checkChunkVersion(spec);
  const local = (value: string, what: string) => (existsSync(resolve(root, value)) ? pathInside(root, value, what) : value);
  const env = await loadEnvironmentSpec(local(spec.env, "environment"), { envsDir });
  const judgeFile = spec.judge ? judgeFileOf(spec.judge, root) : undefined;
  const modelArgs = spec.models.map((m) => local(m, "policy file"));
  if (envFingerprint(env, judgeFile, { models: modelArgs, envModels: spec.envModels }) !== spec.fingerprint) {
    throw new RubricateError("BAD_INPUT", `the environment ${spec.env}${spec.judge ? ` or the judge ${spec.judge}` : ""}, the models, or the servers they call (base_url, OPENAI_BASE_URL, ANTHROPIC_BASE_URL) differ on this worker from the coordinator's: give every machine the same files or package version, and the same endpoint variables`);
  }
  const engine = createEngine({ cache: openCache({ path: spec.cache }), limits: { maxConcurrency: 8, maxRetries: 5, timeoutMs: 120_000 } });
  const policies = modelArgs.map((m) => createPolicy(m, { defaults: env.policy }));
  // The user's judge as the coordinator named it, else the one the environment's rubric names (beside it).
  const choice = spec.judge ? { ref: spec.judge, origin: spec.origin, baseDir: root } : chooseJudge(undefined, env.rubric);
  const judge = choice ? createJudge(choice, { engine }) : undefined;
  const models = envModels(env.models ?? {}, spec.envModels);
  return { env, run: { policies, engine, judge, models, unsafeNoSandbox: unsafeNoSandbox() }, close: async () => engine.close() };
}

/** A judge reference's file: a packaged id resolves inside the installed package; a path must be inside the folder. */
function judgeFileOf(ref: string, root: string): string {
  return isJudgeFileRef(ref) ? pathInside(root, ref, "judge file") : judgePath(ref, root);
}
