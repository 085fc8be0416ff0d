import { RubricateError } from "../errors.js";
import { AbortCallbacks, abortedError as aborted, finishesInFlight } from "./abort.js";
import type { CompletionRequest, CompletionResponse, Provider } from "../providers/types.js";
import { addUsage, emptyUsage, type Usage } from "../types.js";
import { NullCache, type CacheStats } from "./cache/memory.js";
import { cacheKey, sanitizeBaseURL } from "./key.js";
import { Scheduler, type SchedulerOptions } from "./scheduler.js";
import type { Cache, CacheEntry, SchedulerLimits, SchedulerStats, SharedCache } from "./types.js";
import { callUsage, estimateTokens, type TokenPrice } from "./usage.js";

/** Options of `createEngine`. */
export interface EngineOptions {
  /** Default: no cache (`NullCache`): then every call is paid, as with `noCache` (no lookup, no merging of identical calls). */
  cache?: Cache;
  /** Limits of schedulers created without their own. */
  limits: SchedulerLimits;
  /** Default price for cost estimates (USD per million tokens). */
  price?: TokenPrice;
  schedulerOptions?: SchedulerOptions;
}

/** Per-call options of `engine.complete`. */
export interface CompleteOptions {
  voteIndex?: number;
  /** Extra key material, e.g. `{ criterion: "id@version" }`. */
  keyExtra?: unknown;
  signal?: AbortSignal;
  /** Neither read nor write the cache, nor merge with an identical call: always a fresh paid call. */
  noCache?: boolean;
  /** A scheduler id from `schedulerFor` (default: one per provider, base URL and model). */
  scheduler?: string;
  /** Overrides the engine's price for this call. */
  price?: TokenPrice;
  /** Overrides the tpm estimate of the request. */
  estimatedTokens?: number;
}

/** An answer, whether this call paid for it, and what it cost (`callUsage`: read it, never recount). */
export interface CompleteResult {
  response: CompletionResponse;
  /** True when this call paid nothing: a cache hit, or merged into an identical call in flight. */
  cached: boolean;
  key: string;
  /** This call's usage: `calls: 1` with tokens and cost when paid, else `cacheHits: 1` and nothing else. */
  usage: Usage;
}

/** What an engine has done so far. */
export interface EngineStats {
  /** calls: paid (successful) provider calls; cacheHits: calls served without paying (includes `merged`). */
  usage: Usage;
  /** Calls that joined an identical call already in flight. */
  merged: number;
  schedulers: Record<string, SchedulerStats>;
  cache: CacheStats;
}

/** A call the engine did not make because it runs in defer mode (batch collection). */
export interface DeferredCall {
  key: string;
  provider: Provider;
  request: CompletionRequest;
}

/** Runs provider calls through cache, in-flight merging and per-judge schedulers. */
export interface Engine {
  /**
   * In defer mode a cache miss is handed to `sink` and fails with `DEFERRED` instead of being
   * called: a batch runner collects the misses, gets them answered, and writes them to the cache.
   */
  setDefer(sink: ((call: DeferredCall) => void) | undefined): void;
  complete(provider: Provider, request: CompletionRequest, options?: CompleteOptions): Promise<CompleteResult>;
  /** The scheduler for `id`, created with `limits` (or the engine's) on first use; later `limits` are ignored. */
  schedulerFor(id: string, limits?: SchedulerLimits): Scheduler;
  stats(): EngineStats;
  readonly cache: Cache;
  /** Closes the cache (a shared cache's connection closes once its pending writes are sent). */
  close(): void | Promise<void>;
}

/** A paid call's answer and its usage. */
interface Paid {
  response: CompletionResponse;
  usage: Usage;
}

interface Flight {
  key: string;
  /** The answer with its usage, and whether this process paid for it (a shared cache may hold it already). */
  promise: Promise<Paid & { paid: boolean }>;
  controller: AbortController;
  waiters: number;
  /** Waiters whose run stopped letting calls in flight finish (`FinishInFlight`): they stay for the answer. */
  finishing: number;
}

