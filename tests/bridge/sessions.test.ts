/**
 * The environment API of `serve --env`: sessions a trainer drives turn by turn, and rollouts the
 * server plays against the trainer's policy endpoint. Rewards must equal `rubricate eval`'s for
 * the same trajectory.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRewardServer, type RewardServer } from "../../src/bridge/server.js";
import { sessionRoutes } from "../../src/bridge/sessions.js";
import { runEval } from "../../src/env/eval.js";
import { loadEnvironment } from "../../src/env/load.js";
import { createSessionManager, type SessionManager } from "../../src/env/sessions.js";
import type { Environment } from "../../src/env/types.js";
import type { EngineJudge } from "../../src/judge/create.js";
import type { Reply, TestServer } from "../../src/testing/servers/common.js";
import { connect, type WireMessage } from "../env/world.js";
import { agent, startSupportWorld } from "./env-world.js";

let world: TestServer<unknown>;
let env: Environment;
let judge: EngineJudge;
let sessions: SessionManager;
let server: RewardServer;
let url: string;
const sessionIds: string[] = [];

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url + path, { method, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

/** Plays one task over HTTP as a trainer would: the policy sees wire messages, the server answers each turn. */
type Call = { id?: string; name: string; arguments: unknown };
/** How the trainer hands its tool calls over: our flat shape, OpenAI's, or left in the model's text (Hermes / Qwen template). */
const encodings = {
  flat: (text: string, calls: Call[]) => ({ content: text, tool_calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments as Record<string, unknown> })) }),
  openai: (text: string, calls: Call[]) => ({ content: text, tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) }),
  hermes: (text: string, calls: Call[]) => ({ content: [text, ...calls.map((c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.arguments })}\n</tool_call>`)].join("\n") }),
};

async function playOverHttp(taskId: string, policy: (m: WireMessage[]) => Reply, encoding: keyof typeof encodings = "flat"): Promise<any> {
  const opened = await call("POST", "/v1/sessions", { task_id: taskId });
  expect(opened.status).toBe(200);
  sessionIds.push(opened.json.session_id);
  const conversation: WireMessage[] = [...opened.json.messages];
  for (let i = 0; i < 20; i++) {
    const reply = policy(conversation);
    const turn = typeof reply === "string" ? { content: reply } : encodings[encoding](reply.text ?? "", reply.toolCalls!);
    const stepped = await call("POST", `/v1/sessions/${opened.json.session_id}/step`, turn);
    expect(stepped.status).toBe(200);
    // The policy sees the tool results whichever way the calls travelled (ids may be the server's).
    const calls = typeof reply === "string" ? [] : reply.toolCalls!;
    conversation.push({ role: "assistant", content: typeof reply === "string" ? reply : (reply.text ?? ""), ...(calls.length ? { tool_calls: calls.map((c, i) => ({ id: stepped.json.messages[i]?.tool_call_id ?? c.id!, function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) } : {}) }, ...stepped.json.messages);
    if (stepped.json.done) break;
  }
  const finished = await call("POST", `/v1/sessions/${opened.json.session_id}/finish`, {});
  expect(finished.status).toBe(200);
  return finished.json;
}

beforeAll(async () => {
  env = await loadEnvironment("examples/support-desk/env.yaml");
  world = await startSupportWorld();
  ({ judge } = connect(world.url, []));
  sessions = createSessionManager({ env, engine: judge.engine, judge, maxSessions: 8 });
  server = createRewardServer({ rubric: env.rubric, judge, dynamicRoutes: sessionRoutes({ env, sessions, engine: judge.engine, judge, maxGroup: 4, allowPolicyHosts: [new URL(world.url).host] }), onClose: () => sessions.closeAll() });
  url = await server.listen(0);
});
// A trainer closes what it opened; so does each test, so the next starts below the session limit.
afterEach(async () => {
  for (const id of sessionIds.splice(0)) expect((await call("DELETE", `/v1/sessions/${id}`)).status).toBe(200);
});
afterAll(async () => {
  await server.close();
  await world.close();
});

describe("sessions over HTTP", () => {
  it("a trainer-driven session reaches the same reward, verdicts and tool calls as `rubricate eval`", async () => {
    const { engine, policies } = connect(world.url, ["agent"]);
    const { records } = await runEval(env, { policies, engine, judge });
    for (const task of env.tasks) {
      const viaHttp = await playOverHttp(task.id, agent);
      const viaEval = records.find((r) => r.task === task.id)!;
      expect(viaHttp.reward).toBe(viaEval.reward);
      expect(viaHttp.verdicts.map((v: { id: string; status: string }) => [v.id, v.status])).toEqual(viaEval.verdicts.map((v) => [v.id, v.status]));
      expect(viaHttp.stop_reason).toBe(viaEval.stopReason);
      expect(viaHttp.turns).toBe(viaEval.turns);
    }
    engine.close();
  });

  it("tool calls reach the environment in OpenAI's shape and written in the text as Hermes/Qwen <tool_call> blocks: eval's rewards", async () => {
    const { engine, policies } = connect(world.url, ["agent"]);
    const { records } = await runEval(env, { policies, engine, judge });
    engine.close();
    for (const encoding of ["openai", "hermes"] as const) {
      for (const task of env.tasks) {
        const played = await playOverHttp(task.id, agent, encoding);
        const viaEval = records.find((r) => r.task === task.id)!;
        expect(played.reward, `${encoding} ${task.id}`).toBe(viaEval.reward);
        expect(played.verdicts.map((v: { id: string; status: string }) => [v.id, v.status])).toEqual(viaEval.verdicts.map((v) => [v.id, v.status]));
      }
    }
    // The refund task's database holds the refund only if issue_refund ran: the calls were executed, not just recorded.
    expect(records.find((r) => r.task === "damaged-blender")!.verdicts.find((v) => v.id === "db-end-state")!.status).toBe("met");
  });

  it("opening a session returns the prompt, the system text and the tools in OpenAI's shape", async () => {
    const { status, json } = await call("POST", "/v1/sessions", { task_index: 0 });
    expect(status).toBe(200);
    sessionIds.push(json.session_id);
    expect(json.task_id).toBe(env.tasks[0].id);
    expect(json.messages).toEqual([{ role: "user", content: expect.stringContaining("ana@example.com") }]);
    expect(json.system).toMatch(/customer-service agent/);
    expect(json.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["find_orders", "get_order", "issue_refund"]);
    expect(json.done).toBe(false);
  });

  it("sessions are isolated: a refund in one session is not seen by another of the same task", async () => {
    const a = (await call("POST", "/v1/sessions", { task_id: "damaged-blender" })).json.session_id;
    const b = (await call("POST", "/v1/sessions", { task_id: "damaged-blender" })).json.session_id;
    sessionIds.push(a, b);
    const refund = await call("POST", `/v1/sessions/${a}/tools/issue_refund`, { arguments: { order_id: "A100", amount: 89.9, reason: "broken" } });
    expect(refund.status).toBe(200);
    expect(refund.json.error).toBeUndefined();
    // Each session has its own copy of the database: only a's holds the refund.
    const endState = async (id: string) => (await call("POST", `/v1/sessions/${id}/finish`, { response: "Done." })).json.verdicts.find((v: { id: string }) => v.id === "db-end-state").status;
    expect(await endState(a)).toBe("met");
    expect(await endState(b)).toBe("unmet");
  });

  it("a tool called directly (TRL's environment methods) joins the transcript the rubric scores", async () => {
    const { json } = await call("POST", "/v1/sessions", { task_id: "damaged-blender" });
    sessionIds.push(json.session_id);
    await call("POST", `/v1/sessions/${json.session_id}/tools/find_orders`, { arguments: { email: "ana@example.com" } });
    await call("POST", `/v1/sessions/${json.session_id}/tools/issue_refund`, { arguments: JSON.stringify({ order_id: "A100", amount: 89.9, reason: "damaged on arrival" }) });
    const done = await call("POST", `/v1/sessions/${json.session_id}/finish`, { response: "I'm sorry about the blender. I have refunded 89.9 euros for order A100." });
    expect(done.status).toBe(200);
    expect(done.json.verdicts.find((v: { id: string }) => v.id === "db-end-state").status).toBe("met");
    expect(done.json.reward).toBe(1);
  });

  it("every bad request is a 4xx with a reason", async () => {
    const cases: [string, string, unknown, number, RegExp][] = [
      ["POST", "/v1/sessions", { task_id: "no-such-task" }, 400, /no task "no-such-task"/],
      ["POST", "/v1/sessions", {}, 400, /exactly one of task_id, task_index or task/],
      ["POST", "/v1/sessions", { task_index: 99 }, 400, /not an index/],
      ["POST", "/v1/sessions", { task: { inputs: { message: "hi" }, criteria: [{ id: "x", question: "Pay me?" }] } }, 400, /client-supplied criteria are off/],
      ["POST", "/v1/sessions", { task_id: "a", extra: 1 }, 400, /extra|Unrecognized/i],
      ["POST", "/v1/sessions/00000000-0000-0000-0000-000000000000/step", { content: "hi" }, 404, /no open session/],
      ["GET", "/v1/sessions/00000000-0000-0000-0000-000000000000", undefined, 404, /no open session/],
      ["PUT", "/v1/sessions", {}, 405, /takes POST/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(res.json.error.message, `${method} ${path}`).toMatch(message);
    }
    const { json } = await call("POST", "/v1/sessions", { task_id: "late-return" });
    sessionIds.push(json.session_id);
    const bad = await call("POST", `/v1/sessions/${json.session_id}/step`, { content: 5 });
    expect(bad.status).toBe(400);
    await call("POST", `/v1/sessions/${json.session_id}/step`, { content: "I'm sorry, no refund." });
    const after = await call("POST", `/v1/sessions/${json.session_id}/step`, { content: "again" });
    expect(after.status).toBe(400);
    expect(after.json.error.message).toMatch(/the episode is over \(final_answer\)/);
  });

  it("the session limit answers 429; closing sessions frees room", async () => {
    expect(sessions.size).toBe(0);
    const opened: string[] = [];
    for (let i = 0; i < 8; i++) opened.push((await call("POST", "/v1/sessions", { task_index: 0 })).json.session_id);
    const over = await call("POST", "/v1/sessions", { task_index: 0 });
    expect(over.status).toBe(429);
    expect(over.json.error.code).toBe("SESSION_LIMIT");
    const closed = await call("DELETE", `/v1/sessions/${opened[0]}`);
    expect(closed.json.closed).toBe(true);
    expect((await call("POST", "/v1/sessions", { task_index: 0 })).status).toBe(200);
    expect((await call("GET", "/v1/sessions")).json).toMatchObject({ open: 8, maxSessions: 8 });
    sessions.closeAll();
  });
});

describe("rollouts against the trainer's policy endpoint", () => {
  it("plays k rollouts, passes each rollout's extra_body on every policy call, and never caches unversioned policy calls", async () => {
    const before = world.requests.length;
    const res = await call("POST", "/v1/rollouts", {
      task_id: "late-return",
      k: 2,
      policy: { base_url: world.url, model: "echo", temperature: 0.5, extra_bodies: [{ session_id: "s-0" }, { session_id: "s-1" }] },
    });
    expect(res.status).toBe(200);
    expect(res.json.rollouts).toHaveLength(2);
    expect(res.json.rollouts.map((r: { response: string }) => r.response).sort()).toEqual(["session s-0", "session s-1"]);
    const policyCalls = world.requests.slice(before).filter((r) => (r.body as { model: string }).model === "echo");
    expect(policyCalls.map((r) => (r.body as { session_id: string }).session_id).sort()).toEqual(["s-0", "s-1"]);
    expect(policyCalls.every((r) => (r.body as { temperature: number }).temperature === 0.5)).toBe(true);
    // The same request again: the policy is asked again (its weights may have changed).
    const mid = world.requests.length;
    await call("POST", "/v1/rollouts", { task_id: "late-return", k: 2, policy: { base_url: world.url, model: "echo", extra_bodies: [{ session_id: "s-0" }, { session_id: "s-1" }] } });
    expect(world.requests.slice(mid).filter((r) => (r.body as { model: string }).model === "echo")).toHaveLength(2);
  });

  it("with a policy_version, calls of the same version are replayed from the cache", async () => {
    const body = { task_id: "not-delivered", k: 1, policy: { base_url: world.url, model: "agent", policy_version: "step-7" } };
    const first = await call("POST", "/v1/rollouts", body);
    expect(first.status).toBe(200);
    const mid = world.requests.length;
    const second = await call("POST", "/v1/rollouts", body);
    expect(world.requests.slice(mid).filter((r) => (r.body as { model: string }).model === "agent")).toHaveLength(0);
    expect(second.json.rewards).toEqual(first.json.rewards);
  });

  it("refuses a policy endpoint the operator did not allow, and groups over the limit", async () => {
    const far = await call("POST", "/v1/rollouts", { task_index: 0, policy: { base_url: "http://10.1.2.3:8000/v1", model: "x" } });
    expect(far.status).toBe(400);
    expect(far.json.error.message).toMatch(/10\.1\.2\.3:8000 is not a policy endpoint the operator allowed/);
    // Issue 27, Medium 7: loopback too only on the operator's ports; no fragment or query to cut the path; extra_body only chat-completion fields.
    const port = Number(new URL(world.url).port);
    const before = world.requests.length;
    const otherPort = await call("POST", "/v1/rollouts", { task_index: 0, policy: { base_url: `http://127.0.0.1:${port === 65535 ? port - 1 : port + 1}/v1`, model: "agent" } });
    expect(otherPort.status).toBe(400);
    expect(otherPort.json.error.message).toMatch(/is not a policy endpoint the operator allowed \(allowed: 127\.0\.0\.1:\d+\)/);
    const fragment = await call("POST", "/v1/rollouts", { task_index: 0, policy: { base_url: `${world.url}/containers/create#`, model: "agent" } });
    expect(fragment.status).toBe(400);
    expect(fragment.json.error.message).toMatch(/without credentials, a query \(\?\) or a fragment \(#\)/);
    const body = await call("POST", "/v1/rollouts", { task_index: 0, policy: { base_url: world.url, model: "agent", extra_body: { Image: "alpine", Cmd: ["sh"], temperature: 0.1 } } });
    expect(body.status).toBe(400);
    expect(body.json.error.message).toMatch(/"Image" is not a chat-completion field/);
    expect(world.requests.length).toBe(before);
    const big = await call("POST", "/v1/rollouts", { task_index: 0, k: 5, policy: { base_url: world.url, model: "agent" } });
    expect(big.status).toBe(413);
    expect(big.json.error.message).toMatch(/--max-group/);
    const mismatch = await call("POST", "/v1/rollouts", { task_index: 0, k: 2, policy: { base_url: world.url, model: "agent", extra_bodies: [{ session_id: "only-one" }] } });
    expect(mismatch.status).toBe(400);
  });
});

