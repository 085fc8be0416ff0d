/**
 * `/v1/rollouts` within the server's limits (issue 27, Medium 10): rollouts share the
 * `--max-sessions` cap with sessions, and SIGTERM ends a server whose rollouts stalled (the
 * trainer's policy endpoint stopped answering) after `--shutdown-grace-ms`.
 */
import { writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRewardServer } from "../../src/bridge/server.js";
import { sessionRoutes } from "../../src/bridge/sessions.js";
import { createEngine } from "../../src/engine/engine.js";
import { openCache } from "../../src/engine/cache/index.js";
import { loadEnvironment } from "../../src/env/load.js";
import { createSessionManager } from "../../src/env/sessions.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { tempDir } from "../helpers/cli.js";
import { jsonOf, startServe } from "./helpers.js";

const dir = tempDir();
const envFile = join(dir, "env.yaml");
writeFileSync(envFile, ["id: echo-env", "dataset: [{ id: t1, inputs: { prompt: hello } }]", "harness: { prompt: '{{prompt}}', max_turns: 1 }", "rubric:", "  id: echo", "  inputs: [prompt, response]", "  criteria:", "    - { id: says-hello, check: { contains: hello } }", ""].join("\n"));

// A policy endpoint that takes requests and never answers.
const stalled: IncomingMessage[] = [];
const policy = createServer((req) => void stalled.push(req));
afterAll(() => {
  policy.closeAllConnections();
  policy.close();
});

const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("rollouts within the server's limits", () => {
  it("count against --max-sessions, and SIGTERM aborts stalled ones after the grace", async () => {
    await new Promise<void>((r) => policy.listen(0, "127.0.0.1", r));
    const port = (policy.address() as AddressInfo).port;
    const s = await startServe(["--env", envFile, "--port", "0", "--no-cache", "--max-sessions", "2", "--shutdown-grace-ms", "300", "--allow-policy-host", `127.0.0.1:${port}`]);
    const spec = { base_url: `http://127.0.0.1:${port}/v1`, model: "m", max_tokens: 5 };
    const over = await post(`${s.url}/v1/rollouts`, { task_index: 0, k: 3, policy: spec });
    expect(over.status).toBe(429);
    expect((await jsonOf(over)).error).toMatchObject({ code: "SESSION_LIMIT", message: expect.stringMatching(/--max-sessions/) });
    const pending = post(`${s.url}/v1/rollouts`, { task_index: 0, k: 2, policy: spec });
    while (stalled.length < 2) await new Promise((r) => setTimeout(r, 20));
    // Both places are taken: a session does not fit either.
    expect((await post(`${s.url}/v1/sessions`, { task_index: 0 })).status).toBe(429);
    s.child.kill("SIGTERM");
    const answer = await pending;
    expect(answer.status).toBe(503);
    expect((await jsonOf(answer)).error.code).toBe("SHUTTING_DOWN");
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(s.stderr()).toMatch(/aborting 1 request\(s\) still running after the 300 ms shutdown grace/);
  });
});

describe("a hook's ctx.llm to the trainer's policy (issue 27, Medium 5)", () => {
  it("is never answered from the cache without a policy_version, like the rollout's own calls", async () => {
    const hooked = join(dir, "hooked");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(hooked, { recursive: true });
    writeFileSync(join(hooked, "hooks.mjs"), "export default { finalize: async ({ llm, response }) => ({ critique: await llm(`Critique: ${response}`) }) };\n");
    writeFileSync(join(hooked, "env.yaml"), ["id: hooked", "dataset: [{ id: t1, inputs: { prompt: hello } }]", "hooks: ./hooks.mjs", "harness: { prompt: '{{prompt}}', max_turns: 1 }", "rubric:", "  id: hooked", "  inputs: [prompt, response, critique]", "  criteria:", "    - { id: ok, check: { contains: fine, field: critique } }", ""].join("\n"));
    const env = await loadEnvironment(join(hooked, "env.yaml"));
    const trainer = await startOpenAIServer({ respond: () => "fine" });
    const engine = createEngine({ cache: openCache({ path: false }), limits: { maxConcurrency: 4, maxRetries: 0, timeoutMs: 10_000 } });
    const sessions = createSessionManager({ env, engine });
    const server = createRewardServer({ rubric: env.rubric, dynamicRoutes: sessionRoutes({ env, sessions, engine, allowPolicyHosts: [new URL(trainer.url).host] }) });
    const url = await server.listen(0);
    try {
      const body = { task_index: 0, k: 1, policy: { base_url: trainer.url, model: "policy" } };
      for (const round of [1, 2]) {
        const res = await post(`${url}/v1/rollouts`, body);
        expect(res.status).toBe(200);
        expect((await jsonOf(res)).rewards).toEqual([1]);
        // Each round asks the policy twice: its turn, and the hook's critique.
        expect(trainer.requests.length).toBe(2 * round);
      }
      const versioned = { ...body, policy: { ...body.policy, policy_version: 7 } };
      await post(`${url}/v1/rollouts`, versioned);
      const afterFirst = trainer.requests.length;
      await post(`${url}/v1/rollouts`, versioned);
      expect(trainer.requests.length).toBe(afterFirst); // the same version is replayed, hook call included
    } finally {
      await server.close();
      engine.close();
      await trainer.close();
    }
  });
});

describe("session memory is bounded (issue 27, Medium 3)", () => {
  it("a session over its byte budget is a 413, all sessions over theirs a 429 until one closes", async () => {
    const env = await loadEnvironment(envFile);
    const engine = createEngine({ cache: openCache({ path: false }), limits: { maxConcurrency: 4, maxRetries: 0, timeoutMs: 10_000 } });
    const sessions = createSessionManager({ env, engine, maxSessionBytes: 1000, maxTotalBytes: 1500 });
    const server = createRewardServer({ rubric: env.rubric, dynamicRoutes: sessionRoutes({ env, sessions, engine }), onClose: () => sessions.closeAll() });
    const url = await server.listen(0);
    try {
      const open = async () => (await jsonOf(await post(`${url}/v1/sessions`, { task_index: 0 }))).session_id as string;
      const [a, b] = [await open(), await open()];
      expect((await post(`${url}/v1/sessions/${a}/step`, { content: "x".repeat(900) })).status).toBe(200);
      const tooBig = await post(`${url}/v1/sessions/${a}/step`, { content: "y".repeat(200) });
      expect(tooBig.status).toBe(413);
      expect((await jsonOf(tooBig)).error).toMatchObject({ code: "SESSION_TOO_LARGE", message: expect.stringMatching(/1100 bytes .* 1000-byte budget \(--max-session-bytes\)/) });
      const full = await post(`${url}/v1/sessions/${b}/finish`, { response: "z".repeat(700) });
      expect(full.status).toBe(429);
      expect((await jsonOf(full)).error.message).toMatch(/--max-sessions-bytes/);
      await fetch(`${url}/v1/sessions/${a}`, { method: "DELETE" });
      expect((await post(`${url}/v1/sessions/${b}/finish`, { response: "z".repeat(700) })).status).toBe(200);
      expect(sessions.stats().bytes).toBe(700);
    } finally {
      await server.close();
      engine.close();
    }
  });
});
