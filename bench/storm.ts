/**
 * Recovery after a 429 storm: a judge at concurrency 16 against a 50 ms server; the server then
 * answers every request with 429 (retry-after 1 s) for 30 s; how long after the storm until
 * throughput is back to 90% of what it was before.
 */
import { scoreStream } from "../src/score/score.js";
import { createJudge } from "../src/judge/create.js";
import { createOpenAIProvider } from "../src/providers/openai.js";
import { round, samples, sleep, tenQuestions, type BenchContext, type BenchResult } from "./lib/common.js";
import { recorded, type CallRecord } from "./lib/recorder.js";
import { startServerChild } from "./lib/server.js";

interface Row {
  phase: string;
  seconds: number;
  okCallsPerS: number;
  rejected429: number;
}

/** Runs the 429-storm benchmark. */
export async function storm(ctx: BenchContext): Promise<BenchResult<Row>> {
  const before = ctx.quick ? 5 : 8;
  const stormS = ctx.quick ? 10 : 30;
  const maxAfter = 45;
  const server = await startServerChild({ latencyMs: 50 });
  const log: CallRecord[] = [];
  const provider = recorded(createOpenAIProvider({ name: "openai-compatible", baseURL: server.url }), log);
  // Enough retries that no sample fails during the storm: the benchmark is about recovery.
  const judge = createJudge({ provider: "openai-compatible", base_url: server.url, model: "bench-judge", max_concurrency: 16, max_retries: 100, timeout_ms: 30_000 }, { provider, cache: null });
  const stop = new AbortController();
  let errored = 0;
  const run = (async () => {
    try {
      for await (const r of scoreStream(tenQuestions(), samples(1e9), { judge, concurrency: 64, signal: stop.signal })) if (r.errors.length > 0) errored++;
    } catch (e) {
      if ((e as { code?: string }).code !== "ABORTED") throw e;
    }
  })();
  const okIn = (a: number, b: number) => log.filter((c) => c.ok && c.end >= a && c.end < b).length;
  let recovery: number | undefined;
  let t0 = 0;
  let stormStart = 0;
  let stormEnd = 0;
  try {
    await sleep(1000);
    t0 = Date.now();
    await sleep(before * 1000);
    const baseline = okIn(t0, Date.now()) / before;
    await server.set({ rates: { "429": 1 }, retryAfterSeconds: 1 });
    stormStart = Date.now();
    await sleep(stormS * 1000);
    await server.set({ rates: {} });
    stormEnd = Date.now();
    // Recovered: the first 1-second window after the storm with ≥ 90% of the baseline's successes.
    while (Date.now() - stormEnd < maxAfter * 1000 && recovery === undefined) {
      await sleep(250);
      for (let t = stormEnd; t + 1000 <= Date.now(); t += 100) {
        if (okIn(t, t + 1000) >= 0.9 * baseline) {
          recovery = (t + 1000 - stormEnd) / 1000;
          break;
        }
      }
    }
    await sleep(2000);
  } finally {
    stop.abort();
    await run;
    judge.close?.();
    await server.close();
  }
  const rejected = (a: number, b: number) => log.filter((c) => !c.ok && c.end >= a && c.end < b).length;
  const end = log.length ? Math.max(...log.map((c) => c.end)) : stormEnd;
  const rows: Row[] = [
    { phase: "before", seconds: before, okCallsPerS: round(okIn(t0, stormStart) / before, 1), rejected429: rejected(t0, stormStart) },
    { phase: "storm (all 429)", seconds: stormS, okCallsPerS: round(okIn(stormStart, stormEnd) / stormS, 1), rejected429: rejected(stormStart, stormEnd) },
    { phase: "after", seconds: round((end - stormEnd) / 1000, 1), okCallsPerS: round(okIn(stormEnd, end) / ((end - stormEnd) / 1000), 1), rejected429: rejected(stormEnd, end) },
  ];
  return {
    title: `Recovery after a ${stormS}-second 429 storm (judge concurrency 16, 50 ms latency, retry-after 1 s)`,
    rows,
    columns: [
      { label: "phase", value: "phase" },
      { label: "seconds", value: "seconds", numeric: true },
      { label: "successful calls/s", value: "okCallsPerS", numeric: true },
      { label: "429s", value: "rejected429", numeric: true },
    ],
    notes: [
      `time to full throughput (first 1 s window ≥ 90% of before): ${recovery === undefined ? `not within ${maxAfter} s` : `${recovery} s`} after the storm ended.`,
      `samples that ended in error: ${errored} (max_retries 100).`,
    ],
    extra: { recoverySeconds: recovery ?? null, errored },
  };
}
