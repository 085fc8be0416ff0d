/**
 * The `math` check's comparisons of formulas, in a worker thread under a time limit
 * (src/checks/guarded-worker.ts says why a worker). The worker is started on the first formula,
 * so importing the check, or comparing plain numbers, loads neither it nor mathjs.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { CompareRequest } from "./compare-answers.js";
import { tsxLoaderURL } from "../../config/tsx-loader.js";
import { GuardedWorker, workerBootstrap, type StartWorker } from "../guarded-worker.js";

/** The worker's heap cap: mathjs and the read references take ~30 MB; an answer built to exhaust memory ends the worker instead of the process. */
const WORKER_HEAP_MB = 256;

let guard: GuardedWorker | undefined;

/** Whether the request's answer equals its reference, or undefined when the comparison computed past `ms`. */
export function compareWithinLimit(request: CompareRequest, ms: number): boolean | undefined {
  const run = (guard ??= new GuardedWorker(startMathWorker)).call(request, ms);
  return run === "over-limit" ? undefined : (run.value as boolean);
}

/** Ends the worker, if one runs (the next formula starts another). */
export function closeMathWorker(): void {
  guard?.close();
}

const startMathWorker: StartWorker = (channel, transferList) => {
  const here = import.meta.url;
  // From the sources (tests, tsx): the TypeScript entry, through tsx's loader registered in the worker.
  const fromSources = here.endsWith(".ts");
  const code = fromSources ? workerBootstrap(new URL("./compare-worker.ts", here).href, tsxLoaderURL(here)) : workerBootstrap(builtEntry(here).href);
  // None of the host's node options: what it preloads (`--import`, `--require`: tsx, an APM agent)
  // has no work in a worker that only reads formulas, and would slow every start of one.
  return new Worker(code, { eval: true, execArgv: [], workerData: { ...channel, rubricateMath: true }, transferList, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
};

/**
 * dist/math-worker.js, from the built file this code is in: a chunk in dist/ itself, or an entry
 * in a folder of it (dist/checks/index.js). The ES module entry serves the CommonJS build too.
 */
function builtEntry(here: string): URL {
  for (const up of ["./", "../", "../../"]) {
    const entry = new URL(`${up}math-worker.js`, here);
    if (existsSync(fileURLToPath(entry))) return entry;
  }
  throw new Error(`the math check's worker (math-worker.js) is missing beside ${fileURLToPath(here)}`);
}
