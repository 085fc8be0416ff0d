/**
 * The entry of the worker thread that runs a client's checks (a reward server's per-sample
 * criteria) off the event loop: src/checks/off-thread.ts starts it. Built as
 * dist/client-checks-worker.js (tsup.config.ts).
 */
import { isMainThread, workerData } from "node:worker_threads";
import { toRubricateError } from "../errors.js";
import type { Sample, Verdict } from "../types.js";
import { serveRequests, type WorkerChannel } from "./guarded-worker.js";
import { CheckMemo } from "./memo.js";
import { runCheck } from "./run.js";
import type { Check } from "./schema.js";

/** A sample (the view its criteria read) and the client's checks on it. */
export interface ClientChecksRequest {
  sample: Sample;
  checks: Check[];
  /** The input a check reads when it names no `field` (the rubric's `response_field`). */
  defaultField?: string;
}

/** One check's answer, or its error as the code and message a RubricateError carries across threads. */
export type ClientCheckOutcome = { verdict: Verdict } | { error: { code: string; message: string } };

/** Runs a client's checks on one sample, as the main thread would with `fromClient` (RE2 only), sharing their work. */
export async function runClientChecks({ sample, checks, defaultField }: ClientChecksRequest): Promise<ClientCheckOutcome[]> {
  const memo = new CheckMemo();
  const outcomes: ClientCheckOutcome[] = [];
  for (const check of checks) {
    try {
      outcomes.push({ verdict: await runCheck(check, sample, { defaultField, fromClient: true, memo }) });
    } catch (e) {
      const error = toRubricateError(e, "CHECK_FAILED");
      outcomes.push({ error: { code: error.code, message: error.message } });
    }
  }
  return outcomes;
}

// Imported anywhere but as a worker's entry (a test or tool reading every module), it does nothing.
if (!isMainThread && (workerData as { rubricateClientChecks?: boolean } | null)?.rubricateClientChecks) {
  void serveRequests(workerData as WorkerChannel, () => (payload) => runClientChecks(payload as ClientChecksRequest));
}
