/**
 * Awaited calls into up to `size` guarded workers (guarded-worker.ts), so costly checks run side by
 * side: one worker answers one call at a time, and a reward server whose samples each bring a costly
 * RE2 test (or client checks) would queue them all behind one thread, every sample waiting for the
 * ones before it, on a machine with cores to spare.
 */
import { availableParallelism } from "node:os";
import { GuardedWorker, type StartWorker } from "./guarded-worker.js";

/** The most workers a pool starts by default: the caller keeps a core, and each worker keeps its own heap. */
export const MAX_POOL_WORKERS = 4;

/** A pool's default size: one worker per core beyond the caller's, at least one, at most `MAX_POOL_WORKERS`. */
export function defaultPoolSize(cores = availableParallelism()): number {
  return Math.max(1, Math.min(MAX_POOL_WORKERS, cores - 1));
}

interface Member {
  guard: GuardedWorker;
  busy: boolean;
}

/**
 * `GuardedWorker.callAsync` over a pool: a call goes to an idle worker, or to a new one while the
 * pool has fewer than `size`, or else waits for the first to be free, in the order the calls came.
 * A call past its limit ends its own worker only (the member starts a fresh one); the others go on.
 * Workers start on demand, so a pool that only ever sees one call at a time holds one thread.
 * @example
 * const pool = new GuardedPool(startMyWorker, 60_000);
 * const run = await pool.callAsync({ pattern, text }, 1_000); // { value } or "over-limit"
 */
export class GuardedPool {
  readonly #members: Member[] = [];
  readonly #waiting: ((member: Member) => void)[] = [];

  constructor(
    private readonly start: StartWorker,
    private readonly startupMs: number,
    readonly size = defaultPoolSize(),
  ) {}

  /** The worker's answer to `payload`, or "over-limit" when it computed past `ms` of CPU (see `GuardedWorker.callAsync`). */
  async callAsync(payload: unknown, ms: number): Promise<{ value: unknown } | "over-limit"> {
    const member = await this.#acquire();
    try {
      return await member.guard.callAsync(payload, ms);
    } finally {
      this.#release(member);
    }
  }

  /** How many workers the pool has started (busy or idle). */
  get started(): number {
    return this.#members.length;
  }

  /** Ends every worker; a later call starts them again. */
  close(): void {
    for (const member of this.#members) member.guard.close();
  }

  #acquire(): Promise<Member> {
    const idle = this.#members.find((m) => !m.busy);
    if (idle) {
      idle.busy = true;
      return Promise.resolve(idle);
    }
    if (this.#members.length < this.size) {
      const member = { guard: new GuardedWorker(this.start, this.startupMs), busy: true };
      this.#members.push(member);
      return Promise.resolve(member);
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Hands a freed worker to the longest-waiting call, or marks it idle. */
  #release(member: Member): void {
    const next = this.#waiting.shift();
    if (next) next(member);
    else member.busy = false;
  }
}
