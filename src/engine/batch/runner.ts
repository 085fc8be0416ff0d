import pRetry from "p-retry";
import { RubricateError } from "../../errors.js";
import type { BatchApi, BatchResultItem, BatchStatus, Provider } from "../../providers/types.js";
import { addUsage, emptyUsage, type Usage } from "../../types.js";
import { LayeredCache } from "../cache/layered.js";
import { MemoryCache, NullCache } from "../cache/memory.js";
import type { Cache } from "../types.js";
import type { Engine } from "../engine.js";
import { costUsd, type TokenPrice } from "../usage.js";
import type { TokenUsage } from "../../providers/types.js";
import type { BatchJob, BatchJobStore } from "./jobs.js";
import { KeySet } from "./key-set.js";
import { DeferredSpill, type SpillChunk } from "./spill.js";

/** The judge file's `price` as batch mode reads it. */
export interface BatchPrice extends TokenPrice {
  /** Fraction of the live price a batch call costs; default the provider's (0.5 for OpenAI and Anthropic). */
  batch_discount?: number;
  /** Price of tokens written to the provider's prompt cache (Anthropic); default 1.25 × `input`. */
  cache_write?: number;
}

export interface BatchRunOptions {
  engine: Engine;
  provider: Provider;
  store: BatchJobStore;
  /** Runs one full scoring pass; the engine is in defer mode while it runs. */
  pass: () => Promise<void>;
  price?: BatchPrice;
  /** First poll interval (default 10 s), doubled up to `maxPollMs` (default 5 min). */
  pollMs?: number;
  maxPollMs?: number;
  /** Batches submitted at most (default 5): `when` rounds, parse retries and failed items each need one. */
  maxRounds?: number;
  /** Requests per batch (default and ceiling: the provider's limit). */
  maxItems?: number;
  /** Bytes per batch file or body as the provider counts them (default and ceiling: the provider's limit, with a margin). */
  maxBytes?: number;
  /** Timeout of one upload + create (default 15 min); Ctrl-C never cuts it short. */
  createTimeoutMs?: number;
  /** Retryable errors (429, 5xx, network) in a row while polling or reading results before giving up (default 30). */
  maxPollErrors?: number;
  /** Downloads of a batch's results tried before its results count as gone (default 3): a 404 right after a batch ended may pass. */
  resultTries?: number;
  /**
   * Batches of this run whose results are gone that are sent again (default 1). The next one stops
   * batch mode with an error: results that keep returning 404 (a key that cannot read its own
   * batches, a proxy) would otherwise have every round pay for the same requests again.
   */
  maxLost?: number;
  signal?: AbortSignal;
  onEvent?: (event: string) => void;
}

/** What batch mode did. Answers that never came back are left to the live pass that follows. */
export interface BatchRunReport {
  jobs: number;
  resumedJobs: number;
  submitted: number;
  succeeded: number;
  failed: number;
  expired: number;
  /** Batches found by a lookup after a create whose answer was lost (timeout, crash): collected, not resubmitted. */
  found: number;
  /** Requests the provider refused as invalid (HTTP 4xx, `invalid_request_error`): reported, never resubmitted. */
  rejected: number;
  /** Batches whose results were gone (404, archived, expired files): their requests were asked again. */
  lost: number;
  /** Paid through the batch API, priced with the batch discount. */
  usage: Usage;
  /** Requests still unanswered when the rounds ran out. */
  leftover: number;
  /** Those requests' rough cost at the live price (estimated tokens, output reservation included, at the input price), when the judge has a price. */
  leftoverLiveCostUsd?: number;
}

interface RunState {
  options: BatchRunOptions;
  api: BatchApi;
  baseURL: string;
  report: BatchRunReport;
  log: (event: string) => void;
  /** A `token_limit_exceeded` failure: batches go one after another from then on. */
  sequential: boolean;
  /** Keys the provider rejected as invalid requests. */
  rejected: KeySet;
  /** Where answers are written: the persistent layer, so a million answers do not churn the memory LRU. */
  sink: Cache;
  /** Jobs this run submitted (not resumed): their results must be readable. */
  submittedHere: Set<string>;
  /** Of those, the ones whose batch or results were gone. */
  lostHere: number;
}

