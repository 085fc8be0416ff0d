/**
 * Runs one big `scoreStream` and prints its peak RSS as JSON. Modes: `code N` (10 code checks),
 * `populate N db` (pays a scripted judge for N samples into a SQLite cache), `cached N db`
 * (the same N samples, every answer from that cache).
 */
import { scoreStream } from "../../src/score/score.js";
import { createJudge } from "../../src/judge/create.js";
import { codeOnly, samples, scriptedJudge, tenQuestions } from "./common.js";

const [mode, count, db] = process.argv.slice(2);
const n = Number(count);
let peak = 0;
const probe = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
const t0 = performance.now();
let done = 0;
if (mode === "code") {
  for await (const r of scoreStream(codeOnly(), samples(n), { concurrency: 128 })) {
    if (r.errors.length > 0) throw new Error(JSON.stringify(r.errors));
    done++;
  }
} else {
  const judge = createJudge({ provider: "openai-compatible", base_url: "http://127.0.0.1:9/v1", model: "bench-judge", max_concurrency: 64 }, { provider: scriptedJudge(), cache: db });
  for await (const r of scoreStream(tenQuestions(), samples(n), { judge, concurrency: 128 })) {
    if (r.errors.length > 0) throw new Error(JSON.stringify(r.errors));
    done++;
  }
  const calls = judge.engine.stats().usage.calls;
  if (mode === "cached" && calls !== 0) throw new Error(`the cached run paid ${calls} calls`);
  judge.close?.();
}
clearInterval(probe);
const seconds = (performance.now() - t0) / 1000;
// maxRSS (kB) catches a peak between two probes.
peak = Math.max(peak, process.resourceUsage().maxRSS * 1024);
const kind = mode === "code" ? "10 code checks" : mode === "cached" ? "10 judge questions, all from the SQLite cache" : "populate";
process.stdout.write(JSON.stringify({ kind, samples: done, peakMb: Math.round(peak / 1e6), heapMb: Math.round(process.memoryUsage().heapUsed / 1e6), seconds: Math.round(seconds * 10) / 10, perSecond: Math.round(done / seconds) }));
