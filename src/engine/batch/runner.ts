import { RubricateError } from "../../errors.js";
import type { BatchApi, Provider } from "../../providers/types.js";
import { addUsage, emptyUsage, type Usage } from "../../types.js";
import type { Engine } from "../engine.js";
import { costUsd, type TokenPrice } from "../usage.js";
import type { BatchJob, BatchJobStore } from "./jobs.js";
import { DeferredSpill } from "./spill.js";

export interface BatchRunOptions {
  engine: Engine;
  provider: Provider;
  store: BatchJobStore;
  /** Runs one full scoring pass; the engine is in defer mode while it runs. */
  pass: () => Promise<void>;
  price?: TokenPrice;
  /** First poll interval (default 10 s), doubled up to `maxPollMs` (default 5 min). */
  pollMs?: number;
  maxPollMs?: number;
  /** Batches submitted at most (default 5): `when` rounds, parse retries and failed items each need one. */
  maxRounds?: number;
  /** Requests per batch file (default 50,000, OpenAI's limit). */
  maxItems?: number;
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
  /** Paid through the batch API, priced with the judge's `batch_discount`. */
  usage: Usage;
  /** Requests still unanswered when the rounds ran out. */
  leftover: number;
}

/**
 * Answers every judge call a scoring run needs through the provider's batch API, writing the
 * answers into the engine's cache under the same keys live calls use. Jobs are recorded in the
 * store first, so a crash or reboot resumes by collecting them, never by resubmitting.
 * @example await fillCacheByBatch({ engine, provider, store, pass: () => drain(scoreStream(rubric, rows(), { judge })) })
 */
export async function fillCacheByBatch(options: BatchRunOptions): Promise<BatchRunReport> {
  const { engine, provider, store } = options;
  const api = provider.batch;
  if (!api) throw new RubricateError("JUDGE_CONFIG", `provider "${provider.name}" has no batch API; use openai or anthropic, or run without --batch`);
  const baseURL = provider.baseURL ?? "";
  const report: BatchRunReport = { jobs: 0, resumedJobs: 0, submitted: 0, succeeded: 0, failed: 0, expired: 0, usage: emptyUsage(), leftover: 0 };
  const log = options.onEvent ?? (() => undefined);
  const maxRounds = options.maxRounds ?? 5;

  const resumed = store.active(provider.name, baseURL);
  report.resumedJobs = resumed.length;
  if (resumed.length > 0) log(`resuming ${resumed.length} batch job(s) recorded earlier`);
  for (let round = 0; ; round++) {
    for (const job of store.active(provider.name, baseURL)) await collect(job, api, options, report, log);
    const pending = new DeferredSpill(options.maxItems ?? api.maxItems ?? 50_000);
    try {
      engine.setDefer((call) => pending.add(call.key, call.request));
      try {
        await options.pass();
      } finally {
        engine.setDefer(undefined);
      }
      if (pending.size === 0) return report;
      if (round >= maxRounds) {
        report.leftover = pending.size;
        log(`${pending.size} request(s) still unanswered after ${maxRounds} batch rounds; they will be asked live`);
        return report;
      }
      for (const chunk of pending.chunks()) {
        // Recorded before submitting: a crash after this line at worst leaves a job to look for, never a silent resubmit.
        const job = store.create(provider.name, baseURL, await chunk.keys());
        const { id } = await api.submit(chunk.items(), { signal: options.signal, metadata: { rubricate_job: job.id } });
        store.markSubmitted(job.id, id);
        report.jobs++;
        report.submitted += chunk.count;
        log(`submitted batch ${id} with ${chunk.count} request(s)`);
      }
    } finally {
      pending.dispose();
    }
  }
}

async function collect(job: BatchJob, api: BatchApi, options: BatchRunOptions, report: BatchRunReport, log: (e: string) => void): Promise<void> {
  if (!job.remoteId) {
    // The process died between recording and submitting: nothing reached the provider under this job.
    options.store.markCollected(job.id);
    return;
  }
  let wait = options.pollMs ?? 10_000;
  for (;;) {
    const status = await api.status(job.remoteId, { signal: options.signal });
    if (status.state === "ended") {
      log(`batch ${job.remoteId} ${status.raw}`);
      break;
    }
    await sleep(wait, options.signal);
    wait = Math.min(options.maxPollMs ?? 300_000, wait * 2);
  }
  const cache = options.engine.cache;
  const discount = options.price?.batch_discount ?? 1;
  for await (const item of api.results(job.remoteId, { signal: options.signal })) {
    if (item.response) {
      cache.set(item.customId, { response: item.response, createdAt: Date.now() });
      report.succeeded++;
      const u = item.response.usage;
      addUsage(report.usage, { calls: 1, inputTokens: u.inputTokens, outputTokens: u.outputTokens, cachedInputTokens: u.cachedInputTokens, costUsd: options.price ? costUsd(u, options.price) * discount : 0 });
    } else if (item.outcome === "expired" || item.outcome === "canceled") report.expired++;
    else report.failed++;
  }
  options.store.markCollected(job.id);
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
