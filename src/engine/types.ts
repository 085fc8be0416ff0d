import type { CompletionResponse } from "../providers/types.js";

/** What the cache stores for one paid call: the provider's answer, and when it was stored. */
export interface CacheEntry {
  response: CompletionResponse;
  createdAt: number;
}

/**
 * A content-addressed store of provider answers. Keys are hex digests of everything that can
 * change an answer (see `cacheKey`), never an API key. Errors are never stored.
 */
export interface Cache {
  get(key: string): CacheEntry | undefined;
  set(key: string, entry: CacheEntry): void;
  has(key: string): boolean;
  /** Flushes pending writes and releases the file (or connection). Safe to call twice. */
  close(): void | Promise<void>;
  /** Counters; a shared cache adds its health (`degraded` with the reason while its server does not answer). */
  readonly stats: { hits: number; misses: number; writes: number; writeErrors: number; status?: "ok" | "degraded"; reason?: string; since?: string };
  /**
   * Present on caches several processes share (Redis): the engine asks it before paying, so an
   * answer stored or being paid for by another process is not paid again.
   */
  readonly shared?: SharedCache;
}

/** The claim on one key: either the answer (stored by anyone), or the duty to pay for it and release. */
export type CacheClaim = { entry: CacheEntry } | { release(entry?: CacheEntry): Promise<void> };

/**
 * The cross-process side of a shared cache. `claim` returns the stored answer, or makes this
 * process the one that pays: others asking for the same key wait until it releases (with the
 * answer, or with nothing after an error, which is never stored). A claim expires when its
 * holder stops renewing it, so a dead process blocks nobody for long.
 */
export interface SharedCache {
  claim(key: string, signal?: AbortSignal): Promise<CacheClaim>;
}

/** Limits a scheduler enforces for one judge or policy. */
export interface SchedulerLimits {
  maxConcurrency: number;
  /** Requests per minute. */
  rpm?: number;
  /** Tokens (input + expected output) per minute. */
  tpm?: number;
  maxRetries: number;
  timeoutMs: number;
  /** Backoff base and cap (ms); jitter is added. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /**
   * The longest `retry-after` honoured (default `DEFAULT_MAX_RETRY_WAIT_MS`): a server asking for
   * longer fails the call at once, with the wait in its message, instead of sleeping for hours.
   */
  maxRetryWaitMs?: number;
}

/** A scheduler's counters: calls, retries, 429s, current concurrency. */
export interface SchedulerStats {
  started: number;
  succeeded: number;
  failed: number;
  retries: number;
  rateLimited: number;
  inFlight: number;
  queued: number;
  currentConcurrency: number;
}
