/**
 * The `math` check's comparisons of formulas, in a worker thread under a time limit
 * (src/checks/guarded-worker.ts says why a worker). The worker is started on the first formula,
 * so importing the check, or comparing plain numbers, loads neither it nor mathjs.
 */
import type { CompareRequest } from "./compare-answers.js";
import { GuardedWorker, startEntry } from "../guarded-worker.js";

/** The worker's heap cap: mathjs and the read references take ~30 MB; an answer built to exhaust memory ends the worker instead of the process. */
const WORKER_HEAP_MB = 256;

let guard: GuardedWorker | undefined;

/** Whether the request's answer equals its reference, or undefined when the comparison computed past `ms`. */
export function compareWithinLimit(request: CompareRequest, ms: number): boolean | undefined {
  const run = (guard ??= new GuardedWorker(startMathWorker)).call(request, ms);
  return run === "over-limit" ? undefined : (run.value as boolean);
}

const startMathWorker = startEntry({ from: import.meta.url, source: "./compare-worker.ts", built: "math-worker.js", workerData: { rubricateMath: true }, heapMb: WORKER_HEAP_MB });
