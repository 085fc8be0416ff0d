/**
 * Warm cache hits per second at each level, from a bare memory lookup to a fully cached
 * `score()`; and the peak memory (RSS, in a child process) of a 100,000-sample × 10-criteria
 * run: code checks, and judge answers all served from a SQLite cache.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteCache } from "../src/engine/cache/sqlite.js";
import { MemoryCache } from "../src/engine/cache/memory.js";
import { score } from "../src/score/score.js";
import { createJudge } from "../src/judge/create.js";
import { buildJudgeRequest } from "../src/judge/prompt.js";
import type { CacheEntry } from "../src/engine/types.js";
import { round, samples, scriptedJudge, tenQuestions, type BenchContext, type BenchResult } from "./lib/common.js";

/** Re-exported for other benchmarks (bench/distill.ts) that import it from here. */
export { scriptedJudge } from "./lib/common.js";

interface Row {
  level: string;
  lookups: number;
  perSecond: number;
  usPerLookup: number;
}

function timeLoop(seconds: number, fn: (i: number) => void): { n: number; s: number } {
  let n = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  while (performance.now() < end) for (let k = 0; k < 256; k++) fn(n++);
  return { n, s: (performance.now() - t0) / 1000 };
}

const row = (level: string, n: number, s: number): Row => ({ level, lookups: n, perSecond: Math.round(n / s), usPerLookup: round((s * 1e6) / n, 2) });

/** Runs the cache benchmark. */
export async function cache(ctx: BenchContext): Promise<BenchResult<Row>> {
  const dir = mkdtempSync(join(tmpdir(), "rubricate-bench-cache-"));
  const rows: Row[] = [];
  const secs = ctx.quick ? 0.5 : 1.5;
  try {
    const entry: CacheEntry = { response: { text: '{"answers":[]}', finishReason: "stop", usage: { inputTokens: 900, outputTokens: 120, cachedInputTokens: 0 } }, createdAt: 1 };
    const keys = Array.from({ length: 5000 }, (_, i) => `${i.toString(16).padStart(64, "0")}`);
    const mem = new MemoryCache(10_000);
    for (const k of keys) mem.set(k, entry);
    let r = timeLoop(secs, (i) => mem.get(keys[i % keys.length]));
    rows.push(row("memory LRU get", r.n, r.s));
    const sqlite = SqliteCache.open(join(dir, "raw.db"));
    for (const k of keys) sqlite.set(k, entry);
    r = timeLoop(secs, (i) => sqlite.get(keys[i % keys.length]));
    rows.push(row("SQLite get (memory layer cold)", r.n, r.s));
    sqlite.close();

    // The engine: key hashing of a real judge request + layered lookup, with the judge's own key parts.
    const rubric = tenQuestions();
    const provider = scriptedJudge();
    const judge = createJudge({ provider: "openai-compatible", base_url: "http://127.0.0.1:9/v1", model: "bench-judge" }, { provider, cache: join(dir, "judge.db") });
    const warm = ctx.quick ? 1000 : 2000;
    const set = Array.from(samples(warm, 600));
    await score(rubric, set, { judge, concurrency: 64 }); // pays (scripted) and caches every answer
    const questions = rubric.criteria.map((c) => ({ id: c.id, question: c.question!.replace("{{question}}", String(set[0].question)), version: c.version }));
    const requests = set.map((s) => buildJudgeRequest(rubric, s, questions, true, { model: "bench-judge", temperature: 0, maxTokens: 1024, logprobs: false, structuredOutput: true }));
    const engine = judge.engine;
    const keyExtra = { attempt: 0, versions: questions.map((q) => q.version ?? null) };
    const paidBefore = engine.stats().usage.calls;
    let t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < secs * 1000) {
      for (const req of requests) {
        const { cached } = await engine.complete(provider, req, { voteIndex: 0, keyExtra });
        if (!cached) throw new Error("engine.complete missed: the benchmark's key parts differ from the judge's");
        n++;
      }
    }
    if (engine.stats().usage.calls !== paidBefore) throw new Error("warm lookups made calls");
    rows.push(row("engine.complete hit (key hash + memory layer)", n, (performance.now() - t0) / 1000));

    t0 = performance.now();
    n = 0;
    const before = judge.engine.stats().usage.calls;
    while (performance.now() - t0 < secs * 1000) {
      await score(rubric, set, { judge, concurrency: 64 });
      n += set.length;
    }
    const s = (performance.now() - t0) / 1000;
    if (judge.engine.stats().usage.calls !== before) throw new Error("warm score() made calls");
    rows.push(row("score(), 10 questions from cache: samples", n, s));
    rows.push(row("score(), 10 questions from cache: criteria", n * 10, s));
    judge.close?.();

    const mem100k = await peakMemory(dir, ctx.quick ? 20_000 : 100_000);
    const target = rows.find((x) => x.level.startsWith("engine.complete"))!.perSecond;
    return {
      title: "Cache: warm-hit lookups per second",
      rows,
      columns: [
        { label: "level", value: "level" },
        { label: "lookups", value: "lookups", numeric: true },
        { label: "lookups/s", value: "perSecond", numeric: true },
        { label: "µs/lookup", value: "usPerLookup", numeric: true },
      ],
      notes: [
        `target: warm cache ≥ 50,000 lookups/s (a lookup = one engine.complete cache hit: key hash + layered get) — ${target >= 50_000 ? "met" : "NOT met"} (${target.toLocaleString("en-US")}).`,
        ...mem100k.map((m) => `peak RSS, ${m.samples.toLocaleString("en-US")} samples × 10 criteria (${m.kind}): ${m.peakMb} MB (heap used at end ${m.heapMb} MB, ${m.seconds} s, ${m.perSecond.toLocaleString("en-US")} samples/s)`),
      ],
      extra: { memory: mem100k },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface MemoryRun {
  kind: string;
  samples: number;
  peakMb: number;
  heapMb: number;
  seconds: number;
  perSecond: number;
}

const CHILD = fileURLToPath(new URL("./lib/memory-child.ts", import.meta.url));

function child(args: string[]): Promise<MemoryRun> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--import", "tsx", CHILD, ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.on("close", (code) => (code === 0 ? resolve(JSON.parse(out) as MemoryRun) : reject(new Error(`memory child exited ${code}: ${out}`))));
  });
}

async function peakMemory(dir: string, n: number): Promise<MemoryRun[]> {
  const code = await child(["code", String(n)]);
  const db = join(dir, "mem.db");
  await child(["populate", String(n), db]);
  const cached = await child(["cached", String(n), db]);
  return [code, cached];
}

