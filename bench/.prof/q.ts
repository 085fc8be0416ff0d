import OpenAI from "openai";
import { score } from "../../src/engine/score.js";
import { createJudge } from "../../src/judge/create.js";
import { createScriptedProvider } from "../../src/judge/providers/index.js";
import { samples, tenQuestions, cpuSince } from "../lib/common.js";
import { startServerChild } from "../lib/server.js";
const what = process.argv[2];
const N = 3000;
const rubric = tenQuestions();
const answer = JSON.stringify({ answers: rubric.criteria.map((c) => ({ id: c.id, reason: "because it says so", verdict: c.id === "q1" })) });
if (what === "scripted") {
  const provider = createScriptedProvider(async () => { await new Promise((r) => setTimeout(r, 50)); return answer; });
  const judge = createJudge({ provider: "openai-compatible", base_url: "http://x/v1", model: "m", max_concurrency: 64 }, { cache: null, provider });
  await score(rubric, samples(200, 600, 1e6), { judge, concurrency: 128 });
  const cpu = process.cpuUsage(); const t0 = performance.now();
  await score(rubric, samples(N, 600, 2e6), { judge, concurrency: 128 });
  console.log("scripted us/call", (cpuSince(cpu) / N).toFixed(0), "calls/s", (N / ((performance.now() - t0) / 1000)).toFixed(0));
} else {
  const server = await startServerChild({ latencyMs: 50 });
  const { lightFetch } = await import("./lightfetch.js"); const client = new OpenAI({ baseURL: server.url, apiKey: "x", maxRetries: 0, ...(what === "light" ? { fetch: lightFetch as any } : {}) });
  const body = (i: number) => ({ model: "m", messages: [{ role: "system" as const, content: "You are a judge. ".repeat(40) }, { role: "user" as const, content: `sample ${i} `.repeat(150) + rubric.criteria.map((c) => `- id: ${c.id}\n  question: ${c.question}`).join("\n") + ' {"answers"' }] });
  const run = async (n: number, from: number) => { let i = from; const w = async () => { while (i < from + n) await client.chat.completions.create(body(i++)); }; await Promise.all(Array.from({ length: 64 }, w)); };
  await run(200, 0);
  const cpu = process.cpuUsage(); const t0 = performance.now();
  await run(N, 1e6);
  console.log("raw sdk us/call", (cpuSince(cpu) / N).toFixed(0), "calls/s", (N / ((performance.now() - t0) / 1000)).toFixed(0));
  await server.close();
}
