/**
 * Library CPU per judged question (the benchmark process's CPU; the judge server runs in its
 * own process) in batched and single mode, and per sample for a rubric of code checks only.
 */
import { score } from "../src/score/score.js";
import { benchJudge, codeOnly, cpuSince, round, samples, tenQuestions, type BenchContext, type BenchResult } from "./lib/common.js";
import { startServerChild } from "./lib/server.js";

interface Row {
  rubric: string;
  mode: string;
  samples: number;
  calls: number;
  usPerQuestion: number;
  usPerCall: number;
  usPerSample: number;
  serverUsPerCall: number | string;
}

/** Runs the CPU benchmark. */
export async function cpu(ctx: BenchContext): Promise<BenchResult<Row>> {
  const rows: Row[] = [];
  const rubric = tenQuestions();
  const server = await startServerChild({});
  try {
    for (const mode of ["batched", "single"] as const) {
      const n = (ctx.quick ? 150 : 600) / (mode === "single" ? 5 : 1);
      const judge = benchJudge(server.url, { max_concurrency: 32, mode }, null);
      await score(rubric, samples(50, 600, 9_000_000), { judge, concurrency: 64 }); // warm-up
      await server.reset();
      const before = judge.engine.stats().usage.calls;
      const t = process.cpuUsage();
      await score(rubric, samples(n), { judge, concurrency: 64 });
      const lib = cpuSince(t);
      const calls = judge.engine.stats().usage.calls - before;
      const srv = await server.stats();
      rows.push({ rubric: "10 LLM questions", mode, samples: n, calls, usPerQuestion: Math.round(lib / (n * 10)), usPerCall: Math.round(lib / calls), usPerSample: Math.round(lib / n), serverUsPerCall: Math.round(srv.cpuMicros / srv.requests) });
      judge.close?.();
    }
  } finally {
    await server.close();
  }
  const code = codeOnly();
  const n = ctx.quick ? 5_000 : 30_000;
  await score(code, samples(1000, 600, 9_000_000), { concurrency: 128 });
  const t = process.cpuUsage();
  const results = await score(code, samples(n), { concurrency: 128 });
  const lib = cpuSince(t);
  if (results.some((r) => r.errors.length > 0)) throw new Error(`code-only rubric errored: ${JSON.stringify(results.find((r) => r.errors.length > 0)?.errors)}`);
  rows.push({ rubric: "10 code checks", mode: "no judge", samples: n, calls: 0, usPerQuestion: round(lib / (n * 10), 1), usPerCall: 0, usPerSample: Math.round(lib / n), serverUsPerCall: "-" });
  return {
    title: "Library CPU (µs) per judged question, per call and per sample (judge answers at once)",
    rows,
    columns: [
      { label: "rubric", value: "rubric" },
      { label: "mode", value: "mode" },
      { label: "samples", value: "samples", numeric: true },
      { label: "calls", value: "calls", numeric: true },
      { label: "µs/question", value: "usPerQuestion", numeric: true },
      { label: "µs/call", value: "usPerCall", numeric: true },
      { label: "µs/sample", value: "usPerSample", numeric: true },
      { label: "server µs/call", value: "serverUsPerCall", numeric: true },
    ],
    notes: [
      "Library CPU = this process's user+system CPU over the run (the server is another process); includes the OpenAI SDK and Node's fetch.",
      "µs/call bounds throughput on one core: 1e6 ÷ µs/call calls per second at most.",
    ],
  };
}