/**
 * Answers every judge call a scoring run needs through the provider's batch API, writing the
 * answers into the engine's cache under the same keys live calls use. Jobs are recorded in the
 * store first, so a crash or reboot resumes by collecting them, never by resubmitting: a job whose
 * create never answered is looked up at the provider before anything is sent again.
 * @example await fillCacheByBatch({ engine, provider, store, pass: () => drain(scoreStream(rubric, rows(), { judge })) })
 */
export async function fillCacheByBatch(options: BatchRunOptions): Promise<BatchRunReport> {
  const { engine, provider, store } = options;
  const api = provider.batch;
  if (!api) throw new RubricateError("JUDGE_CONFIG", `provider "${provider.name}" has no batch API; use openai or anthropic, or run without --batch`);
  if (engine.cache instanceof NullCache) {
    throw new RubricateError("BAD_INPUT", "batch mode keeps its answers in the cache for the scoring pass: give it a cache (--cache <file>), not --no-cache");
  }
  const state: RunState = {
    options,
    api,
    baseURL: provider.baseURL ?? "",
    report: { jobs: 0, resumedJobs: 0, submitted: 0, succeeded: 0, failed: 0, expired: 0, found: 0, rejected: 0, lost: 0, usage: emptyUsage(), leftover: 0 },
    log: options.onEvent ?? (() => undefined),
    sequential: false,
    rejected: new KeySet(),
    sink: engine.cache instanceof LayeredCache ? engine.cache.lower : engine.cache,
    submittedHere: new Set(),
    lostHere: 0,
  };
  const { report, log } = state;
  const limits = {
    maxItems: Math.min(options.maxItems ?? api.limits.maxItems, api.limits.maxItems),
    maxBytes: Math.min(options.maxBytes ?? api.limits.maxBytes, api.limits.maxBytes),
  };
  const maxRounds = options.maxRounds ?? 5;

  const resumed = store.active(provider.name, state.baseURL);
  report.resumedJobs = resumed.length;
  if (resumed.length > 0) log(`resuming ${resumed.length} batch job(s) recorded earlier`);
  for (let round = 0; ; round++) {
    for (const job of store.active(provider.name, state.baseURL)) await settle(job, state);
    const pending = new DeferredSpill(api, limits);
    try {
      engine.setDefer((call) => {
        if (!state.rejected.has(call.key)) pending.add(call.key, call.request);
      });
      try {
        await options.pass();
      } finally {
        engine.setDefer(undefined);
      }
      if (pending.tooLarge > 0) log(`${pending.tooLarge} request(s) are each over the provider's batch size limit; they will be asked live`);
      if (pending.size === 0) return report;
      refuseSmallMemoryCache(engine, pending.size);
      if (round >= maxRounds) {
        report.leftover = pending.size;
        const price = options.price;
        if (price) report.leftoverLiveCostUsd = (pending.estimatedTokens * price.input) / 1e6;
        const cost = report.leftoverLiveCostUsd === undefined ? "" : ` at the full live price (roughly $${report.leftoverLiveCostUsd.toFixed(4)})`;
        log(`warning: ${pending.size} request(s) still unanswered after ${maxRounds} batch rounds; they will be asked live${cost}`);
        return report;
      }
      for (const chunk of pending.chunks()) {
        const job = await submit(chunk, state);
        // After an enqueued-token-limit failure, one batch at a time: each must finish before the next is queued.
        if (state.sequential) await settle(job, state);
      }
    } finally {
      pending.dispose();
    }
  }
}

/** A memory-only cache forgets answers past its size: batch answers would be paid for and thrown away. */
function refuseSmallMemoryCache(engine: Engine, pending: number): void {
  const cache = engine.cache;
  if (cache instanceof MemoryCache && cache.size + pending > cache.maxEntries) {
    throw new RubricateError("BAD_INPUT", `batch mode needs room for ${cache.size + pending} answers but the memory-only cache keeps ${cache.maxEntries}: use a cache file`);
  }
}

