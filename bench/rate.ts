/**
 * Rate limits honoured over a minute: one judge limited by `rpm`, another by `tpm`, run at the
 * same time against the same server for 60 s. Counts what they sent in the first full minute.
 */
import { scoreStream } from "../src/score/score.js";
import { createJudge } from "../src/judge/create.js";
import { createOpenAIProvider } from "../src/providers/openai.js";
import { round, samples, sleep, tenQuestions, type BenchContext, type BenchResult } from "./lib/common.js";
import { recorded, type CallRecord } from "./lib/recorder.js";
import { startServerChild } from "./lib/server.js";

interface Row {
  judge: string;
  limit: string;
  windowS: number;
  sent: number;
  allowed: number;
  ratio: number;
  within5pct: string;
}

async function drive(url: string, limits: { rpm?: number; tpm?: number }, log: CallRecord[], seconds: number, from: number): Promise<void> {
  const config = { provider: "openai-compatible" as const, base_url: url, model: "bench-judge", max_concurrency: 32, max_retries: 5, ...limits };
  const provider = recorded(createOpenAIProvider({ name: "openai-compatible", baseURL: url }), log);
  const judge = createJudge(config, { provider, cache: null });
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), seconds * 1000);
  try {
    for await (const r of scoreStream(tenQuestions(), samples(1e9, 600, from), { judge, concurrency: 64, signal: stop.signal })) void r;
  } catch (e) {
    if ((e as { code?: string }).code !== "ABORTED") throw e;
  } finally {
    clearTimeout(timer);
    judge.close?.();
  }
}

/** Runs the rate-limit benchmark. */
export async function rate(ctx: BenchContext): Promise<BenchResult<Row>> {
  const window = ctx.quick ? 20 : 60;
  const server = await startServerChild({ latencyMs: 20 });
  const rpm = 1200;
  const tpm = 240_000;
  const rpmLog: CallRecord[] = [];
  const tpmLog: CallRecord[] = [];
  try {
    // A little past the window, so the last calls of the window have settled and been recorded.
    await Promise.all([drive(server.url, { rpm }, rpmLog, window + 2, 0), drive(server.url, { tpm }, tpmLog, window + 2, 5e8)]);
    await sleep(100);
  } finally {
    await server.close();
  }
  const inWindow = (log: CallRecord[]) => {
    const t0 = Math.min(...log.map((c) => c.start));
    return log.filter((c) => c.start < t0 + window * 1000);
  };
  const sentR = inWindow(rpmLog).length;
  const sentT = inWindow(tpmLog).reduce((a, c) => a + c.tokens, 0);
  const allowR = (rpm * window) / 60;
  const allowT = (tpm * window) / 60;
  const rows: Row[] = [
    { judge: "rpm-limited", limit: `rpm ${rpm}`, windowS: window, sent: sentR, allowed: allowR, ratio: round(sentR / allowR, 3), within5pct: Math.abs(sentR / allowR - 1) <= 0.05 ? "yes" : "no" },
    { judge: "tpm-limited", limit: `tpm ${tpm.toLocaleString("en-US")}`, windowS: window, sent: sentT, allowed: allowT, ratio: round(sentT / allowT, 3), within5pct: Math.abs(sentT / allowT - 1) <= 0.05 ? "yes" : "no" },
  ];
  const failed = [...rpmLog, ...tpmLog].filter((c) => !c.ok).length;
  return {
    title: `Rate limits over a ${window}-second run (both judges at once, server latency 20 ms)`,
    rows,
    columns: [
      { label: "judge", value: "judge" },
      { label: "limit", value: "limit" },
      { label: "window s", value: "windowS", numeric: true },
      { label: "sent (requests or tokens)", value: "sent", numeric: true },
      { label: "allowed", value: "allowed", numeric: true },
      { label: "sent ÷ allowed", value: "ratio", numeric: true },
      { label: "within 5%", value: "within5pct" },
    ],
    notes: [
      "Counted by each call's start time, from the first call; tokens are the server's usage (input + output), so the tpm judge's estimates (which reserve max_tokens) are refunded as answers arrive.",
      `calls that failed or were cut by the stop at the end: ${failed}.`,
    ],
  };
}
