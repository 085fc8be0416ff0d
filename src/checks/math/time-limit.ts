/**
 * A time limit on a synchronous job (the math check's parse and comparison of untrusted text).
 * A synchronous parse cannot be interrupted from the same thread except by V8's watchdog, which
 * node:vm exposes as a script timeout; the job runs as a call from such a script. The watchdog
 * counts wall-clock time, which on a loaded machine includes the time the process waited for a
 * core: a trivial comparison then "ran past" 200 ms and a right answer earned 0. So the limit is
 * on the job's work: a run the watchdog stopped that used less CPU than the limit runs again with
 * a longer wall-clock allowance; a run that spent half the limit or more computing is over time.
 */
import { Script, createContext } from "node:vm";

interface Guard {
  context: { job: (() => unknown) | undefined; result: unknown };
  script: Script;
}
// Made on the first comparison, not at import (issue 31: ~1 ms that every import paid).
let guard: Guard | undefined;

/** Wall-clock allowances tried, as multiples of the limit, while the CPU spent stays under it. */
const WALL_MULTIPLES = [1, 4, 16];

/** Runs `job` under a wall-clock timeout of `ms`: its result, or `timedOut` when the watchdog stopped it. */
function runGuarded<T>(job: () => T, ms: number): { result: T } | "timedOut" {
  guard ??= { context: createContext({ job: undefined, result: undefined }) as Guard["context"], script: new Script("result = job()") };
  const { context, script } = guard;
  context.job = job;
  try {
    script.runInContext(context, { timeout: Math.max(1, Math.round(ms)) });
    return { result: context.result as T };
  } catch (e) {
    if ((e as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return "timedOut";
    throw e;
  } finally {
    context.job = undefined;
    context.result = undefined;
  }
}

/** CPU time (user + system) of this process since `from`, in milliseconds. */
const cpuMsSince = (from: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
};

/**
 * The job's result, or undefined once it was stopped while computing (a waiting process is given more
 * wall-clock time, up to 16× the limit; the job must be pure, since it may run more than once).
 * @example withTimeLimit(() => compare(a, b), 200) ?? "timeout"
 */
export function withTimeLimit<T>(job: () => T, ms: number): T | undefined {
  for (const multiple of WALL_MULTIPLES) {
    const before = process.cpuUsage();
    const run = runGuarded(job, ms * multiple);
    if (run !== "timedOut") return run.result;
    // Half the limit in CPU is a job that was computing, not waiting (the watchdog's wall clock and
    // the CPU clock drift apart by a few ms even on an idle machine); the process's CPU, other
    // threads included, over-counts the job's, so a doubt ends as over time.
    if (cpuMsSince(before) >= ms / 2) return undefined;
  }
  return undefined;
}
