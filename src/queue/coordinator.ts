/**
 * The coordinator side of a queued run (`score`, `eval`, `distill --queue`): cuts the work into chunks, keeps a window of them on
 * the queue, and hands results back in input order as chunks complete.
 *
 * What makes it safe to kill and restart:
 * - Chunk ids are derived from the run (what is scored, the input file's identity, the chunk size)
 *   and the chunk's number, so a restarted coordinator re-adds the same ids: BullMQ keeps the
 *   existing job (finished, running or waiting) instead of queueing a second one.
 * - A chunk's job is removed only after its rows were handed on, so a crash in between costs a
 *   re-run of that chunk from the shared cache (no paid call), never a lost row.
 * - Only `window` chunks are on the queue at once, so Redis holds a bounded share of the input.
 * - Redis that stops answering for `outageMs` ends the run with a QUEUE error naming the cause;
 *   a chunk that vanished (Redis restarted without persistence) is queued again.
 * - A run stopped by its signal (the first Ctrl-C) takes off the queue the chunks it put there
 *   that no worker has started: nobody pays for results no one will collect. Chunks running
 *   finish into the shared cache and stay on the queue, so the same command resumes paying for
 *   nothing twice.
 */
import type { Queue, QueueEvents } from "bullmq";
import { RubricateError } from "../errors.js";
import type { Sample, ScoreResult } from "../types.js";
import { QUEUE_NAME, loadBullMQ, queueConnection, redisClient } from "./connection.js";
import { chunkId, type ScoreChunk, type ScoreChunkResult, type ScoreSpec } from "./score-job.js";

/** Options of `runChunks`: the queue, the run, and how to watch it. */
export interface ChunkRunOptions<Spec> {
  /** `redis://host:port/db` of the queue. */
  url: string;
  /** The job name workers dispatch on ("score", "eval"). */
  kind: string;
  /** The run-wide part every chunk carries. */
  spec: Spec;
  /** Fingerprint of what the run uses, for chunk ids. */
  fingerprint: string;
  /** From `runKeyOf`: the same for a restarted coordinator of the same run. */
  runKey: string;
  /** Chunks on the queue at once (default 64). */
  window?: number;
  /** Stops the run; the chunks of its window no worker has started are then taken off the queue. */
  signal?: AbortSignal;
  /** Start over: a chunk an earlier run of the same command left finished on the queue is done again (from the cache), not collected. */
  fresh?: boolean;
  /** Rows finished so far, counting those of chunks still running (as their workers report). */
  onProgress?: (done: number) => void;
  log?: (line: string) => void;
  /** How long Redis may not answer before the run fails (default 120,000 ms). */
  outageMs?: number;
  /** How often the window is checked without an event (default 2,000 ms; events usually come first). */
  sweepMs?: number;
}

/** Options of `scoreQueued`. */
export interface QueuedScoreOptions extends Omit<ChunkRunOptions<ScoreSpec>, "kind" | "fingerprint"> {
  /** Input lines per chunk. */
  chunkSize: number;
}

/** One chunk of a run: its number (which decides its id), and its rows. */
export interface Chunk<Row> {
  n: number;
  rows: Row[];
}

interface Pending<Row> extends Chunk<Row> {
  id: string;
}

/**
 * Scores `rows` (in key order) through the queue; yields each row's result in the same order.
 * @example
 * for await (const { key, result } of scoreQueued(rows, { url, spec, runKey, chunkSize: 64 })) write(key, result);
 */
export async function* scoreQueued(rows: AsyncIterable<{ key: number; sample: Sample }>, options: QueuedScoreOptions): AsyncGenerator<{ key: number; result: ScoreResult }> {
  const chunks = chunksBy(rows, (row) => Math.floor(row.key / options.chunkSize));
  for await (const { chunk, results } of runChunks<ScoreSpec, ScoreChunk["rows"][number], ScoreChunkResult["results"][number]>(chunks, { ...options, kind: "score", fingerprint: options.spec.fingerprint })) {
    const byKey = new Map(results.map((r) => [r.key, r.result]));
    for (const { key } of chunk.rows) {
      const found = byKey.get(key);
      if (!found) throw new RubricateError("QUEUE", `chunk ${chunk.n + 1} came back without a result for input line ${key + 1} (a worker of another version?)`);
      yield { key, result: found };
    }
  }
}

/**
 * Runs chunks through the queue: keeps a window of them queued, and yields each chunk's results
 * in chunk order as they complete. A chunk's job is removed only once the caller has taken its
 * results (asked for the next), so a crash in between costs a re-run from the cache, never a row.
 */
