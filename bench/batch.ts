/**
 * 100,000 judge requests through batch mode end to end (submit, poll, collect into the cache,
 * then a scoring pass of cache hits) against the local batch server in a child process; prints
 * the client's peak memory, and what the process held before the run (modules, SDKs, tsx).
 * Run: npx tsx bench/batch.ts [samples] [openai|anthropic]
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createJudge } from "../src/judge/create.js";
import { fillCacheByBatch } from "../src/engine/batch/runner.js";
import { openBatchJobStore } from "../src/engine/batch/jobs.js";
import { scoreStream } from "../src/score/score.js";
import { parseRubric } from "../src/rubric/load.js";

const total = Number(process.argv[2] ?? 100_000);
const kind = process.argv[3] === "anthropic" ? "anthropic" : "openai";
const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "batch-server-child.ts")], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve));

process.env.RUBRICATE_BENCH_KEY = "sk-bench";
const dir = mkdtempSync(join(tmpdir(), "rubricate-batch-bench-"));
const cache = join(dir, "cache.db");
const rubric = parseRubric("id: bench\ninputs: [response]\ncriteria:\n  - { id: relevant, question: Is the response on topic?, points: 1 }\n", { filename: "bench.yaml" });
const price = { input: 0.4, output: 1.6, batch_discount: 0.5 };
const judge = createJudge({ provider: kind, model: "bench-model", base_url: kind === "openai" ? `${url}/v1` : url, api_key_env: "RUBRICATE_BENCH_KEY", price }, { cache });
function* samples() {
  for (let i = 0; i < total; i++) yield { id: i, response: `Response number ${i} about the topic at hand.` };
}
const store = openBatchJobStore(cache);
const startRssMb = Math.round(process.memoryUsage.rss() / 1e6);
let batchPeakRss = 0;
const probe = setInterval(() => (batchPeakRss = Math.max(batchPeakRss, process.memoryUsage.rss())), 50);
const started = performance.now();
const report = await fillCacheByBatch({
  engine: judge.engine,
  provider: judge.provider,
  store,
  price,
  pollMs: 20,
  pass: async () => {
    for await (const _ of scoreStream(rubric, samples(), { judge })) void _;
  },
});
const batchSeconds = (performance.now() - started) / 1000;
clearInterval(probe);
let scored = 0;
let sum = 0;
for await (const result of scoreStream(rubric, samples(), { judge })) {
  scored++;
  sum += result.reward ?? Number.NaN;
}
const seconds = (performance.now() - started) / 1000;
const peakMb = process.resourceUsage().maxRSS / 1024;
store.close();
judge.close?.();
child.kill("SIGTERM");

const row = {
  provider: kind,
  requests: report.submitted,
  jobs: report.jobs,
  answered: report.succeeded,
  liveCalls: judge.engine.stats().usage.calls,
  scored,
  meanReward: sum / scored,
  batchSeconds: Number(batchSeconds.toFixed(1)),
  totalSeconds: Number(seconds.toFixed(1)),
  startRssMb,
  batchPeakRssMb: Math.round(batchPeakRss / 1e6),
  peakRssMb: Math.round(peakMb),
  costUsdAtBatchPrice: Number(report.usage.costUsd.toFixed(4)),
};
console.table([row]);
mkdirSync(join(import.meta.dirname, "results"), { recursive: true });
writeFileSync(join(import.meta.dirname, "results", "batch.json"), `${JSON.stringify({ bench: "batch", date: new Date().toISOString(), ...row }, null, 2)}\n`);
