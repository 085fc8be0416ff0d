/**
 * How many writes (pushed results, started evals) one token may make per minute. Each write asks
 * the registry who the token is and what it publishes, and a pushed result stays in the store:
 * without a limit one token could fill the store, or keep the hub asking the registry, without
 * end. Counted in memory per hub process, by a hash of the token (the token itself is not kept);
 * when very many tokens write at once the least recent are forgotten first.
 */
import { LRUCache } from "lru-cache";
import { sha256Hex } from "../text/sha256.js";

/** Writes one token may make per minute unless `hub serve --writes-per-minute` says otherwise. */
export const DEFAULT_WRITES_PER_MINUTE = 30;
const WINDOW_MS = 60_000;

export class WriteLimiter {
  private readonly windows = new LRUCache<string, { count: number; endsAt: number }>({ max: 10_000 });

  /**
   * @param perMinute writes one token may make in a minute (a fixed window from its first write)
   * @param now the clock, for tests
   */
  constructor(
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts one write of `token`: 0 when it may go ahead, else the whole seconds until its minute
   * ends (a refused write is not counted).
   * @example const wait = limiter.take(token); if (wait > 0) refuse(429, { "retry-after": wait })
   */
  take(token: string): number {
    const key = sha256Hex(token);
    const now = this.now();
    let window = this.windows.get(key);
    if (window === undefined || now >= window.endsAt) this.windows.set(key, (window = { count: 0, endsAt: now + WINDOW_MS }));
    if (window.count >= this.perMinute) return Math.max(1, Math.ceil((window.endsAt - now) / 1000));
    window.count++;
    return 0;
  }
}
