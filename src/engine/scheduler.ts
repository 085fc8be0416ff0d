import { RubricateError, toRubricateError } from "../errors.js";
import { AbortCallbacks, abortedError, finishesInFlight } from "./abort.js";
import { TokenBucket } from "./bucket.js";
import { systemClock, type Clock } from "./clock.js";
import { Fifo } from "./queue.js";
import type { SchedulerLimits, SchedulerStats } from "./types.js";

/** Knobs beyond the limits, mostly for tests. */
export interface SchedulerOptions {
  clock?: Clock;
  /** In [0, 1); drives the backoff jitter. */
  random?: () => number;
  /** Successes in a row before concurrency grows by one; default: the current concurrency (one window, as in TCP). */
  growAfter?: number;
}

/** Per-call options of `Scheduler.run`. */
export interface RunOptions {
  /** Tokens charged to the `tpm` bucket before each attempt (input + expected output). */
  estimatedTokens?: number;
  signal?: AbortSignal;
}

type State = "queued" | "running" | "backoff" | "done";

interface Job {
  fn: (signal: AbortSignal) => Promise<unknown>;
  cost: number;
  signal?: AbortSignal;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  state: State;
  attempt: number;
  controller?: AbortController;
  timeoutTimer?: unknown;
  backoffTimer?: unknown;
  offAbort?: () => void;
}

/** Backoff base when the limits give none: the first retry waits up to this. */
export const DEFAULT_BACKOFF_BASE_MS = 500;
/** Backoff cap when the limits give none. */
export const DEFAULT_BACKOFF_MAX_MS = 30_000;
/** The longest `retry-after` waited for when the limits give none (5 minutes). */
export const DEFAULT_MAX_RETRY_WAIT_MS = 300_000;

const seconds = (ms: number) => (ms >= 3_600_000 ? `${(ms / 3_600_000).toFixed(1)} h` : `${Math.round(ms / 1000)} s`);

/**
 * Runs provider calls under one judge's limits: adaptive concurrency (halved on `RATE_LIMITED`,
 * +1 after a window of successes, AIMD), token buckets for rpm/tpm, retries of retryable
 * `RubricateError`s with full-jitter exponential backoff that waits at least `retryAfterMs`,
 * a per-attempt timeout, and caller aborts that leave no timer or listener behind.
 *
 * Not p-limit: p-limit cannot drop one queued task when its caller aborts (only `clearQueue()`
 * for all), and gating each start on rate buckets and a retry-after pause needs the dispatch
 * loop anyway; with those, the limit itself is a counter.
 * @example
 * const s = new Scheduler({ maxConcurrency: 8, rpm: 500, maxRetries: 5, timeoutMs: 60_000 });
 * const r = await s.run((signal) => provider.complete(req, { signal }), { estimatedTokens: 900 });
 */
export class Scheduler {
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly fresh = new Fifo<Job>();
  private readonly retries = new Fifo<Job>();
  private readonly rpm?: TokenBucket;
  private readonly tpm?: TokenBucket;
  private current: number;
  private inFlight = 0;
  private queued = 0;
  private backingOff = 0;
  private streak = 0;
  /** Bumped on each decrease: a 429 from an attempt started before it does not halve again. */
  private epoch = 0;
  private pausedUntil = 0;
  private pumpTimer: unknown;
  private readonly abortCallbacks = new AbortCallbacks();
  private counts = { started: 0, succeeded: 0, failed: 0, retries: 0, rateLimited: 0 };

  constructor(
    readonly limits: SchedulerLimits,
    private readonly options: SchedulerOptions = {},
  ) {
    if (!(limits.maxConcurrency >= 1)) throw new RubricateError("BAD_INPUT", "maxConcurrency must be at least 1");
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.current = Math.floor(limits.maxConcurrency);
    const now = () => this.clock.now();
    if (limits.rpm) this.rpm = new TokenBucket(limits.rpm, now);
    if (limits.tpm) this.tpm = new TokenBucket(limits.tpm, now);
  }

