/**
 * Awaited calls into up to `size` guarded workers (guarded-worker.ts), so costly checks run side by
 * side: one worker answers one call at a time, and a reward server whose samples each bring a costly
 * RE2 test (or client checks) would queue them all behind one thread, every sample waiting for the
 * ones before it, on a machine with cores to spare.
 */
import { availableParallelism } from "node:os";
import pLimit, { type LimitFunction } from "p-limit";
import { GuardedWorker, type StartWorker } from "./guarded-worker.js";

/** The most workers a pool starts by default: the caller keeps a core, and each worker keeps its own heap. */
export const MAX_POOL_WORKERS = 4;

/** A pool's default size: one worker per core beyond the caller's, at least one, at most `MAX_POOL_WORKERS`. */
export function defaultPoolSize(cores = availableParallelism()): number {
  return Math.max(1, Math.min(MAX_POOL_WORKERS, cores - 1));
}

/**
 * `GuardedWorker.callAsync` over a pool: at most `size` calls run at once (p-limit; the rest wait
 * in the order they came), each on an idle worker or, when none is idle, on a new one, so the pool
 * never holds more than `size`. A call past its limit ends its own worker only (that worker starts
 * a fresh one); the others go on. A pool that only ever sees one call at a time holds one thread.
 * @example
 * const pool = new GuardedPool(startMyWorker, 60_000);
 * const run = await pool.callAsync({ pattern, text }, 1_000); // { value } or "over-limit"
 */
export class GuardedPool {
  readonly #workers: GuardedWorker[] = [];
  readonly #idle: GuardedWorker[] = [];
  readonly #limit: LimitFunction;

  constructor(
    private readonly start: StartWorker,
    private readonly startupMs: number,
    readonly size = defaultPoolSize(),
  ) {
    this.#limit = pLimit(size);
  }

  /** The worker's answer to `payload`, or "over-limit" when it computed past `ms` of CPU; `meter` is told the CPU it spent (see `GuardedWorker.callAsync`). */
  callAsync(payload: unknown, ms: number, meter?: (cpuMs: number) => void): Promise<{ value: unknown } | "over-limit"> {
    return this.#limit(async () => {
      const worker = this.#idle.pop() ?? this.#newWorker();
      try {
        return await worker.callAsync(payload, ms, meter);
      } finally {
        this.#idle.push(worker);
      }
    });
  }

  /** How many workers the pool has started (busy or idle). */
  get started(): number {
    return this.#workers.length;
  }

  /** Ends every worker; a later call starts them again. */
  close(): void {
    for (const worker of this.#workers) worker.close();
  }

  #newWorker(): GuardedWorker {
    const worker = new GuardedWorker(this.start, this.startupMs);
    this.#workers.push(worker);
    return worker;
  }
}
