import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import type { Redis, RedisOptions } from "ioredis";
import { RubricateError } from "../../errors.js";
import type { Cache, CacheClaim, CacheEntry, SharedCache } from "../types.js";
import { MemoryCache, emptyCacheStats, type CacheStats } from "./memory.js";

/** Options of `RedisCache`. */
export interface RedisCacheOptions {
  /** How long a claim lives without renewal (default 10,000 ms): the longest a dead replica blocks a key. */
  lockMs?: number;
  /** Prefix of every Redis key and the notification channel (default "rubricate"). */
  prefix?: string;
  /** Entries of the in-process LRU in front of Redis (default 10,000). */
  memoryEntries?: number;
  /** Told about failed reads/writes, once per kind (the run goes on: a Redis outage costs money, never answers). */
  onError?: (error: RubricateError) => void;
  /**
   * A command Redis does not answer within this (default 3,000 ms: a busy process's event loop
   * must not pass for a silent Redis) fails, and the cache goes
   * degraded: a Redis that stops answering (stopped, swapping, a dead link that TCP has not noticed)
   * must not stall calls, and a closing cache must not wait on it.
   */
  commandTimeoutMs?: number;
  /** While degraded, how often Redis is pinged to see whether it is back (default 1,000 ms). */
  probeMs?: number;
}

/** Whether the shared cache is answering; `degraded`: this process answers from its own memory and pays for misses. */
export interface CacheHealth {
  status: "ok" | "degraded";
  /** Why, while degraded (the connection error: ECONNREFUSED, no answer within …). */
  reason?: string;
  /** Since when (ISO time), while degraded. */
  since?: string;
}

// One round trip each, atomic on the server. CLAIM: the stored answer, else take the lock (1) or
// report it held by someone else (0). RELEASE: store the answer (if any), drop our lock, notify.
const CLAIM = `local v = redis.call('GET', KEYS[1])
if v then return v end
if redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2], 'NX') then return 1 end
return 0`;
// ARGV[4] set: the stored value was damaged, so the answer replaces it (NX would keep it forever).
const RELEASE = `if ARGV[2] ~= '' then
  if ARGV[4] == '1' then redis.call('SET', KEYS[1], ARGV[2]) else redis.call('SET', KEYS[1], ARGV[2], 'NX') end
end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
redis.call('PUBLISH', KEYS[3], ARGV[3])
return 1`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

type Scripted = Redis & {
  rubricateClaim(value: string, lock: string, token: string, ttl: number): Promise<string | number>;
  rubricateRelease(value: string, lock: string, channel: string, token: string, entry: string, key: string, overwrite: string): Promise<number>;
  rubricateRenew(lock: string, token: string, ttl: number): Promise<number>;
};

/**
 * A cache shared by every process that points at the same Redis database (reward servers on
 * several machines): `redis://host:port/db`. An in-process LRU answers repeats; Redis holds the
 * answers (JSON, no expiry, never an error, never an API key: keys are content hashes) and the
 * claims that make two replicas asking for the same answer at once pay for it once. A claim is a
 * lock with a TTL its holder renews while the call runs; waiters are woken by a pub/sub message
 * and also poll, so a holder that died is replaced after at most `lockMs`. If Redis fails, the
 * run goes on uncached (counted in `writeErrors`, told once to `onError`).
 * @example
 * const cache = RedisCache.open("redis://10.0.0.5:6379/0?lock_ms=15000");
 */
export class RedisCache implements Cache, SharedCache {
  private readonly counts = emptyCacheStats();
  private readonly memory: MemoryCache;
  private readonly memoryCapacity: number;
  private readonly redis: Scripted;
  private subscriber?: Promise<Redis | undefined>;
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly claimed = new Set<string>();
  /** Answers paid while Redis was down, written to it once it is back so no other process pays for them again. */
  private readonly unsynced = new Set<string>();
  private readonly reported = new Set<string>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly renewals = new Set<NodeJS.Timeout>();
  private closing?: Promise<void>;
  /** Set while Redis does not answer: calls skip it (no stall) until a probe gets a PONG. */
  private down?: { reason: string; since: number };
  private probe?: NodeJS.Timeout;
  /** The connection's last error (ECONNREFUSED…): ioredis's own command error then only says "max retries per request". */
  private connectionError?: Error;
  private readonly listeners = new Set<(health: CacheHealth, message: string) => void>();
  private readonly commandTimeoutMs: number;
  readonly lockMs: number;
  readonly prefix: string;
  readonly shared: SharedCache = this;

