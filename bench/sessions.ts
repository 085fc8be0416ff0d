/**
 * The environment API of `serve --env`: sessions per second and the turn latency the HTTP
 * server adds, against the same episodes played in-process (the ideal: no HTTP at all).
 * The environment is small and code-checked (a tool that echoes, a rubric of code checks), so
 * the figures are the server's own cost, not a judge's.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRewardServer } from "../src/bridge/server.js";
import { sessionRoutes } from "../src/bridge/sessions.js";
import { createEngine } from "../src/engine/engine.js";
import { startSession } from "../src/env/session.js";
import { loadEnvironment } from "../src/env/load.js";
import { createSessionManager } from "../src/env/sessions.js";
import type { BenchContext, BenchResult } from "./lib/common.js";
import { round } from "./lib/common.js";

interface Row {
  mode: string;
  concurrency: number;
  sessions: number;
  sessionsPerSec: number;
  turnP50Ms: number;
  turnP99Ms: number;
  ratio: number;
}

const ENV = `id: bench-echo
dataset:
  - { id: t1, inputs: { word: alpha } }
  - { id: t2, inputs: { word: beta } }
harness:
  prompt: "Say {{word}}."
  tools:
    - name: echo
      parameters: { type: object, properties: { text: { type: string } }, required: [text] }
hooks: ./hooks.mjs
rubric:
  id: bench-echo
  inputs: [response, word]
  criteria:
    - id: says-word
      check: { contains: [alpha, beta] }
    - id: short
      check: { length: { max: 200 } }
`;
const HOOKS = "export const tools = { echo: ({ text }) => text };\n";

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
};

export async function sessions(ctx: BenchContext): Promise<BenchResult<Row>> {
  const dir = mkdtempSync(join(tmpdir(), "rubricate-bench-sessions-"));
  writeFileSync(join(dir, "env.yaml"), ENV);
  writeFileSync(join(dir, "hooks.mjs"), HOOKS);
  const env = await loadEnvironment(join(dir, "env.yaml"));
  const total = ctx.quick ? 256 : 2048;
  const turns = [
    { content: "", toolCalls: [{ id: "c1", name: "echo", arguments: '{"text":"x"}' }] },
    { content: "", toolCalls: [{ id: "c2", name: "echo", arguments: '{"text":"y"}' }] },
    { content: "I say alpha and beta." },
  ];
  const rows: Row[] = [];

  const engine = createEngine({ limits: { maxConcurrency: 8, maxRetries: 0, timeoutMs: 10_000 } });
  // In-process: the ideal.
  const inTurn: number[] = [];
  let t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const ep = await startSession(env, env.tasks[i % 2], { engine });
    for (const turn of turns) {
      const s = performance.now();
      await ep.step(turn);
      inTurn.push(performance.now() - s);
    }
    await ep.finish();
  }
  const idealRate = total / ((performance.now() - t0) / 1000);
  rows.push({ mode: "in-process Episode", concurrency: 1, sessions: total, sessionsPerSec: round(idealRate, 0), turnP50Ms: round(pct(inTurn, 0.5), 3), turnP99Ms: round(pct(inTurn, 0.99), 3), ratio: 1 });

  // Over HTTP, as trainers drive it.
  for (const concurrency of ctx.quick ? [64] : [1, 64, 256]) {
    const manager = createSessionManager({ env, engine, maxSessions: 1024 });
    const server = createRewardServer({ rubric: env.rubric, dynamicRoutes: sessionRoutes({ env, sessions: manager, engine }) });
    const url = await server.listen(0);
    const post = async (path: string, body: unknown) => (await fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json() as Promise<any>;
    const httpTurn: number[] = [];
    let next = 0;
    t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) {
          const i = next++;
          const { session_id } = await post("/v1/sessions", { task_index: i % 2 });
          for (const turn of turns) {
            const s = performance.now();
            await post(`/v1/sessions/${session_id}/step`, { content: turn.content, ...(turn.toolCalls ? { tool_calls: turn.toolCalls } : {}) });
            httpTurn.push(performance.now() - s);
          }
          const done = await post(`/v1/sessions/${session_id}/finish`, {});
          if (done.reward !== 1) throw new Error(`bench session scored ${JSON.stringify(done)}`);
          await fetch(`${url}/v1/sessions/${session_id}`, { method: "DELETE" }).then((r) => r.arrayBuffer());
        }
      }),
    );
    const rate = total / ((performance.now() - t0) / 1000);
    rows.push({ mode: "HTTP sessions", concurrency, sessions: total, sessionsPerSec: round(rate, 0), turnP50Ms: round(pct(httpTurn, 0.5), 2), turnP99Ms: round(pct(httpTurn, 0.99), 2), ratio: round(rate / idealRate, 3) });
    await server.close();
  }
  engine.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    title: "Environment sessions over HTTP vs in-process (3 turns + finish per session; code-checked rubric)",
    rows,
    columns: [
      { label: "mode", value: "mode" },
      { label: "concurrency", value: "concurrency" },
      { label: "sessions", value: "sessions" },
      { label: "sessions/s", value: "sessionsPerSec" },
      { label: "turn p50 ms", value: "turnP50Ms" },
      { label: "turn p99 ms", value: "turnP99Ms" },
      { label: "ratio to in-process", value: "ratio" },
    ],
    notes: [
      "A turn's latency over HTTP minus the in-process one is what the server adds (JSON, routing, one loopback round trip); at high concurrency it is mostly queueing on two cores shared with the client.",
    ],
  };
}
