/**
 * Shared-cache scale-out: (1) cache lookups/s, SQLite against Redis (a fresh process's view: an
 * empty memory LRU, every answer in the store); (2) bridge samples/s through `POST /get_reward`
 * with one and with three `rubricate serve` replicas, for a code-check rubric (no judge) and for a
 * one-question rubric whose answers are all in the shared Redis cache. Needs redis-server.
 * Writes bench/results/replicas.json.
 * Run: npx tsx bench/replicas.ts [lookups=20000] [samples=40000] [batch=1000] [clientsPerReplica=2]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { RedisCache } from "../src/engine/cache/redis.js";
import { openCache } from "../src/engine/cache/index.js";
import type { CacheEntry } from "../src/engine/types.js";
import { jsonOf, KEY, startServe, type LiveServer } from "../tests/bridge/helpers.js";
import { ROOT, tempDir, writeJudgeFile } from "../tests/helpers/cli.js";
import { startRedis } from "../tests/helpers/redis.js";
import { judgeResponder } from "../src/testing/servers/judge-responder.js";
import { decide } from "../tests/bridge/helpers.js";
import { startOpenAIServer } from "../src/testing/servers/openai-server.js";

const [lookups, samples, batch, clientsPerReplica] = [20_000, 40_000, 1000, 2].map((d, i) => Number(process.argv[2 + i] ?? d));
const load = () => Number(loadavg()[0].toFixed(2));
const loadAtStart = load();
const entry = (i: number): CacheEntry => ({ response: { text: `{"correct": ${i % 2 === 0}}`, finishReason: "stop", usage: { inputTokens: 700, outputTokens: 12, cachedInputTokens: 0 } }, createdAt: Date.now() });
const keys = Array.from({ length: lookups }, (_, i) => `k${i.toString(16).padStart(60, "0")}`);

// (1) Cache lookups per second.
const dir = tempDir("rubricate-replicas-");
const sqlitePath = join(dir, "cache.db");
const filling = openCache({ path: sqlitePath });
keys.forEach((k, i) => filling.set(k, entry(i)));
await filling.close();
const sqlite = openCache({ path: sqlitePath });
let t0 = performance.now();
for (const k of keys) if (!sqlite.get(k)) throw new Error("sqlite miss");
const sqlitePerS = lookups / ((performance.now() - t0) / 1000);
await sqlite.close();

const redis = await startRedis();
const redisUrl = `${redis.url}?prefix=bench`;
const fill = RedisCache.open(redisUrl);
keys.forEach((k, i) => fill.set(k, entry(i)));
await fill.close();
const shared = RedisCache.open(redisUrl, { memoryEntries: lookups });
await shared.ready();
t0 = performance.now();
for (let i = 0; i < keys.length; i += 256) {
  const claims = await Promise.all(keys.slice(i, i + 256).map((k) => shared.claim(k)));
  if (claims.some((c) => !("entry" in c))) throw new Error("redis miss");
}
const redisPerS = lookups / ((performance.now() - t0) / 1000);
t0 = performance.now();
for (const k of keys) if (!shared.get(k)) throw new Error("memory miss");
const memoryPerS = lookups / ((performance.now() - t0) / 1000);
await shared.close();

// (2) Bridge samples per second, 1 and 3 replicas.
const prompt = (i: number) => `<|im_start|>user\nQuestion ${i}: what is the capital of France?<|im_end|>\n<|im_start|>assistant\n`;
const requestBody = (from: number) => {
  const ids = Array.from({ length: batch }, (_, k) => from + k);
  return JSON.stringify({ query: ids.map((i) => `${prompt(i)}${i % 2 ? "Paris." : "Rome, I think."}<|im_end|>`), prompts: ids.map(prompt), labels: ids.map((i) => String(i)) });
};
const bodies = Array.from({ length: Math.ceil(samples / batch) }, (_, r) => requestBody((r * batch) % 4000));

async function drive(servers: LiveServer[]): Promise<{ samplesPerS: number; failures: number }> {
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    servers.flatMap((s) =>
      Array.from({ length: clientsPerReplica }, async () => {
        for (let r = next++; r < bodies.length; r = next++) {
          const res = await fetch(`${s.url}/get_reward`, { method: "POST", headers: { "content-type": "application/json" }, body: bodies[r] });
          const json = (await jsonOf(res)) as { rewards?: number[] };
          if (res.status !== 200 || json.rewards?.length !== batch) failures++;
        }
      }),
    ),
  );
  return { samplesPerS: Math.round((bodies.length * batch) / ((performance.now() - started) / 1000)), failures };
}

const judge = await startOpenAIServer({ respond: judgeResponder(decide), recordBodies: false });
const judgeFile = writeJudgeFile(dir, judge.url, { max_retries: 0, max_concurrency: 64 });
const env = { RUBRICATE_TEST_KEY: KEY };
const runs: Record<string, { replicas: number; samplesPerS: number; failures: number; load: number }> = {};
for (const [name, args] of [
  ["code checks (no judge)", ["--rubric", join(ROOT, "tests/bridge/fixtures/checks.yaml"), "--no-cache"]],
  ["one judge question, answers in Redis", ["--rubric", join(ROOT, "tests/bridge/fixtures/one-question.yaml"), "--judge", judgeFile, "--cache", `${redis.url}?prefix=bridge`]],
] as const) {
  for (const n of [1, 3]) {
    const servers = await Promise.all(Array.from({ length: n }, () => startServe([...args, "--port", "0", "--max-samples", String(batch)], env)));
    await drive(servers.slice(0, 1)); // the judge rubric: every answer paid once, into Redis
    await drive(servers); // every replica warm (JIT, memory LRU) before the measured pass
    const result = await drive(servers);
    runs[`${name}, ${n} replica${n > 1 ? "s" : ""}`] = { replicas: n, ...result, load: load() };
    for (const s of servers) s.child.kill("SIGTERM");
    await Promise.all(servers.map((s) => s.exited));
  }
}
await judge.close();
await redis.stop();

const result = {
  setup: { lookups, samples, batch, clientsPerReplica, protocol: "POST /get_reward, whole batches" },
  cacheLookupsPerSecond: { sqliteFromFile: Math.round(sqlitePerS), redisClaimHit: Math.round(redisPerS), redisMemoryLayer: Math.round(memoryPerS) },
  bridge: runs,
  judgeCalls: judge.stats.requests,
  machine: { cpus: cpus().length, loadAverageAtStart: loadAtStart, loadAverageAtEnd: load() },
};
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/replicas.json", `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