  /** Runs `fn` when limits allow, retrying as configured; `fn` must honour the signal it gets. */
  run<T>(fn: (signal: AbortSignal) => Promise<T>, options: RunOptions = {}): Promise<T> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortedError(signal));
    return new Promise<T>((resolve, reject) => {
      const job: Job = { fn, cost: Math.max(0, options.estimatedTokens ?? 0), signal, resolve: resolve as (v: unknown) => void, reject, state: "queued", attempt: 0 };
      if (signal) job.offAbort = this.abortCallbacks.add(signal, () => this.abort(job));
      this.fresh.push(job);
      this.queued++;
      this.pump();
    });
  }

  /** Corrects the tpm bucket once real usage is known (refunds an over-estimate, charges an under-estimate). */
  recordUsage(estimatedTokens: number, actualTokens: number): void {
    if (!this.tpm) return;
    this.tpm.adjust(estimatedTokens - actualTokens);
    this.pump(); // a refund may let the head of the queue start sooner than its timer says
  }

  /** Counters and the current adaptive limit. */
  get stats(): SchedulerStats {
    return { ...this.counts, inFlight: this.inFlight, queued: this.queued + this.backingOff, currentConcurrency: this.current };
  }

  /** The next job to start: retries first, then fresh calls. */
  private next(): Job | undefined {
    return Scheduler.head(this.retries) ?? Scheduler.head(this.fresh);
  }

  /** A queue's first job still queued (jobs aborted while queued are dropped here). */
  private static head(q: Fifo<Job>): Job | undefined {
    while (q.length > 0 && q.peek()!.state !== "queued") q.shift();
    return q.length > 0 ? q.peek() : undefined;
  }

  private pump(): void {
    while (this.inFlight < this.current) {
      const job = this.next();
      if (!job) break;
      const wait = this.waitMs(job.cost);
      if (wait > 0) return this.armPump(wait);
      (this.retries.peek() === job ? this.retries : this.fresh).shift();
      this.queued--;
      this.rpm?.take(1);
      this.tpm?.take(job.cost);
      this.start(job);
    }
    if (this.queued === 0) this.disarmPump();
  }

  private waitMs(cost: number): number {
    const paused = this.pausedUntil - this.clock.now();
    if (paused > 0) return paused;
    return Math.max(this.rpm?.waitMs(1) ?? 0, this.tpm?.waitMs(cost) ?? 0);
  }

  private armPump(ms: number): void {
    this.disarmPump();
    this.pumpTimer = this.clock.setTimeout(() => {
      this.pumpTimer = undefined;
      this.pump();
    }, ms);
  }

  private disarmPump(): void {
    if (this.pumpTimer !== undefined) this.clock.clearTimeout(this.pumpTimer);
    this.pumpTimer = undefined;
  }

  private start(job: Job): void {
    job.state = "running";
    if (job.attempt++ === 0) this.counts.started++;
    this.inFlight++;
    const ctrl = new AbortController();
    job.controller = ctrl;
    const epoch = this.epoch;
    const { timeoutMs } = this.limits;
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      job.timeoutTimer = this.clock.setTimeout(() => {
        job.timeoutTimer = undefined;
        const err = new RubricateError("PROVIDER_TIMEOUT", `no answer within ${timeoutMs} ms`, { retryable: true });
        ctrl.abort(err);
        this.failed(job, err, epoch);
      }, timeoutMs);
    }
    // The outcome is decided by whichever comes first (settle, timeout, abort); the slot is
    // released only when fn settles, so the limit counts real in-flight requests.
    const current = () => job.controller === ctrl && job.state === "running";
    let promise: Promise<unknown>;
    try {
      promise = Promise.resolve(job.fn(ctrl.signal));
    } catch (e) {
      promise = Promise.reject(e);
    }
    promise.then(
      (value) => {
        if (current()) this.succeeded(job, value);
        this.release();
      },
      (e: unknown) => {
        if (current()) this.failed(job, toRubricateError(e), epoch);
        this.release();
      },
    );
  }

  private release(): void {
    this.inFlight--;
    this.pump();
  }

  private succeeded(job: Job, value: unknown): void {
    this.streak++;
    const growAfter = this.options.growAfter ?? this.current;
    if (this.current < this.limits.maxConcurrency && this.streak >= growAfter) {
      this.current++;
      this.streak = 0;
    }
    this.counts.succeeded++;
    this.finish(job, undefined, value);
  }

  private failed(job: Job, err: RubricateError, epoch: number): void {
    this.clearTimeout(job);
    const maxWait = this.limits.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
    if (err.retryable && err.retryAfterMs !== undefined && err.retryAfterMs > maxWait) {
      // Not retried and no pause for everyone: the run goes on and says why this call failed.
      if (err.code === "RATE_LIMITED") this.counts.rateLimited++;
      this.counts.failed++;
      const message = `${err.message} (the server asked to wait ${seconds(err.retryAfterMs)}, more than the judge's limit of ${seconds(maxWait)} (max_retry_wait_ms); not retried: run again later, answers so far are cached)`;
      return this.finish(job, new RubricateError(err.code, message, { retryable: false, status: err.status, retryAfterMs: err.retryAfterMs, cause: err }));
    }
    if (err.code === "RATE_LIMITED") {
      this.counts.rateLimited++;
      this.streak = 0;
      if (epoch === this.epoch) {
        this.current = Math.max(1, Math.floor(this.current / 2));
        this.epoch++;
      }
      if (err.retryAfterMs) this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + err.retryAfterMs);
    }
    if (!err.retryable || job.attempt > this.limits.maxRetries) {
      this.counts.failed++;
      return this.finish(job, err);
    }
    // A call let finish after its run stopped (finishesInFlight) is not sent again.
    if (job.signal?.aborted) {
      this.counts.failed++;
      return this.finish(job, abortedError(job.signal));
    }
    this.counts.retries++;
    job.state = "backoff";
    this.backingOff++;
    job.backoffTimer = this.clock.setTimeout(() => {
      job.backoffTimer = undefined;
      this.backingOff--;
      job.state = "queued";
      this.retries.push(job);
      this.queued++;
      this.pump();
    }, this.backoffMs(job.attempt, err.retryAfterMs));
  }

  /** Full jitter (uniform in [0, min(cap, base·2^(n-1))]), but never less than the server asked. */
  private backoffMs(attempt: number, retryAfterMs?: number): number {
    const base = this.limits.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS;
    const cap = this.limits.backoffMaxMs ?? DEFAULT_BACKOFF_MAX_MS;
    const jitter = this.random() * Math.min(cap, base * 2 ** (attempt - 1));
    return Math.max(retryAfterMs ?? 0, jitter);
  }

  private abort(job: Job): void {
    const err = abortedError(job.signal);
    // Sent already: it may be paid for, so it finishes and its answer reaches the caller (and the cache).
    if (job.state === "running" && finishesInFlight(job.signal)) return;
    if (job.state === "queued") {
      this.queued--; // the queue entry is skipped lazily by next()
      if (this.queued === 0) this.disarmPump();
    } else if (job.state === "running") {
      job.controller?.abort(err);
    } else if (job.state === "backoff") {
      this.backingOff--;
    } else return;
    this.counts.failed++;
    this.finish(job, err);
  }

  private clearTimeout(job: Job): void {
    if (job.timeoutTimer !== undefined) this.clock.clearTimeout(job.timeoutTimer);
    job.timeoutTimer = undefined;
  }

  private finish(job: Job, err: RubricateError | undefined, value?: unknown): void {
    job.state = "done";
    this.clearTimeout(job);
    if (job.backoffTimer !== undefined) this.clock.clearTimeout(job.backoffTimer);
    job.backoffTimer = undefined;
    job.offAbort?.();
    job.offAbort = undefined;
    job.controller = undefined;
    if (err) job.reject(err);
    else job.resolve(value);
  }
}
