/**
 * A client's checks (a reward server's per-sample criteria) run in a worker thread of a pool, awaited, under
 * a limit on their CPU: the event loop goes on answering while they run. Pure checks are linear in
 * the text, but not cheap: RE2 falls back to its slowest engine on a pattern whose automaton it
 * cannot cache (`a.{20}x` took ~1.4 s on 10,000 characters of a/b on the 2-core VM), and a client
 * chooses both the pattern and, through its samples, the text.
 */
import { RubricateError, type ErrorCode } from "../errors.js";
import type { Sample, Verdict } from "../types.js";
import type { ClientCheckOutcome, ClientChecksRequest } from "./client-checks-worker.js";
import { GuardedPool } from "./guarded-pool.js";
import { startEntry } from "./guarded-worker.js";
import type { Check } from "./schema.js";

/** CPU one sample's client checks may spend (one call: all its checks of one view). */
export const CLIENT_CHECKS_CPU_MS = 1_000;
/** The wait for the worker to load (tsx compiling the sources in tests, a busy machine), not counted against a sample. */
const WORKER_STARTUP_MS = 60_000;
/** Its heap: a sample is copied there; one built to exhaust it ends the worker, as a check over its limit. */
const WORKER_HEAP_MB = 512;

const startClientWorker = startEntry({ from: import.meta.url, source: "./client-checks-worker.ts", built: "client-checks-worker.js", workerData: { rubricateClientChecks: true }, heapMb: WORKER_HEAP_MB });
/** Workers for client checks: a pool, so one sample's costly checks do not hold every other sample's. */
let pool: GuardedPool | undefined;

/**
 * The verdicts (or errors) of a client's checks on one sample, in order, computed in the worker; a
 * verdict with `forfeit` for each when they ran past `cpuMs` together (the response made them
 * unable to answer: a pitfall counts as hit). Throws CHECK_FAILED when the worker cannot run.
 */
export async function runClientChecksOffThread(sample: Sample, checks: Check[], options: { defaultField?: string; cpuMs?: number } = {}): Promise<(Verdict | RubricateError)[]> {
  const cpuMs = options.cpuMs ?? CLIENT_CHECKS_CPU_MS;
  let run: { value: unknown } | "over-limit";
  try {
    run = await (pool ??= new GuardedPool(startClientWorker, WORKER_STARTUP_MS)).callAsync({ sample, checks, defaultField: options.defaultField } satisfies ClientChecksRequest, cpuMs);
  } catch (e) {
    throw new RubricateError("CHECK_FAILED", `the client's checks could not run in their worker: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (run === "over-limit") {
    const verdict: Verdict = { pass: false, source: "check", forfeit: true, reasoning: `the sample's client checks ran past their limit (${cpuMs} ms of CPU) on this text` };
    return checks.map(() => verdict);
  }
  return (run.value as ClientCheckOutcome[]).map((outcome) => ("verdict" in outcome ? outcome.verdict : new RubricateError(outcome.error.code as ErrorCode, outcome.error.message)));
}
