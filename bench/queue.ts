/**
 * Workers on a queue (`score --queue` + `rubricate worker`), on a real redis-server and a fake
 * judge with fixed latency:
 * (1) samples/s of 1, 2 and 4 worker processes against a local one-process `score` of the same
 *     samples, and against the ideal (workers × judge concurrency / latency): on a 2-core machine
 *     the workers share the cores, so the ratio to the ideal shows where the CPU runs out;
 * (2) the queue's overhead per chunk: a checks-only rubric (no judge, so nearly all time is the
 *     queue's), chunk size 1 against chunk size 100, per chunk.
 * Needs redis-server. Writes bench/results/queue.json.
 * Run: npx tsx bench/queue.ts [samples=600] [latencyMs=50] [concurrency=8]
 */
import { type ChildProcess } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { ROOT, runCli, spawnCli, tempDir, writeJsonl, writeJudgeFile } from "../tests/helpers/cli.js";
import { startRedis } from "../tests/helpers/redis.js";
import { judgeResponder } from "../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../src/testing/servers/openai-server.js";

const [n, latencyMs, concurrency] = [600, 50, 8].map((d, i) => Number(process.argv[2 + i] ?? d));
const load = () => Number(loadavg()[0].toFixed(2));
const KEY = { RUBRICATE_TEST_KEY: "sk-bench" };
const redis = await startRedis();
const judge = await startOpenAIServer({ respond: judgeResponder(() => true), latencyMs });

function project(rows: number, rubric = "tests/bridge/fixtures/one-question.yaml") {
  const dir = tempDir("rubricate-bench-queue-");
  copyFileSync(join(ROOT, rubric), join(dir, "rubric.yaml"));
  writeJudgeFile(dir, judge.url, { max_retries: 0, max_concurrency: concurrency });
  writeJsonl(dir, "samples.jsonl", Array.from({ length: rows }, (_, i) => ({ question: `bench ${dir} ${i}?`, answer: String(i), response: `It is ${i}.` })));
  return dir;
}

async function workers(dir: string, count: number): Promise<ChildProcess[]> {
  const started = Array.from({ length: count }, () => spawnCli(["worker", "--queue", redis.url, "--chunks", "2"], { cwd: dir, env: KEY }));
  await Promise.all(started.map((c) => new Promise<void>((ready) => c.stderr!.on("data", (d: Buffer) => String(d).includes("worker on") && ready()))));
  return started;
}

async function timed(args: string[], dir: string): Promise<number> {
  const t0 = performance.now();
  const r = await runCli(args, { cwd: dir, env: KEY });
  if (r.code !== 0) throw new Error(`${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return (performance.now() - t0) / 1000;
}

const score = (extra: string[]) => ["score", "rubric.yaml", "samples.jsonl", "-o", "out.jsonl", "-q", ...extra];
const rows: Record<string, unknown>[] = [];
const loadAtStart = load();

const localDir = project(n);
const localS = await timed(score(["--judge", "judge.yaml", "--no-cache", "-c", String(concurrency * 4)]), localDir);
const ideal1 = (concurrency * 1000) / latencyMs;
rows.push({ setup: "local score (1 process)", seconds: localS, perS: n / localS, ideal: ideal1, ratio: n / localS / ideal1 });
for (const count of [1, 2, 4]) {
  const dir = project(n);
  const running = await workers(dir, count);
  const s = await timed(score(["--judge", "judge.yaml", "--queue", redis.url, "--chunk-size", "25"]), dir);
  for (const w of running) w.kill("SIGTERM");
  await Promise.all(running.map((w) => new Promise((r) => w.once("exit", r))));
  const ideal = ideal1 * count;
  rows.push({ setup: `--queue, ${count} worker(s)`, seconds: s, perS: n / s, ideal, ratio: n / s / ideal });
}

// Overhead per chunk: no judge, so a chunk's time is the queue's round trips plus the checks.
const checksRubric = "bench/fixtures/checks-only.yaml";
const overhead: Record<string, number> = {};
for (const size of [1, 100]) {
  const dir = project(300, checksRubric);
  const running = await workers(dir, 1);
  const s = await timed(score(["--queue", redis.url, "--chunk-size", String(size)]), dir);
  for (const w of running) w.kill("SIGTERM");
  await Promise.all(running.map((w) => new Promise((r) => w.once("exit", r))));
  overhead[size] = s;
}
const perChunkMs = ((overhead[1] - overhead[100]) / (300 - 3)) * 1000;

await judge.close();
await redis.stop();
const table = [
  "| setup | seconds | samples/s | ideal/s | ratio to ideal | ratio to the local run |",
  "| --- | --- | --- | --- | --- | --- |",
  ...rows.map((r) => `| ${r.setup} | ${(r.seconds as number).toFixed(2)} | ${(r.perS as number).toFixed(0)} | ${(r.ideal as number).toFixed(0)} | ${(r.ratio as number).toFixed(2)} | ${((r.perS as number) / (rows[0].perS as number)).toFixed(2)} |`),
];
const text = `${table.join("\n")}\n\nqueue overhead per chunk: ${perChunkMs.toFixed(1)} ms (300 checks-only samples: chunk size 1 ${overhead[1].toFixed(2)} s, chunk size 100 ${overhead[100].toFixed(2)} s)\n${n} samples, judge latency ${latencyMs} ms, max_concurrency ${concurrency} per process; ${cpus()[0]?.model}, ${cpus().length} cores; load average ${loadAtStart} at start, ${load()} at end\n`;
process.stdout.write(text);
mkdirSync(join(ROOT, "bench/results"), { recursive: true });
writeFileSync(join(ROOT, "bench/results/queue.json"), `${JSON.stringify({ rows, overhead, perChunkMs, n, latencyMs, concurrency, loadAtStart, loadAtEnd: load() }, null, 2)}\n`);
