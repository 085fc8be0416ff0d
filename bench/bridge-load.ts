/**
 * Load on the trainer bridge: 16 concurrent clients × 2,000 OpenRLHF-shaped requests (one
 * sample each, as OpenRLHF's rollout workers send them) against a live `rubricate serve`, with
 * the judge server answering at a fixed latency. Samples repeat (a pool of distinct rollouts), so
 * the cache and in-flight merging must make the judge server see each distinct question once.
 * Reports throughput against the ideal (judge-bound: paid calls × latency / judge concurrency),
 * p50/p99 latency, the server's memory, and writes bench/results/bridge-load.json.
 * Run: npx tsx bench/bridge-load.ts [clients=16] [requests=2000] [distinct=4000] [latencyMs=20]
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { tempDir, writeJudgeFile } from "../tests/helpers/cli.js";
import { decide, jsonOf, KEY, RUBRIC, startServe } from "../tests/bridge/helpers.js";
import { judgeResponder, promptText } from "../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../src/testing/servers/openai-server.js";
import { quantile } from "../src/stats/quantile.js";

const [clients, perClient, distinct, latencyMs] = [16, 2000, 4000, 20].map((d, i) => Number(process.argv[2 + i] ?? d));
const JUDGE_CONCURRENCY = 64;
const loadAtStart = Number(loadavg()[0].toFixed(2));

// The judge server counts each distinct prompt it is asked; a count above 1 is an answer paid twice.
const seen = new Map<string, number>();
const answer = judgeResponder(decide);
const judge = await startOpenAIServer({
  latencyMs,
  recordBodies: false,
  respond: (body) => {
    const key = createHash("sha256").update(promptText(body)).digest("hex");
    seen.set(key, (seen.get(key) ?? 0) + 1);
    return answer(body);
  },
});
const dir = tempDir("rubricate-bridge-load-");
const judgePath = writeJudgeFile(dir, judge.url, { max_concurrency: JUDGE_CONCURRENCY, max_retries: 0 });
const serve = await startServe(["--rubric", RUBRIC, "--judge", judgePath, "--port", "0", "--cache", join(dir, "cache.db")], { RUBRICATE_TEST_KEY: KEY });

const prompt = (i: number) => `<|im_start|>user\nWhat is ${i} times 3?<|im_end|>\n<|im_start|>assistant\n`;
const body = (i: number) => {
  const response = [`${3 * i}, thank you.`, `${3 * i + 1}`, `According to my notes, ${3 * i}.`][i % 3];
  return JSON.stringify({ query: [`${prompt(i)}${response}<|im_end|>`], prompts: [prompt(i)], labels: [String(3 * i)] });
};

// A seeded stream of sample indices per client: repeats across and within clients.
let state = 12345;
const next = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const plans = Array.from({ length: clients }, () => Array.from({ length: perClient }, () => Math.floor(next() * distinct)));
const used = new Set(plans.flat()).size;

let peakRss = 0;
const sampler = setInterval(async () => {
  try {
    const s = await fetch(`${serve.url}/v1/stats`).then(jsonOf);
    peakRss = Math.max(peakRss, s.memory.rssMb);
  } catch {
    /* the server is busy or gone; the next sample will tell */
  }
}, 250);

const latencies: number[] = [];
let failures = 0;
let nullRewards = 0;
const started = performance.now();
await Promise.all(
  plans.map(async (plan) => {
    for (const i of plan) {
      const t0 = performance.now();
      const res = await fetch(`${serve.url}/get_reward`, { method: "POST", headers: { "content-type": "application/json" }, body: body(i) });
      const json = (await jsonOf(res)) as { rewards?: (number | null)[] };
      latencies.push(performance.now() - t0);
      if (res.status !== 200) failures++;
      else if (json.rewards?.[0] === null) nullRewards++;
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
const stats = await fetch(`${serve.url}/v1/stats`).then(jsonOf);
peakRss = Math.max(peakRss, stats.memory.rssMb);
serve.child.kill("SIGTERM");
await serve.exited;
await judge.close();

const requests = clients * perClient;
const paidCalls = judge.stats.requests;
const twice = [...seen.values()].filter((n) => n > 1).length;
// Ideal: the judge is the only cost. Every paid call takes `latencyMs` and holds one judge slot and
// one waiting client (a client's requests are sequential); cache hits are free. So the run takes at
// least paid calls × latency / min(judge slots, clients).
const idealSeconds = (paidCalls * latencyMs) / 1000 / Math.min(JUDGE_CONCURRENCY, clients);
const sorted = [...latencies].sort((a, b) => a - b);
const result = {
  setup: { clients, requestsPerClient: perClient, requests, distinctSamplesInPlan: used, judgeLatencyMs: latencyMs, judgeConcurrency: JUDGE_CONCURRENCY, protocol: "POST /get_reward, one sample per request" },
  throughput: { requestsPerSecond: Math.round(requests / seconds), idealRequestsPerSecond: Math.round(requests / idealSeconds), ratioOfIdeal: Number((idealSeconds / seconds).toFixed(3)), seconds: Number(seconds.toFixed(2)), idealSeconds: Number(idealSeconds.toFixed(2)) },
  latencyMs: { p50: Number(quantile(sorted, 0.5)!.toFixed(2)), p99: Number(quantile(sorted, 0.99)!.toFixed(2)), max: Number(sorted[sorted.length - 1].toFixed(2)) },
  memory: { serverPeakRssMb: peakRss, serverFinalRssMb: stats.memory.rssMb, serverHeapUsedMb: stats.memory.heapUsedMb },
  // Server CPU per request: what the bridge itself costs, whatever else the machine is doing.
  serverCpu: { totalMs: stats.cpu.userMs + stats.cpu.systemMs, msPerRequest: Number(((stats.cpu.userMs + stats.cpu.systemMs) / requests).toFixed(3)) },
  judge: { paidCalls, distinctPrompts: seen.size, promptsPaidTwice: twice, serverCalls: stats.judge.calls, serverCacheHits: stats.judge.cacheHits, merged: stats.judge.merged },
  outcomes: { httpFailures: failures, nullRewards },
  // The machine is shared (2 cores); a high load average means the ratio understates the bridge.
  machine: { cpus: cpus().length, loadAverageAtStart: loadAtStart, loadAverageAtEnd: Number(loadavg()[0].toFixed(2)) },
};
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/bridge-load.json", `${JSON.stringify(result, null, 2)}\n`);
console.log(`bridge load: ${clients} clients × ${perClient} requests (${used} distinct samples), judge ${latencyMs} ms × ${JUDGE_CONCURRENCY} slots`);
console.log(`throughput ${result.throughput.requestsPerSecond} req/s, ideal ${result.throughput.idealRequestsPerSecond} req/s: ${result.throughput.ratioOfIdeal} of ideal (${result.throughput.seconds} s vs ${result.throughput.idealSeconds} s)`);
console.log(`latency p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms; server RSS peak ${peakRss} MiB; server CPU ${result.serverCpu.msPerRequest} ms per request`);
console.log(`judge server: ${paidCalls} calls for ${seen.size} distinct prompts, ${twice} paid twice; server counted ${stats.judge.calls} calls, ${stats.judge.cacheHits} cache hits (${stats.judge.merged} merged in flight)`);
console.log(`failures ${failures}, null rewards ${nullRewards}; load average ${loadAtStart} → ${result.machine.loadAverageAtEnd} on ${result.machine.cpus} cores`);
if (twice > 0 || failures > 0 || paidCalls !== stats.judge.calls) process.exitCode = 1;