/** Records a job, uploads and creates its batch; a create that failed is looked up before it is tried again. */
async function submit(chunk: SpillChunk, state: RunState): Promise<BatchJob> {
  const { options, api, report, log } = state;
  const { store, provider } = options;
  if (options.signal?.aborted) throw new RubricateError("ABORTED", "batch mode interrupted before submitting; run the same command again to go on");
  // Recorded before anything leaves: a crash from here on leaves a job to look up, never a silent resubmit.
  const job = store.create(provider.name, state.baseURL, chunk.keys(), chunk.nonce);
  state.submittedHere.add(job.id);
  for (let attempt = 1; ; attempt++) {
    try {
      const { id } = await api.submit(chunk, {
        metadata: { rubricate_job: job.id },
        timeoutMs: options.createTimeoutMs ?? 15 * 60_000,
        onUploaded: (fileId) => {
          store.markUploaded(job.id, fileId);
          job.fileId = fileId;
        },
      });
      store.markSubmitted(job.id, id);
      Object.assign(job, { remoteId: id, state: "submitted" });
      report.jobs++;
      report.submitted += chunk.count;
      log(`submitted batch ${id} with ${chunk.count} request(s)`);
      break;
    } catch (e) {
      const error = asRubricateError(e);
      // No answer is not "no batch": the provider may have made it before the connection or timeout ended.
      // A refusal (4xx, 429) made none: nothing to look for.
      const found = ambiguous(error) ? await lookUp(job, state, true) : undefined;
      if (found) {
        Object.assign(job, { remoteId: found, state: "submitted", found: true });
        report.jobs++;
        report.submitted += chunk.count;
        log(`create of a batch failed (${error.message}) but the provider made it: found ${found}; it is collected, not resubmitted`);
        break;
      }
      if (!error.retryable || attempt >= 4) {
        store.markCollected(job.id);
        throw new RubricateError(error.code, `creating a batch of ${chunk.count} request(s) failed: ${error.message}`, { cause: e, status: error.status });
      }
      const wait = error.retryAfterMs ?? Math.min(options.maxPollMs ?? 300_000, (options.pollMs ?? 10_000) * 2 ** attempt);
      log(`create of a batch failed (${error.message}) and no batch was made; trying again in ${Math.round(wait / 1000)} s`);
      await sleep(wait, options.signal);
    }
  }
  // Ctrl-C during the create did not cut it short; the run stops now that the batch is recorded.
  if (options.signal?.aborted) throw new RubricateError("ABORTED", "batch mode interrupted; the submitted batches are collected on the next run");
  return job;
}

/** Errors after which the provider may or may not have acted: timeouts, broken connections, 5xx. */
function ambiguous(error: RubricateError): boolean {
  return error.code === "PROVIDER_TIMEOUT" || error.code === "PROVIDER_NETWORK" || (error.status !== undefined && error.status >= 500);
}

/**
 * Looks for the batch a job's create may have made. Found only with proof (OpenAI: our metadata or
 * input file; Anthropic: the job's nonce in its results). None: asked a few times after an
 * ambiguous failure (the provider may still be making it). Candidates still running: waits for
 * them to end, however long; sending the requests again before would pay twice if one is ours.
 */
