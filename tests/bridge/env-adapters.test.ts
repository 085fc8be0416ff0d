/**
 * The Python trainer adapters for environments (examples/trainers/rubricate_env.py,
 * openrlhf_agent.py, verl_interaction.py), each loaded the way its trainer loads it, against a
 * live environment server. Every reward they report must equal `rubricate eval`'s for the same
 * trajectory. Needs Debian's python3 with python3-torch (OpenRLHF builds tensors from our numbers).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RewardServer } from "../../src/bridge/server.js";
import { runEval } from "../../src/env/eval.js";
import { loadEnvironment } from "../../src/env/load.js";
import type { Environment } from "../../src/env/types.js";
import type { EngineJudge } from "../../src/judge/create.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { connect } from "../env/world.js";
import { needs, runs } from "../helpers/system.js";
import { serveSessions, startSupportWorld } from "./env-world.js";

const PYTHON = "/usr/bin/python3";
const python = needs("python3 with python3-torch", () => runs(PYTHON, ["-c", "import torch"]) && PYTHON, "apt-get install python3 python3-torch");

const LATE = "I'm sorry, I can't refund order B200: it was delivered 101 days ago. Our policy only allows refunds of delivered orders within 30 days.";
const NOT_DELIVERED = "I'm sorry, order C300 is not delivered yet, so I can't refund it. Please wait for delivery.";
const FINAL = "I'm sorry about the blender. I have refunded 89.9 euros for order A100; it will reach your card in a few days.";

python.describe("trainer adapters for environments (python3)", () => {
  let world: TestServer<unknown>;
  let env: Environment;
  let judge: EngineJudge;
  let server: RewardServer;
  let url: string;

  beforeAll(async () => {
    env = await loadEnvironment("examples/support-desk/env.yaml");
    // Fixed texts: the trajectories the Python side plays, so eval can play the same ones.
    world = await startSupportWorld({ late: () => LATE, undelivered: () => NOT_DELIVERED, sure: () => "Sure, refunded!" });
    ({ judge } = connect(world.url, []));
    // The operator lists the executor's policy endpoint (`--allow-policy-host`): /v1/rollouts calls no other.
    ({ server, url } = await serveSessions(env, judge, world.url));
  });
  afterAll(async () => {
    await server?.close();
    await world?.close();
  });

  it("TRL environment_factory, OpenRLHF agent and executor, verl interaction: contracts hold and rewards equal eval's", async () => {
    // Asynchronous: the servers answering the script run in this process.
    const run = await promisify(execFile)(python.path!, ["tests/bridge/drive_env_adapters.py"], {
      encoding: "utf8",
      timeout: 120_000,
      env: { PATH: process.env.PATH, RUBRICATE_ENV_URL: url, POLICY_URL: world.url },
    }).catch((e: { stdout: string; stderr: string }) => ({ stdout: e.stdout, stderr: e.stderr, failed: true }));
    expect(run.stderr).not.toMatch(/Traceback/);
    expect("failed" in run).toBe(false);
    const out = JSON.parse(run.stdout.trim().split("\n").at(-1)!);

    // What `rubricate eval` gives the same trajectories.
    const { engine, policies } = connect(world.url, ["agent", "late", "undelivered", "sure"]);
    const { records } = await runEval(env, { policies, engine, judge });
    const evalReward = (model: string, task: string) => records.find((r) => r.model.includes(`:${model}@`) && r.task === task)!.reward;
    engine.close();

    expect(out.trl_tools).toEqual(["find_orders", "get_order", "issue_refund"]);
    expect(out.trl_signature_issue_refund).toBe("(order_id: str, amount: float, reason: str) -> str");
    // The agent's trajectory (find, refund, final text) through TRL's completions path: eval's reward.
    expect(out.trl_completion_reward).toBe(evalReward("agent", "damaged-blender"));
    expect(out.trl_completion_reward).toBe(1);
    // get_reward() scores the session as it stands (tool calls, no final message): the same as the
    // server scores that session when driven directly.
    const post = async (path: string, body: unknown): Promise<any> => (await fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json();
    const { session_id } = await post("/v1/sessions", { task_id: "damaged-blender" });
    await post(`/v1/sessions/${session_id}/tools/find_orders`, { arguments: { email: "ana@example.com" } });
    await post(`/v1/sessions/${session_id}/tools/issue_refund`, { arguments: { order_id: "A100", amount: 89.9, reason: "damaged on arrival" } });
    const direct = await post(`/v1/sessions/${session_id}/finish`, {});
    expect(out.trl_env_reward).toBe(direct.reward);
    expect(direct.reward).toBeGreaterThan(0);
    expect(direct.reward).toBeLessThan(1);
    expect(out.trl_bad_task).toBe("400 BAD_INPUT");

    expect(out.openrlhf_late_return.reward).toBe(evalReward("late", "late-return"));
    expect(out.openrlhf_late_return.logs.rubricate_error).toBe(0);
    // A JSON label names the task; torch keeps rewards as float32, hence 6 digits.
    expect(out.openrlhf_json_label.reward).toBeCloseTo(evalReward("sure", "not-delivered")!, 6);
    expect(out.openrlhf_tool_feedback).toMatch(/^\n<\|im_start\|>user\n<tool_response>\n\[[\s\S]*"A100"[\s\S]*\]\n<\/tool_response><\|im_end\|>\n<\|im_start\|>assistant\n$/);
    // An unfinished episode logs the same keys as a finished one (OpenRLHF stacks them by key).
    expect(out.openrlhf_tool_logs).toEqual(["rubricate_error", "rubricate_unfinished", ...env.rubric.criteria.map((c) => `rubricate/${c.id}`)].sort());
    expect(out.openrlhf_run_agent.extra_logs.rubricate_error).toBe(0);
    expect(out.openrlhf_run_agent.reward).toBe(evalReward("agent", "damaged-blender"));
    // run_agent played against the executor's endpoint with its session id on every call.
    const traced = world.requests.filter((r) => (r.body as { session_id?: string }).session_id === "sess-42");
    expect(traced.length).toBe(3);
    expect(traced.every((r) => (r.body as { temperature: number }).temperature === 0.7)).toBe(true);
    // max_tokens None is sent as the executor's max_length (its server caps it); logprobs are asked for.
    const defaults = world.requests.filter((r) => (r.body as { session_id?: string }).session_id === "sess-43").map((r) => r.body as Record<string, unknown>);
    expect(defaults.length).toBe(3);
    expect(defaults.every((b) => b.max_tokens === 4096 && b.logprobs === true && b.top_logprobs === 1)).toBe(true);
    expect(out.openrlhf_run_agent_defaults.reward).toBe(evalReward("agent", "damaged-blender"));

    expect(out.verl).toMatchObject({ terminate: true, metrics: { rubricate_error: 0 } });
    expect(out.verl.score).toBe(evalReward("undelivered", "not-delivered"));
  });
});
