/**
 * Throughput against a peer, side by side in one run: rubricate's single mode (one call per
 * question) and autoevals 0.3.0's ClosedQA (one call per question, its way) on the same fake
 * judge (50 ms latency, its own process), 10 questions per sample, at concurrency 64 and 16. Each
 * figure is a ratio of the ideal, calls × latency ÷ concurrency, so 1.0 means no time lost to the
 * library's own work. A third row, the floor, sends rubricate's own requests from a bare node:http
 * client (bench/lib/floor.ts): the ratio the server and the machine allow.
 *
 * autoevals is not a dependency (its `engines` asks for pnpm; npm installs and runs it with a
 * warning). Install it beside the benchmarks, once:
 *   npm install --prefix bench/peer --engine-strict=false --no-save autoevals@0.3.0
 * or point RUBRICATE_BENCH_PEER_DIR at a folder where it is installed. Without it, its rows say so.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import pLimit from "p-limit";
import { score } from "../src/score/score.js";
import type { Sample } from "../src/types.js";
import { PEER_DIR, benchJudge, peerMissing, round, samples, tenQuestions, type BenchContext, type BenchResult } from "./lib/common.js";
import { bareClientRun, judgeBodies } from "./lib/floor.js";
import { assertKeptConcurrency, startServerChild } from "./lib/server.js";

const LATENCY_MS = 50;
const FLOOR = "floor: bare node:http, same requests, no library";

interface Row {
  library: string;
  concurrency: number;
  samples: number;
  calls: number;
  idealS: number | string;
  actualS: number | string;
  ratio: number | string;
}

/** The parts of autoevals 0.3.0 (and the openai it ships with) the run uses. */
interface Autoevals {
  ClosedQA(args: { input: string; output: string; criteria: string; client: unknown; model: string }): Promise<{ score: number | null }>;
  OpenAI: new (options: { baseURL: string; apiKey: string; maxRetries: number }) => unknown;
}

function loadAutoevals(): Autoevals | string {
  const missing = peerMissing();
  if (missing) return missing;
  const load = createRequire(join(PEER_DIR, "package.json"));
  const autoevals = load("autoevals") as Omit<Autoevals, "OpenAI">;
  // autoevals' own openai, so the peer runs on the SDK version it ships with.
  const { OpenAI } = createRequire(load.resolve("autoevals"))("openai") as Pick<Autoevals, "OpenAI">;
  return { ClosedQA: autoevals.ClosedQA, OpenAI };
}

/** Runs the peer throughput benchmark. */
export async function peer(ctx: BenchContext): Promise<BenchResult<Row>> {
  const rubric = tenQuestions();
  const questions = rubric.criteria.map((c) => ("question" in c ? String(c.question) : "")).filter(Boolean);
  const autoevals = loadAutoevals();
  const server = await startServerChild({ latencyMs: LATENCY_MS });
  const rows: Row[] = [];
  const n = ctx.quick ? 200 : 2000;
  let from = 0;
  const ideal = (calls: number, c: number) => (calls * LATENCY_MS) / c / 1000;
  try {
    for (const c of [64, 16]) {
      const count = c === 64 ? n : Math.round(n / 4);
      // rubricate, single mode: one call per question, the engine's scheduler at concurrency c.
      const judge = benchJudge(server.url, { max_concurrency: c, mode: "single" }, null);
      await score(rubric, samples(c, 600, (from += 1_000_000)), { judge, concurrency: c }); // warm-up
      const before = judge.engine.stats().usage.calls;
      await server.reset();
      let t0 = performance.now();
      await score(rubric, samples(count, 600, (from += 1_000_000)), { judge, concurrency: c });
      let actual = (performance.now() - t0) / 1000;
      assertKeptConcurrency(await server.stats(), c, `rubricate at concurrency ${c}`);
      const calls = judge.engine.stats().usage.calls - before;
      rows.push({ library: "rubricate (single mode)", concurrency: c, samples: count, calls, idealS: round(ideal(calls, c), 2), actualS: round(actual, 2), ratio: round(ideal(calls, c) / actual, 3) });
      judge.close?.();

      // The floor: the same requests, built before the clock starts, from a bare node:http client.
      const bodies = await judgeBodies(rubric, samples(count, 600, (from += 1_000_000)), "single");
      await bareClientRun(server.url, bodies.slice(0, c * 10), c); // warm-up
      await server.reset();
      actual = await bareClientRun(server.url, bodies, c);
      assertKeptConcurrency(await server.stats(), c, `the floor at concurrency ${c}`);
      rows.push({ library: FLOOR, concurrency: c, samples: count, calls: bodies.length, idealS: round(ideal(bodies.length, c), 2), actualS: round(actual, 2), ratio: round(ideal(bodies.length, c) / actual, 3) });

      if (typeof autoevals === "string") {
        rows.push({ library: "autoevals 0.3.0 ClosedQA", concurrency: c, samples: count, calls: 0, idealS: "-", actualS: "-", ratio: autoevals });
        continue;
      }
      // autoevals: one shared client (its documented `client` option), c calls in flight.
      const client = new autoevals.OpenAI({ baseURL: server.url, apiKey: "bench", maxRetries: 5 });
      const limit = pLimit(c);
      const run = async (list: Iterable<Sample>) => {
        const jobs: Promise<unknown>[] = [];
        for (const s of list) for (const criteria of questions) jobs.push(limit(() => autoevals.ClosedQA({ input: String(s.question), output: String(s.response), criteria, client, model: "bench-judge" })));
        const results = (await Promise.all(jobs)) as { score: number | null }[];
        if (results.some((r) => r.score !== 1)) throw new Error("autoevals: a ClosedQA call did not read the fake judge's Y");
        return results.length;
      };
      await run(samples(c, 600, (from += 1_000_000))); // warm-up
      await server.reset();
      t0 = performance.now();
      const peerCalls = await run(samples(count, 600, (from += 1_000_000)));
      actual = (performance.now() - t0) / 1000;
      assertKeptConcurrency(await server.stats(), c, `autoevals at concurrency ${c}`);
      rows.push({ library: "autoevals 0.3.0 ClosedQA", concurrency: c, samples: count, calls: peerCalls, idealS: round(ideal(peerCalls, c), 2), actualS: round(actual, 2), ratio: round(ideal(peerCalls, c) / actual, 3) });
    }
  } finally {
    await server.close();
  }
  return {
    title: `Throughput against autoevals: 10 questions per sample, judge latency ${LATENCY_MS} ms, ratio of ideal`,
    rows,
    columns: [
      { label: "library", value: "library" },
      { label: "concurrency", value: "concurrency", numeric: true },
      { label: "samples", value: "samples", numeric: true },
      { label: "calls", value: "calls", numeric: true },
      { label: "ideal s", value: "idealS", numeric: true },
      { label: "actual s", value: "actualS", numeric: true },
      { label: "ratio of ideal", value: "ratio", numeric: true },
    ],
    notes: [
      "Target (issue 31): rubricate single mode ≥ 0.95 of ideal at concurrency 64 on 2,000 samples. All rows run in this process against one server process, one after the other.",
      "The floor row posts rubricate's own request bodies (captured before the clock starts) from a bare node:http keep-alive client that only sends them and parses the answers (bench/floor-client.mjs): what the fake judge, the loopback and Node's http leave of the ideal on this machine in this run.",
    ],
  };
}