  constructor(
    readonly url: string,
    private readonly options: RedisCacheOptions = {},
  ) {
    this.lockMs = options.lockMs ?? 10_000;
    this.prefix = options.prefix ?? "rubricate";
    this.memoryCapacity = options.memoryEntries ?? 10_000;
    this.memory = new MemoryCache(this.memoryCapacity);
    this.commandTimeoutMs = options.commandTimeoutMs ?? 3000;
    // A command fails after one reconnect attempt instead of queueing forever, or after
    // commandTimeout when the server holds the connection but does not answer: the engine then pays (never invents).
    // ioredis loads with the first Redis cache, not with the engine: 65–90 ms every other run skips.
    // Typed as the client with its scripts: a cast of ioredis's `Redis` to `Scripted` costs tsc ~2.5 s
    // of CPU comparing the two command tables (every type check and every build of the types).
    const { Redis: Client } = createRequire(import.meta.url)("ioredis") as { Redis: new (url: string, options: RedisOptions) => Scripted };
    this.redis = new Client(url, { maxRetriesPerRequest: 1, connectTimeout: 5000, commandTimeout: this.commandTimeoutMs, lazyConnect: false });
    this.redis.on("error", (e) => {
      this.connectionError = e;
      this.report("connect", e);
      this.markDown(e);
    });
    this.redis.defineCommand("rubricateClaim", { numberOfKeys: 2, lua: CLAIM });
    this.redis.defineCommand("rubricateRelease", { numberOfKeys: 3, lua: RELEASE });
    this.redis.defineCommand("rubricateRenew", { numberOfKeys: 1, lua: RENEW });
  }

  /** Opens `redis://host:port/db[?lock_ms=…&timeout_ms=…&prefix=…]` (query values override `options`). */
  static open(url: string, options: RedisCacheOptions = {}): RedisCache {
    const parsed = new URL(url);
    const lockMs = parsed.searchParams.get("lock_ms");
    const timeoutMs = parsed.searchParams.get("timeout_ms");
    const prefix = parsed.searchParams.get("prefix");
    if (lockMs !== null && !(Number(lockMs) >= 100)) throw new RubricateError("BAD_INPUT", `${redacted(url)}: lock_ms must be a number of milliseconds >= 100`);
    if (timeoutMs !== null && !(Number(timeoutMs) >= 10)) throw new RubricateError("BAD_INPUT", `${redacted(url)}: timeout_ms must be a number of milliseconds >= 10`);
    parsed.search = "";
    return new RedisCache(parsed.toString(), {
      ...options,
      ...(lockMs !== null ? { lockMs: Number(lockMs) } : {}),
      ...(timeoutMs !== null ? { commandTimeoutMs: Number(timeoutMs) } : {}),
      ...(prefix ? { prefix } : {}),
    });
  }

  /** Resolves when Redis answers a PING; rejects with a `CACHE` error naming the URL otherwise. */
  async ready(): Promise<void> {
    try {
      await this.redis.ping();
    } catch (e) {
      throw new RubricateError("CACHE", `cannot reach the Redis cache at ${redacted(this.url)}: ${this.describe(e)}`, { cause: e });
    }
  }

  /** `ok`, or `degraded` with the reason while Redis does not answer. */
  get health(): CacheHealth {
    return this.down ? { status: "degraded", reason: this.down.reason, since: new Date(this.down.since).toISOString() } : { status: "ok" };
  }

  /** Hears each change of health (Redis lost, Redis back) with a line for a log. */
  onHealthChange(listener: (health: CacheHealth, message: string) => void): void {
    this.listeners.add(listener);
  }

  /** The in-process copy only: lookups that may wait on Redis go through `claim`. */
  get(key: string): CacheEntry | undefined {
    const entry = this.memory.get(key);
    if (entry) this.counts.hits++;
    return entry;
  }

  has(key: string): boolean {
    return this.memory.has(key);
  }

  /** Keeps the answer here and stores it in Redis (unless a claim of ours is about to store it). */
  set(key: string, entry: CacheEntry): void {
    this.memory.set(key, entry);
    if (this.down) return this.keepUntilBack(key);
    if (this.claimed.has(key) || this.closing) return;
    this.track(
      this.redis.set(this.valueKey(key), JSON.stringify(entry), "NX").then(
        () => void this.counts.writes++,
        (e) => this.failedWrite(e),
      ),
    );
  }

