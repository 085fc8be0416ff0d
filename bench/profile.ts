/**
 * The throughput benchmark's concurrency-64 case alone, for a CPU profile of the hot path:
 *   node --import tsx --cpu-prof --cpu-prof-dir=bench/results/profiles bench/profile.ts [default|global-fetch] [batched|single]
 *   node bench/lib/profile-summary.mjs bench/results/profiles/<file>.cpuprofile
 */
import { score } from "../src/score/score.js";
import { createJudge } from "../src/judge/create.js";
import { createOpenAIProvider } from "../src/providers/openai.js";
import { cpuSince, samples, tenQuestions } from "./lib/common.js";
import { startServerChild } from "./lib/server.js";

const transport = process.argv[2] ?? "default";
/** batched: one call per sample; single: one call per question (ten per sample). */
const mode = process.argv[3] === "single" ? "single" : "batched";
const server = await startServerChild({ latencyMs: 50 });
const provider = createOpenAIProvider({ name: "openai-compatible", baseURL: server.url, ...(transport === "global-fetch" ? { fetch: globalThis.fetch } : {}) });
const judge = createJudge({ provider: "openai-compatible", base_url: server.url, model: "bench-judge", max_concurrency: 64, mode }, { provider, cache: null });
const rubric = tenQuestions();
const perSample = mode === "single" ? rubric.criteria.length : 1;
await score(rubric, samples(Math.ceil(200 / perSample), 600, 1e6), { judge, concurrency: 128 });
const n = 3000;
const cpu = process.cpuUsage();
const t0 = performance.now();
await score(rubric, samples(n / perSample), { judge, concurrency: 128 });
const s = (performance.now() - t0) / 1000;
const srv = await server.stats();
console.log(`${transport}, ${mode}: ${n} calls in ${s.toFixed(2)} s (${Math.round(n / s)}/s); library ${Math.round(cpuSince(cpu) / n)} µs CPU/call, server ${Math.round(srv.cpuMicros / srv.requests)} µs CPU/call`);
judge.close?.();
await server.close();