async function lookUp(job: BatchJob, state: RunState, patient: boolean): Promise<string | undefined> {
  const { options, api, log } = state;
  const owns = ownerTest(job, options.store);
  let misses = 0;
  let wait = options.pollMs ?? 10_000;
  let told = false;
  for (;;) {
    const hint = { jobId: job.id, fileId: job.fileId, createdAt: job.createdAt, count: job.count, exclude: options.store.remoteIds(options.provider.name, state.baseURL), owns };
    const lookup = await retrying(() => api.find(hint, { signal: options.signal }), state);
    if ("found" in lookup) {
      options.store.markSubmitted(job.id, lookup.found, true);
      state.report.found++;
      return lookup.found;
    }
    if ("none" in lookup) {
      if (++misses >= (patient ? 3 : 1)) return undefined;
      await sleep((options.pollMs ?? 10_000) * misses, options.signal);
      continue;
    }
    if (!told) log(`job ${job.id}: ${lookup.undecided.length} batch(es) made around its create are still running; waiting for them to end to see whether one holds its requests (nothing is sent again meanwhile)`);
    told = true;
    await sleep(wait, options.signal);
    wait = Math.min(options.maxPollMs ?? 300_000, wait * 2);
  }
}

/** Whether a result line is one of the job's requests: by its nonce, or (a job recorded before nonces, OpenAI lines) by its key. */
function ownerTest(job: BatchJob, store: BatchJobStore): (item: BatchResultItem) => boolean {
  let keys: KeySet | undefined;
  return (item) => {
    if (item.nonce !== undefined && job.nonce !== undefined) return item.nonce === job.nonce;
    if (!keys) {
      keys = new KeySet();
      for (const key of store.keys(job.id)) keys.add(key);
    }
    return keys.has(item.customId);
  };
}

/** Waits for a job's batch to end and writes its answers into the cache. */
async function settle(job: BatchJob, state: RunState): Promise<void> {
  const { options, api, report, log } = state;
  const { store } = options;
  let remoteId = job.remoteId;
  if (!remoteId) {
    remoteId = await lookUp(job, state, false);
    if (!remoteId) {
      store.markCollected(job.id);
      log(`job ${job.id}: its create never reached the provider (no batch found); its ${job.count} request(s) are asked again`);
      return;
    }
    job = { ...job, remoteId, found: true };
    log(`found batch ${remoteId}, made by a create whose answer was lost; collecting it instead of resubmitting`);
  }
  let wait = options.pollMs ?? 10_000;
  let status: BatchStatus;
  for (;;) {
    const polled = await gone(() => retrying(() => api.status(remoteId, { signal: options.signal }), state));
    if (polled === GONE || polled.archived) return lose(job, remoteId, polled === GONE ? "the provider no longer knows it (404)" : "its results are archived", state);
    status = polled;
    if (status.state === "ended") break;
    await sleep(wait, options.signal);
    wait = Math.min(options.maxPollMs ?? 300_000, wait * 2);
  }
  log(`batch ${remoteId} ${status.raw}`);
  if (status.raw === "failed") {
    store.markCollected(job.id);
    const errors = status.errors ?? [];
    if (errors.some((e) => e.code === "token_limit_exceeded")) {
      state.sequential = true;
      log(`batch ${remoteId} failed: ${errors[0].message || "enqueued token limit reached"}; its requests go again, one batch at a time`);
      return;
    }
    const reasons = errors.map((e) => `${e.line === undefined ? "" : `line ${e.line}: `}${e.message} (${e.code})`).join("; ");
    throw new RubricateError("BATCH_FAILED", `batch ${remoteId} failed: ${reasons || "the provider gave no reason"}; batch mode stopped, nothing was asked live`);
  }
  const mine = job.found ? ownerTest(job, store) : undefined;
  let matched = 0;
  const read = new KeySet();
  const tries = options.resultTries ?? 3;
  for (let attempt = 1; ; attempt++) {
    const outcome = await gone(() =>
      retrying(async () => {
        // A retry reads the files again from the start; what was read already is skipped.
        for await (const item of api.results(remoteId, { signal: options.signal })) {
          if (!read.add(item.customId)) continue;
          if (mine?.(item)) matched++;
          take(item, state);
        }
      }, state),
    );
    if (outcome !== GONE) break;
    if (attempt >= tries) return lose(job, remoteId, `its result files are gone (404, ${tries} downloads)`, state);
    await sleep((options.pollMs ?? 10_000) * attempt, options.signal);
  }
  if (mine && read.size > 0 && matched === 0) log(`batch ${remoteId} holds none of job ${job.id}'s requests; its answers are kept (valid cache entries) and the job's requests are asked again`);
  store.markCollected(job.id);
}

