import { setFlagsFromString } from "node:v8";

/**
 * V8's optimizing compiler inlines up to 920 bytes of bytecode into each function it optimizes.
 * A CLI run is short, and the large async functions of the scoring path (the judge's vote, the
 * per-sample score) grow into graphs that take TurboFan tens of milliseconds each to compile, on
 * background threads that share a small machine's cores with the run itself: ~0.8 s of CPU for a
 * 2 s run of 2,000 batched calls on two cores. Half that budget cut the process's CPU by ~12 %
 * there and left long runs' CPU per call as it was (BENCHMARKS.md, "The optimizing compiler's share").
 */
export const INLINING_BUDGET_FLAG = "--max-inlined-bytecode-size-cumulative=460";

const INLINING_BUDGET = /^--max[-_]inlined[-_]bytecode[-_]size[-_]cumulative(=|$)/;

/**
 * Halves V8's inlining budget for this process (`INLINING_BUDGET_FLAG`), unless the user set it
 * already (in node's arguments or NODE_OPTIONS): theirs stands. Returns whether it set the flag.
 */
export function limitInlining(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? "", setFlags: (flags: string) => void = setFlagsFromString): boolean {
  if ([...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => INLINING_BUDGET.test(arg))) return false;
  setFlags(INLINING_BUDGET_FLAG);
  return true;
}
