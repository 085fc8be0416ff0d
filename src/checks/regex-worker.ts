/**
 * The entry of the regex checks' worker thread (src/checks/regex.ts starts it): runs the patterns
 * only JavaScript's backtracking engine can run, and the RE2 tests estimated costly, one test at a
 * time, under the caller's limit. Built as dist/regex-worker.js (tsup.config.ts).
 */
import { isMainThread, workerData } from "node:worker_threads";
import { serveRequests, type WorkerChannel } from "./guarded-worker.js";
import { testOnRe2, type RegexOutcome, type RegexRequest } from "./regex.js";

/** Compiled patterns kept between tests, dropped all at once past this many. */
const COMPILED_LIMIT = 1000;
const compiled = new Map<string, RegExp>();

export function testRequest({ pattern, flags, text, engine }: RegexRequest): RegexOutcome {
  if (engine === "re2") return testOnRe2(pattern, flags, text);
  const key = `${flags}/${pattern}`;
  let re = compiled.get(key);
  if (!re) {
    if (compiled.size >= COMPILED_LIMIT) compiled.clear();
    re = new RegExp(pattern, flags);
    compiled.set(key, re);
  }
  try {
    return re.test(text) ? "match" : "no-match";
  } catch {
    // A RangeError: the backtracking stack overflowed on this text.
    return "overflow";
  }
}

// Imported anywhere but as a worker's entry (a test or tool reading every module), it does nothing.
if (!isMainThread && (workerData as { rubricateRegex?: boolean } | null)?.rubricateRegex) {
  void serveRequests(workerData as WorkerChannel, () => (payload) => testRequest(payload as RegexRequest));
}