  async claim(key: string, signal?: AbortSignal): Promise<CacheClaim> {
    const local = this.memory.get(key);
    if (local) return { entry: local };
    if (this.down) {
      // Redis is not answering: pay here at once rather than wait out a timeout per call.
      this.counts.misses++;
      return this.unshared(key);
    }
    try {
      await this.subscribe();
      for (;;) {
        signal?.throwIfAborted();
        const token = randomBytes(12).toString("hex");
        const answer = await this.redis.rubricateClaim(this.valueKey(key), this.lockKey(key), token, this.lockMs);
        if (typeof answer === "string") {
          const entry = this.parse(answer);
          if (entry) {
            this.counts.hits++;
            this.memory.set(key, entry);
            return { entry };
          }
          // A damaged value is a miss: pay for it, never invent it, and overwrite it with the answer.
          return this.own(key, token, false, true);
        }
        if (answer === 1) {
          this.counts.misses++;
          return this.own(key, token, true);
        }
        await this.waitFor(key, signal);
      }
    } catch (e) {
      if (signal?.aborted) throw e;
      this.report("claim", e);
      this.markDown(e);
      this.counts.misses++;
      return this.unshared(key); // Redis is unreachable: pay here, unshared until it is back
    }
  }

  /** A claim paid while Redis is down: kept in memory, and written to Redis once it answers again. */
  private unshared(key: string): CacheClaim {
    return {
      release: async (entry) => {
        if (!entry) return;
        this.memory.set(key, entry);
        this.keepUntilBack(key);
      },
    };
  }

  private keepUntilBack(key: string): void {
    this.unsynced.add(key);
    // Bounded like the memory copy: past that, the oldest answers are only in this process.
    if (this.unsynced.size > this.memoryCapacity) this.unsynced.delete(this.unsynced.values().next().value!);
  }

  /** Writes the answers paid during the outage (those still in memory) to Redis, never over a stored one. */
  private writeBack(): void {
    const keys = [...this.unsynced];
    this.unsynced.clear();
    for (const key of keys) {
      const entry = this.memory.get(key);
      if (!entry) continue;
      this.track(
        this.redis.set(this.valueKey(key), JSON.stringify(entry), "NX").then(
          () => void this.counts.writes++,
          (e) => this.failedWrite(e),
        ),
      );
    }
  }

  private own(key: string, token: string, locked: boolean, overwrite = false): CacheClaim {
    this.claimed.add(key);
    const renew = locked
      ? setInterval(() => {
          this.redis.rubricateRenew(this.lockKey(key), token, this.lockMs).catch((e) => this.report("renew", e));
        }, Math.max(50, Math.floor(this.lockMs / 3)))
      : undefined;
    if (renew) {
      renew.unref();
      this.renewals.add(renew);
    }
    let released = false;
    return {
      release: async (entry) => {
        if (released) return;
        released = true;
        clearInterval(renew);
        if (renew) this.renewals.delete(renew);
        this.claimed.delete(key);
        if (entry) this.memory.set(key, entry);
        const write = this.redis.rubricateRelease(this.valueKey(key), this.lockKey(key), this.channel, token, entry ? JSON.stringify(entry) : "", key, overwrite ? "1" : "").then(
          () => void (entry && this.counts.writes++),
          (e) => this.failedWrite(e),
        );
        this.track(write);
        await write;
      },
    };
  }

  /** Until the key's holder releases (pub/sub), or a poll interval passes (the holder may have died). */
  private waitFor(key: string, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let set = this.waiters.get(key);
      if (!set) this.waiters.set(key, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        set!.delete(done);
        if (set!.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        done();
        reject(signal!.reason);
      };
      const timer = setTimeout(done, Math.min(1000, Math.max(50, Math.floor(this.lockMs / 4))));
      set.add(done);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private subscribe(): Promise<Redis | undefined> {
    this.subscriber ??= (async () => {
      const sub = this.redis.duplicate();
      sub.on("error", (e) => this.report("subscribe", e));
      sub.on("message", (_channel: string, key: string) => {
        const set = this.waiters.get(key);
        if (set) for (const wake of [...set]) wake();
      });
      try {
        await sub.subscribe(this.channel);
      } catch (e) {
        // Not kept: once Redis is back, the next claim subscribes again.
        this.subscriber = undefined;
        sub.disconnect();
        throw e;
      }
      return sub;
    })();
    return this.subscriber;
  }

  get stats(): CacheStats {
    return { ...this.counts, ...this.health };
  }

  /** Sends the writes still pending, then closes both connections. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const timer of this.renewals) clearInterval(timer); // our claims lapse after lock_ms, as a dead process's would
      clearInterval(this.probe);
      // Each pending write ends within commandTimeoutMs: answered, or failed on a Redis that stopped answering.
      await Promise.allSettled([...this.pending]);
      const sub = await this.subscriber?.catch(() => undefined);
      sub?.disconnect();
      if (this.down) this.redis.disconnect();
      else await this.redis.quit().catch(() => this.redis.disconnect());
      this.memory.close();
    })();
    return this.closing;
  }

  private parse(text: string): CacheEntry | undefined {
    try {
      const entry: unknown = JSON.parse(text);
      if (isCacheEntry(entry)) return entry;
    } catch {
      /* reported below */
    }
    this.report("read", new Error("a stored value is not a cache entry"));
    return undefined;
  }

