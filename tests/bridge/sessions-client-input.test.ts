/**
 * What a client sends into `serve --env` is the client's to get right: a task or tool arguments
 * nested 20,000 levels deep, or a task of its own that lacks an input the harness's prompt names,
 * are 400s naming the field (they were 500s: a stack overflow, TEMPLATE_MISSING_VAR).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRewardServer, type RewardServer } from "../../src/bridge/server.js";
import { sessionRoutes } from "../../src/bridge/sessions.js";
import { openCache } from "../../src/engine/cache/index.js";
import { createEngine } from "../../src/engine/engine.js";
import { loadEnvironment } from "../../src/env/load.js";
import { createSessionManager, type SessionManager } from "../../src/env/sessions.js";
import { tempDir } from "../helpers/cli.js";

const dir = tempDir();
const envFile = join(dir, "env.yaml");
writeFileSync(envFile, ["id: echo-env", "dataset: [{ id: t1, inputs: { prompt: hello } }]", "harness: { prompt: '{{prompt}}', max_turns: 2 }", "rubric:", "  id: echo", "  inputs: [prompt, response]", "  criteria:", "    - { id: says-hello, check: { contains: hello } }", ""].join("\n"));

/** A policy endpoint the operator allows; nothing listens there, and the refusals below come before any call. */
const POLICY_HOST = "127.0.0.1:9";
let server: RewardServer;
let sessions: SessionManager;
let url: string;

beforeAll(async () => {
  const env = await loadEnvironment(envFile);
  const engine = createEngine({ cache: openCache({ path: false }), limits: { maxConcurrency: 4, maxRetries: 0, timeoutMs: 10_000 } });
  sessions = createSessionManager({ env, engine });
  server = createRewardServer({ rubric: env.rubric, dynamicRoutes: sessionRoutes({ env, sessions, engine, allowPolicyHosts: [POLICY_HOST] }), onClose: () => sessions.closeAll() });
  url = await server.listen(0);
});
afterAll(async () => {
  await server.close();
});

/** Posts raw JSON text (a 20,000-deep value is written, not built and stringified). */
async function post(path: string, body: string): Promise<{ status: number; error?: { code: string; message: string; field?: string }; json: Record<string, unknown> }> {
  const res = await fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body });
  const json = (await res.json()) as Record<string, unknown>;
  return { status: res.status, error: json.error as { code: string; message: string; field?: string } | undefined, json };
}

const deep = (levels: number) => `${"[".repeat(levels)}1${"]".repeat(levels)}`;

describe("client input to serve --env", () => {
  it("a task nested 20,000 levels deep is a 400 SAMPLE_TOO_DEEP naming task, and no session opens", async () => {
    const res = await post("/v1/sessions", `{"task":{"id":"x","inputs":{"prompt":${deep(20_000)}}}}`);
    expect(res.status).toBe(400);
    expect(res.error).toMatchObject({ code: "SAMPLE_TOO_DEEP", field: "task" });
    expect(sessions.size).toBe(0);
  });

  it("tool arguments or a step's tool calls nested 20,000 levels deep are 400s naming the field; the session goes on", async () => {
    const opened = await post("/v1/sessions", `{"task_id":"t1"}`);
    expect(opened.status).toBe(200);
    const id = opened.json.session_id as string;
    const tool = await post(`/v1/sessions/${id}/tools/x`, `{"arguments":{"a":${deep(20_000)}}}`);
    expect(tool.status).toBe(400);
    expect(tool.error).toMatchObject({ code: "SAMPLE_TOO_DEEP", field: "arguments" });
    const step = await post(`/v1/sessions/${id}/step`, `{"content":"x","tool_calls":[{"name":"x","arguments":{"a":${deep(20_000)}}}]}`);
    expect(step.status).toBe(400);
    expect(step.error).toMatchObject({ code: "SAMPLE_TOO_DEEP", field: "tool_calls" });
    const finished = await post(`/v1/sessions/${id}/finish`, `{"response":"hello"}`);
    expect(finished.status).toBe(200);
    expect(finished.json.reward).toBe(1);
    expect(sessions.close(id)).toBe(true);
  });

  it("a client's task without the input the harness prompt names is a 400 naming task.inputs", async () => {
    const open = sessions.size;
    for (const body of [`{"task":{}}`, `{"task":{"id":"x","inputs":{"question":"hi"}}}`]) {
      const res = await post("/v1/sessions", body);
      expect(res.status, body).toBe(400);
      expect(res.error, body).toMatchObject({ code: "TEMPLATE_MISSING_VAR", field: "task.inputs" });
      expect(res.error!.message, body).toMatch(/\{\{prompt\}\}/);
    }
    expect(sessions.size).toBe(open);
  });

  it("/v1/rollouts answers a client's task the same way: too deep, or missing the prompt's input, is a 400 before any policy call", async () => {
    const policy = `"policy":{"base_url":"http://${POLICY_HOST}/v1","model":"m"}`;
    const deepTask = await post("/v1/rollouts", `{"task":{"id":"x","inputs":{"prompt":${deep(20_000)}}},${policy}}`);
    expect(deepTask.status).toBe(400);
    expect(deepTask.error).toMatchObject({ code: "SAMPLE_TOO_DEEP", field: "task" });
    const missing = await post("/v1/rollouts", `{"task":{},${policy}}`);
    expect(missing.status).toBe(400);
    expect(missing.error).toMatchObject({ code: "TEMPLATE_MISSING_VAR", field: "task.inputs" });
  });
});