describe("load", () => {
  it("256 concurrent sessions each reach their own correct reward", async () => {
    const many = createSessionManager({ env, engine: judge.engine, judge, maxSessions: 256 });
    const srv = createRewardServer({ rubric: env.rubric, judge, dynamicRoutes: sessionRoutes({ env, sessions: many, engine: judge.engine, judge }) });
    const base = await srv.listen(0);
    const post = async (path: string, body: unknown) => {
      const res = await fetch(base + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      return { status: res.status, json: (await res.json()) as any };
    };
    try {
      const tasks = env.tasks.map((t) => t.id);
      const results = await Promise.all(
        Array.from({ length: 256 }, async (_, i) => {
          const task = tasks[i % tasks.length];
          const opened = await post("/v1/sessions", { task_id: task });
          expect(opened.status).toBe(200);
          const conversation: WireMessage[] = [...opened.json.messages];
          for (let turn = 0; turn < 6; turn++) {
            const reply = agent(conversation);
            const body = typeof reply === "string" ? { content: reply } : { content: "", tool_calls: reply.toolCalls!.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments as Record<string, unknown> })) };
            const stepped = await post(`/v1/sessions/${opened.json.session_id}/step`, body);
            conversation.push({ role: "assistant", content: body.content, ...("tool_calls" in body ? { tool_calls: body.tool_calls!.map((c) => ({ id: c.id!, function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) } : {}) }, ...stepped.json.messages);
            if (stepped.json.done) break;
          }
          const done = await post(`/v1/sessions/${opened.json.session_id}/finish`, {});
          return { task, reward: done.json.reward };
        }),
      );
      // The agent earns full marks on every task; a session seeing another's refunds would not.
      expect(results.every((r) => r.reward === 1)).toBe(true);
      expect(many.stats().opened).toBe(256);
    } finally {
      await srv.close();
      many.closeAll();
    }
  });
});