  /** Goes degraded (once): calls skip Redis until a probe gets an answer. */
  private markDown(e: unknown): void {
    if (this.closing || this.down) return;
    this.down = { reason: this.describe(e), since: Date.now() };
    this.tell(`Redis cache at ${redacted(this.url)} is unreachable (${this.down.reason}): answering from this process's memory and paying for misses until it is back`);
    this.probe = setInterval(() => {
      this.redis.ping().then(
        () => this.markUp(),
        () => undefined,
      );
    }, this.options.probeMs ?? 1000);
    this.probe.unref();
  }

  private markUp(): void {
    if (!this.down || this.closing) return;
    const seconds = Math.round((Date.now() - this.down.since) / 1000);
    const was = this.down.reason;
    this.down = undefined;
    this.connectionError = undefined;
    clearInterval(this.probe);
    this.reported.clear(); // a later outage is told again
    this.tell(`Redis cache at ${redacted(this.url)} is back after ${seconds} s (it was: ${was}); shared again`);
    this.writeBack();
  }

  private tell(message: string): void {
    for (const listener of this.listeners) listener(this.health, message);
  }

  /** An error in words a person can act on: the connection's cause, or a timeout said as such. */
  private describe(e: unknown): string {
    const message = (e as Error)?.message ?? String(e);
    if (/command timed out/i.test(message)) return `no answer within ${this.commandTimeoutMs} ms (the server holds the connection but does not reply: stopped, overloaded?)`;
    // ioredis's command error only says "max retries per request"; the cause is the connection's.
    if (this.connectionError && /max retries per request|connection is closed/i.test(message)) return this.connectionError.message;
    return message;
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    p.finally(() => this.pending.delete(p)).catch(() => undefined);
  }

  private failedWrite(e: unknown): void {
    this.counts.writeErrors++;
    this.report("write", e);
  }

  private report(op: string, e: unknown): void {
    if (this.closing) return;
    const kind = `${op}:${(e as { code?: string })?.code ?? (e as Error)?.message ?? "?"}`;
    if (this.reported.has(kind)) return;
    this.reported.add(kind);
    this.options.onError?.(new RubricateError("CACHE", `Redis cache ${op} failed on ${redacted(this.url)} (${(e as Error)?.message ?? e}); further ${op} errors of this kind are counted, not reported`, { cause: e }));
  }

  private valueKey(key: string): string {
    return `${this.prefix}:answer:${key}`;
  }
  private lockKey(key: string): string {
    return `${this.prefix}:claim:${key}`;
  }
  private get channel(): string {
    return `${this.prefix}:released`;
  }
}

/** A stored value of the right shape: anything else is a miss (and is overwritten), never an answer. */
function isCacheEntry(value: unknown): value is CacheEntry {
  const entry = value as CacheEntry | null;
  const response = entry?.response;
  const usage = response?.usage;
  return (
    typeof entry === "object" && entry !== null && typeof entry.createdAt === "number" &&
    typeof response === "object" && response !== null && typeof response.text === "string" && typeof response.finishReason === "string" &&
    typeof usage === "object" && usage !== null && typeof usage.inputTokens === "number" && typeof usage.outputTokens === "number"
  );
}

/** True for a `--cache` value that names a Redis database rather than a SQLite file. */
export const isRedisUrl = (value: string): boolean => /^rediss?:\/\//i.test(value);

/** The URL without its password, for messages. */
function redacted(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "redis://…";
  }
}