export async function* runChunks<Spec, Row, Out>(chunks: AsyncIterable<Chunk<Row>>, options: ChunkRunOptions<Spec>): AsyncGenerator<{ chunk: Chunk<Row>; results: Out[] }> {
  type Job = { spec: Spec; rows: Row[] };
  type Done = { results: Out[] };
  const connection = queueConnection(options.url);
  const { Queue, QueueEvents } = await loadBullMQ();
  // Our own ioredis clients (one each: QueueEvents blocks on its connection), so that they can be
  // dropped for certain at the end: BullMQ's own disconnect waits for a server that may never answer.
  const clients = [await redisClient(connection), await redisClient(connection)];
  const queue: Queue<Job, Done> = new Queue(QUEUE_NAME, { connection: clients[0] });
  const events: QueueEvents = new QueueEvents(QUEUE_NAME, { connection: clients[1] });
  const quiet = (error: Error) => void error; // outages are handled by the guard below
  queue.on("error", quiet);
  events.on("error", quiet);
  const guard = new OutageGuard(connection.label, options.outageMs ?? 120_000);
  const log = options.log ?? (() => {});
  const progress = new Map<string, number>();
  let wake: (() => void) | undefined;
  const wakeUp = () => wake?.();
  events.on("completed", wakeUp);
  events.on("failed", wakeUp);
  events.on("progress", ({ jobId, data }) => {
    if (typeof data === "number") progress.set(jobId, data);
    report();
  });
  let written = 0;
  const window: Pending<Row>[] = [];
  const report = () => options.onProgress?.(written + window.reduce((n, p) => n + Math.min(progress.get(p.id) ?? 0, p.rows.length), 0));

  const add = async (chunk: Pending<Row>) => {
    // A chunk an earlier run of this command gave up on (its attempts spent) is kept a week under
    // the same id, and BullMQ's add keeps an existing job: without this, the run could never
    // resume, even once the workers are fixed. This run tries it afresh.
    const stale = await guard.call("read a chunk's state", () => queue.getJob(chunk.id));
    const state = stale ? await guard.call("read a chunk's state", () => stale.getState()) : undefined;
    if (stale && state === "failed") {
      log(`chunk ${chunk.n + 1} failed in an earlier run (${stale.failedReason}): tried again`);
      await guard.call("requeue a failed chunk", () => stale.remove());
    } else if (stale && state === "completed" && options.fresh) {
      // Its results are an earlier run's, which this one was asked not to resume.
      await guard.call("requeue a finished chunk", () => stale.remove());
    }
    return guard.call("queue a chunk", () =>
      queue.add(options.kind as never, { spec: options.spec, rows: chunk.rows } as never, {
        jobId: chunk.id,
        attempts: 3,
        backoff: { type: "exponential", delay: 1_000 },
        // Kept a week in case nobody collects them (a coordinator that never came back).
        removeOnComplete: { age: 7 * 24 * 3600 },
        removeOnFail: { age: 7 * 24 * 3600 },
      }),
    );
  };

  try {
    await guard.call("connect", () => events.waitUntilReady());
    const source = chunks[Symbol.asyncIterator]();
    let more = true;
    const fill = async () => {
      while (more && window.length < (options.window ?? 64) && !options.signal?.aborted) {
        const next = await source.next();
        if (next.done) {
          more = false;
          break;
        }
        const pending = { ...next.value, id: chunkId(options.kind, options.fingerprint, options.runKey, next.value.n) };
        await add(pending);
        window.push(pending);
      }
    };
    await fill();
    while (window.length > 0) {
      const head = window[0];
      const { results } = await waitFor(head);
      yield { chunk: head, results };
      written += head.rows.length;
      // Handed on: only now is the job's copy of the results no longer needed.
      await guard.call("remove a finished chunk", () => queue.remove(head.id)).catch(() => undefined);
      progress.delete(head.id);
      window.shift();
      report();
      await fill();
    }
  } finally {
    events.off("completed", wakeUp);
    events.off("failed", wakeUp);
    if (options.signal?.aborted) await withdraw(window);
    await closeOrDrop([queue, events], clients);
  }

  /**
   * The run was stopped: takes off the queue the chunks no worker has started (BullMQ removes no
   * job a worker holds locked, so one taken meanwhile runs on), and says what stays. Bounded: a
   * Redis that does not answer leaves them there, as a second Ctrl-C does.
   */
  async function withdraw(pending: Pending<Row>[]): Promise<void> {
    const fateOf = async (chunk: Pending<Row>) => {
      const state = await queue.getJobState(chunk.id);
      if (!UNSTARTED.has(state)) return state;
      return (await queue.remove(chunk.id)) === 1 ? "removed" : "active";
    };
    const outcome = await settleWithin(Promise.all(pending.map(fateOf)), WITHDRAW_MS);
    if (outcome === "slow" || "error" in outcome) {
      log(`stopped, but Redis did not let its chunks be taken off the queue${outcome === "slow" ? "" : ` (${outcome.error.message})`}: workers may still run them (their answers go to the cache)`);
      return;
    }
    const count = (fate: string) => outcome.value.filter((f) => f === fate).length;
    log(`stopped: ${count("removed")} chunk(s) no worker had started taken off the queue; ${count("active")} running chunk(s) finish on the workers, their answers in the shared cache: run the same command again to resume`);
  }

  async function waitFor(chunk: Pending<Row>): Promise<Done> {
    for (;;) {
      options.signal?.throwIfAborted();
      const job = await guard.call("read a chunk's state", () => queue.getJob(chunk.id));
      if (!job) {
        log(`chunk ${chunk.n + 1} is no longer on the queue (was Redis restarted without persistence?): queued again`);
        await add(chunk);
      } else if (job.finishedOn !== undefined && job.returnvalue) {
        return job.returnvalue;
      } else if ((await guard.call("read a chunk's state", () => job.getState())) === "failed") {
        throw new RubricateError("QUEUE", `chunk ${chunk.n + 1} (${chunk.rows.length} rows) failed on the workers after ${job.attemptsMade} attempt(s): ${job.failedReason}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, options.sweepMs ?? 2_000);
        const onAbort = () => done();
        options.signal?.addEventListener("abort", onAbort, { once: true });
        function done() {
          clearTimeout(timer);
          options.signal?.removeEventListener("abort", onAbort);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
    }
  }
}

/** Job states of a chunk no worker has started. */
const UNSTARTED = new Set(["waiting", "delayed", "prioritized", "waiting-children"]);

/** How long a stopped run tries to take its chunks off the queue. */
const WITHDRAW_MS = 10_000;

/** The promise's value or error, or "slow" when it has not settled within `ms`. */
export function settleWithin<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | { error: Error } | "slow"> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("slow"), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve({ value })),
      (error: Error) => (clearTimeout(timer), resolve({ error })),
    );
  });
}

/**
 * Closes the queue's connections; when Redis does not answer, a close would wait for it forever
 * (and ioredis would go on reconnecting), so after 2 s the connections are dropped instead.
 */
export async function closeOrDrop(users: { close(): Promise<void> }[], clients: { disconnect(): void }[]): Promise<void> {
  await settleWithin(Promise.all(users.map((u) => u.close())), 2_000);
  for (const client of clients) client.disconnect();
}

/** Groups consecutive rows with the same chunk number into chunks. */
export async function* chunksBy<Row>(rows: AsyncIterable<Row>, chunkOf: (row: Row) => number): AsyncGenerator<Chunk<Row>> {
  let current: Chunk<Row> | undefined;
  for await (const row of rows) {
    const n = chunkOf(row);
    if (current && current.n !== n) {
      yield current;
      current = undefined;
    }
    current ??= { n, rows: [] };
    current.rows.push(row);
  }
  if (current) yield current;
}

/**
 * Bounds how long queue commands may hang. ioredis queues commands while it reconnects (BullMQ
 * needs that), so a Redis that is down or frozen makes every call wait forever; here each call
 * is retried until Redis has not answered anything for `outageMs`, then the run fails clearly.
 */
export class OutageGuard {
  // Silence is measured on the monotonic clock: a wall clock set back would stretch it by the jump.
  private lastAnswer = performance.now();
  constructor(
    private readonly label: string,
    private readonly outageMs: number,
  ) {}

  async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    for (;;) {
      const outcome = await settleWithin(run(), 5_000);
      if (outcome !== "slow" && !("error" in outcome)) {
        this.lastAnswer = performance.now();
        return outcome.value;
      }
      const silent = performance.now() - this.lastAnswer;
      if (silent >= this.outageMs) {
        const cause = outcome !== "slow" ? `: ${outcome.error.message}` : " (no answer)";
        throw new RubricateError("QUEUE", `Redis at ${this.label} has not answered for ${Math.round(silent / 1000)} s while trying to ${what}${cause}; chunks already finished are kept there and in the output's .partial file: run the same command again to resume`);
      }
      if (outcome !== "slow") await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}