/**
 * Creates an engine: cache lookup → identical in-flight calls merged → scheduler (limits,
 * retries, timeout) → provider → cache write on success only (errors are never cached).
 * @example
 * const engine = createEngine({ cache: openCache(), limits: { maxConcurrency: 8, maxRetries: 5, timeoutMs: 60_000 } });
 * const { response, cached } = await engine.complete(provider, request, { voteIndex: 0 });
 */
export function createEngine(options: EngineOptions): Engine {
  const cache: Cache = options.cache ?? new NullCache();
  const usage = emptyUsage();
  const schedulers = new Map<string, Scheduler>();
  const inflight = new Map<string, Flight>();
  const abortCallbacks = new AbortCallbacks();
  let merged = 0;
  let defer: ((call: DeferredCall) => void) | undefined;

  const schedulerFor = (id: string, limits?: SchedulerLimits): Scheduler => {
    let s = schedulers.get(id);
    if (!s) schedulers.set(id, (s = new Scheduler(limits ?? options.limits, options.schedulerOptions)));
    return s;
  };

  // A cache that stores nothing (`--no-cache`) makes every call a fresh paid one, as `noCache`
  // does: no key to hash (a canonical JSON of the whole prompt and a sha256, per call), no lookup,
  // no merging. Defer mode still keys its calls: the batch runner needs them.
  const cacheOff = cache instanceof NullCache;

  // A key the provider refused (401) is refused for every call of that scheduler: its queued and
  // later calls fail at once without being sent, rather than one 401 per sample for the whole run.
  const refusedKeys = new Map<string, RubricateError>();

  const call = async (provider: Provider, request: CompletionRequest, opts: CompleteOptions, key: string | undefined, signal?: AbortSignal): Promise<Paid> => {
    const schedulerId = opts.scheduler ?? `${provider.name}|${sanitizeBaseURL(provider.baseURL ?? "")}|${request.model}`;
    const scheduler = schedulerFor(schedulerId);
    const estimate = opts.estimatedTokens ?? estimateTokens(request);
    const timeoutMs = scheduler.limits.timeoutMs;
    // Checked and noted as each call starts and ends, not after the scheduler answers: by then it
    // has already started the next queued call.
    const send = (s: AbortSignal) => {
      const refusal = refusedKeys.get(schedulerId);
      if (refusal) return Promise.reject(notSent(refusal));
      return provider.complete(request, { signal: s, timeoutMs }).catch((e: unknown) => {
        if (isKeyRefusal(e) && !refusedKeys.has(schedulerId)) refusedKeys.set(schedulerId, e);
        throw e;
      });
    };
    const response = await scheduler.run(send, { estimatedTokens: estimate, signal });
    scheduler.recordUsage(estimate, response.usage.inputTokens + response.usage.outputTokens);
    const paid = callUsage(response, false, opts.price ?? options.price);
    addUsage(usage, paid);
    // The Cache contract says set never throws, but a paid answer must reach the caller regardless.
    if (key !== undefined && !opts.noCache) {
      try {
        cache.set(key, { response, createdAt: Date.now() });
      } catch {
        /* counted by the cache */
      }
    }
    return { response, usage: paid };
  };

  const complete = async (provider: Provider, request: CompletionRequest, opts: CompleteOptions = {}): Promise<CompleteResult> => {
    const { signal } = opts;
    if (signal?.aborted) throw aborted(signal);
    const keyOf = () => cacheKey({ provider: provider.name, baseURL: provider.baseURL, request, voteIndex: opts.voteIndex, extra: opts.keyExtra });
    if (opts.noCache || (cacheOff && !defer)) {
      const { response, usage: paid } = await call(provider, request, opts, undefined, signal);
      // Hashed only if someone reads it: nothing stores or merges by it.
      return {
        response,
        usage: paid,
        cached: false,
        get key() {
          return keyOf();
        },
      };
    }
    const key = keyOf();

    const hit = cache.get(key);
    if (hit) {
      usage.cacheHits++;
      return { response: hit.response, cached: true, key, usage: callUsage(hit.response, true) };
    }
    if (defer) {
      defer({ key, provider, request });
      throw new RubricateError("DEFERRED", "answer deferred to a provider batch");
    }
    let flight = inflight.get(key);
    if (flight) {
      merged++;
      usage.cacheHits++;
      const { response } = await join(flight, signal);
      return { response, cached: true, key, usage: callUsage(response, true) };
    }
    const controller = new AbortController();
    const promise = (cache.shared ? sharedCall(cache.shared, provider, request, opts, key, controller.signal) : call(provider, request, opts, key, controller.signal).then((result) => ({ ...result, paid: true }))).finally(() => {
      if (inflight.get(key) === flight) inflight.delete(key);
    });
    promise.catch(() => {}); // every waiter may have left; the rejection is theirs, not unhandled
    flight = { key, promise, controller, waiters: 0, finishing: 0 };
    inflight.set(key, flight);
    const { response, usage: callUse, paid } = await join(flight, signal);
    if (!paid) usage.cacheHits++;
    return { response, cached: !paid, key, usage: paid ? callUse : callUsage(response, true) };
  };

  // Another process may hold the answer or be paying for it: claim the key first; pay only when
  // the claim is ours, and release it with the answer (or with nothing after an error).
  const sharedCall = async (shared: SharedCache, provider: Provider, request: CompletionRequest, opts: CompleteOptions, key: string, signal: AbortSignal): Promise<Paid & { paid: boolean }> => {
    const claim = await shared.claim(key, signal);
    if ("entry" in claim) return { response: claim.entry.response, usage: callUsage(claim.entry.response, true), paid: false };
    let entry: CacheEntry | undefined;
    try {
      const result = await call(provider, request, opts, key, signal);
      entry = { response: result.response, createdAt: Date.now() };
      return { ...result, paid: true };
    } finally {
      await claim.release(entry).catch(() => undefined); // counted by the cache; the answer still reaches the caller
    }
  };

  // A waiter's abort rejects only that waiter; the shared call is aborted when no one waits any more.
  const join = (flight: Flight, signal?: AbortSignal): Promise<Paid & { paid: boolean }> => {
    flight.waiters++;
    if (!signal) return flight.promise;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        // The run stopped letting calls in flight finish: this waiter stays for its answer. Once
        // every waiter's run has so stopped, the call is stopped the same way: sent, it finishes
        // (and is cached); still queued, it is never sent.
        if (finishesInFlight(signal)) {
          if (++flight.finishing === flight.waiters) flight.controller.abort(signal.reason);
          return;
        }
        if (--flight.waiters === 0) {
          if (inflight.get(flight.key) === flight) inflight.delete(flight.key); // newcomers start afresh
          flight.controller.abort(aborted(signal));
        }
        reject(aborted(signal));
      };
      const off = abortCallbacks.add(signal, onAbort);
      flight.promise.then(
        (r) => {
          off();
          resolve(r);
        },
        (e: unknown) => {
          off();
          reject(e);
        },
      );
    });
  };

  return {
    complete,
    schedulerFor,
    setDefer: (sink) => {
      defer = sink;
    },
    cache,
    stats: () => ({
      usage: { ...usage },
      merged,
      schedulers: Object.fromEntries([...schedulers].map(([id, s]) => [id, s.stats])),
      cache: { ...cache.stats },
    }),
    close: () => cache.close(),
  };
}

/** A provider's 401: the key is wrong or revoked, and every later call with it would be refused too. */
function isKeyRefusal(e: unknown): e is RubricateError {
  return e instanceof RubricateError && e.code === "PROVIDER_HTTP" && e.status === 401;
}

/** The error of a call not sent because the provider refused the key earlier in the run. */
function notSent(refusal: RubricateError): RubricateError {
  return new RubricateError("PROVIDER_HTTP", `${refusal.message} (not sent: the provider refused this key earlier in the run)`, { status: 401, retryable: false });
}
