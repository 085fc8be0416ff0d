/**
 * Runs the benchmarks: `tsx bench/run.ts [name...] [--quick]`. Each prints a markdown table and
 * writes `bench/results/<name>.json`. See BENCHMARKS.md for the latest figures.
 */
import { machine, report, type BenchContext, type BenchResult } from "./lib/common.js";
import { cache } from "./cache.js";
import { checks } from "./checks.js";
import { codeTests } from "./code-tests.js";
import { cli } from "./cli.js";
import { cpu } from "./cpu.js";
import { math } from "./math.js";
import { rate } from "./rate.js";
import { sessions } from "./sessions.js";
import { sandbox } from "./sandbox.js";
import { storm } from "./storm.js";
import { throughput } from "./throughput.js";
import { tokens } from "./tokens.js";
import { prompt } from "./prompt.js";
import { peer } from "./peer.js";
import { cliBatched } from "./cli-batched.js";

type Bench = (ctx: BenchContext) => Promise<BenchResult<any>>;

/** Every benchmark, in the order `npm run bench` runs them. */
export const BENCHMARKS: Record<string, Bench> = {
  throughput,
  peer,
  "cli-batched": cliBatched,
  cpu,
  tokens,
  prompt,
  cache,
  rate,
  storm,
  cli,
  sessions,
  sandbox,
  checks,
  math,
  "code-tests": codeTests,
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const names = args.filter((a) => !a.startsWith("--"));
  const unknown = names.filter((n) => !(n in BENCHMARKS));
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark(s): ${unknown.join(", ")}; known: ${Object.keys(BENCHMARKS).join(", ")}\n`);
    process.exit(2);
  }
  const m = machine();
  process.stdout.write(`# rubricate benchmarks${quick ? " (--quick)" : ""}\n\n${m.cpu}, ${m.cores} cores, Node ${m.node}, ${m.platform}; load average ${m.loadavg.join(" ")} at start (other work on the machine skews CPU-bound figures)\n`);
  const t0 = performance.now();
  for (const name of names.length > 0 ? names : Object.keys(BENCHMARKS)) {
    const started = performance.now();
    const result = await BENCHMARKS[name]({ quick });
    report(name, result, { quick }, (performance.now() - started) / 1000);
    process.stdout.write(`\n(${name}: ${((performance.now() - started) / 1000).toFixed(0)} s, load average now ${machine().loadavg.join(" ")})\n`);
  }
  process.stdout.write(`\ntotal ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
}

await main();
