/**
 * The entry of the `math` check's worker thread (src/checks/math/guarded-compare.ts starts it):
 * loads mathjs, then answers comparisons. Built as dist/math-worker.js (tsup.config.ts).
 */
import { isMainThread, workerData } from "node:worker_threads";
import { loadMathjs } from "./compare.js";
import { compareRequest, type CompareRequest } from "./compare-answers.js";
import { serveRequests, type WorkerChannel } from "../guarded-worker.js";

// Imported anywhere but as a worker's entry (a test or tool reading every module), it does nothing.
if (!isMainThread && (workerData as { rubricateMath?: boolean } | null)?.rubricateMath) {
  void serveRequests(workerData as WorkerChannel, () => {
    // mathjs loads (and builds its lazily made functions) before the worker says it is ready: no request's limit pays for it.
    loadMathjs();
    return (payload) => compareRequest(payload as CompareRequest);
  });
}