function take(item: BatchResultItem, state: RunState): void {
  const { options, report, log } = state;
  if (item.response) {
    state.sink.set(item.customId, { response: item.response, createdAt: Date.now() });
    report.succeeded++;
    const u = item.response.usage;
    addUsage(report.usage, { calls: 1, inputTokens: u.inputTokens, outputTokens: u.outputTokens, cachedInputTokens: u.cachedInputTokens, costUsd: options.price ? batchCostUsd(u, options.price, state.api.discount) : 0 });
  } else if (item.outcome === "expired" || item.outcome === "canceled") report.expired++;
  else if (item.error?.permanent) {
    // Asking again would fail the same way: left to the live pass, which reports it on the sample.
    state.rejected.add(item.customId);
    if (report.rejected++ < 3) log(`request ${item.customId.slice(0, 12)}… rejected by the provider: ${item.error.code}: ${item.error.message} (not resubmitted)`);
  } else report.failed++;
}

/** Batch cost of one answer: the discount (default the provider's), and Anthropic cache writes at `cache_write`. */
export function batchCostUsd(usage: TokenUsage, price: BatchPrice, providerDiscount: number): number {
  const writes = usage.cacheWriteTokens ?? 0;
  const live = costUsd(usage, price) + (writes * ((price.cache_write ?? price.input * 1.25) - price.input)) / 1e6;
  return live * (price.batch_discount ?? providerDiscount);
}

function lose(job: BatchJob, remoteId: string, why: string, state: RunState): void {
  state.options.store.markCollected(job.id);
  state.report.lost++;
  if (state.submittedHere.has(job.id) && ++state.lostHere > (state.options.maxLost ?? 1)) {
    throw new RubricateError(
      "BATCH_FAILED",
      `batch ${remoteId}: ${why}, and ${state.lostHere - 1} earlier batch(es) of this run lost theirs the same way; batch mode stopped rather than pay for the same requests again: check that the API key (its workspace or project) can read the batches it creates`,
    );
  }
  state.log(`warning: batch ${remoteId}: ${why}; its unanswered requests are asked again`);
}

const GONE = Symbol("gone");

/** Runs `fn`; a 404 becomes GONE (the batch or its files no longer exist for this key). */
async function gone<T>(fn: () => Promise<T>): Promise<T | typeof GONE> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof RubricateError && e.status === 404) return GONE;
    throw e;
  }
}

/**
 * Retries a poll, lookup or read on 429, 5xx and network errors (the SDKs' own retries are off):
 * p-retry's exponential backoff from `pollMs` up to `maxPollMs`, after any `retry-after` the
 * provider asked for. `maxPollErrors` failures in a row end it.
 */
async function retrying<T>(fn: () => Promise<T>, state: RunState): Promise<T> {
  const { options, log } = state;
  const signal = options.signal;
  try {
    return await pRetry(fn, {
      retries: (options.maxPollErrors ?? 30) - 1,
      minTimeout: options.pollMs ?? 10_000,
      maxTimeout: options.maxPollMs ?? 300_000,
      factor: 2,
      signal,
      shouldRetry: ({ error }) => asRubricateError(error).retryable,
      onFailedAttempt: async ({ error, retriesLeft }) => {
        const e = asRubricateError(error);
        if (!e.retryable || retriesLeft === 0) return;
        log(`${e.message}; trying again`);
        if (e.retryAfterMs) await sleep(e.retryAfterMs, signal);
      },
    });
  } catch (e) {
    if (signal?.aborted) throw new RubricateError("ABORTED", "batch polling aborted");
    throw asRubricateError(e);
  }
}

function asRubricateError(e: unknown): RubricateError {
  return e instanceof RubricateError ? e : new RubricateError("INTERNAL", e instanceof Error ? e.message : String(e), { cause: e });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new RubricateError("ABORTED", "batch polling aborted"));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new RubricateError("ABORTED", "batch polling aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
