/**
 * `/v1/rollouts` under the environment's rollout time limit: the agent's stalling in its own tool
 * call is its forfeit (reward 0, the forfeit named), a policy call that hangs stays an error with
 * no reward. Trainer-driven sessions have no time limit of their own (see docs/environments.md).
 */
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RewardServer } from "../../src/bridge/server.js";
import { parseEnvironment } from "../../src/env/load.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { connect, startWorld } from "../env/world.js";
import { serveSessions } from "./env-world.js";

const FIXTURE = "tests/env/fixtures/stall";
let world: TestServer<unknown>;
let server: RewardServer;
let url: string;

beforeAll(async () => {
  world = await startWorld(
    {
      // Waits in its tool for as long as it may, then would answer.
      waiter: (m) => (m.some((x) => x.role === "tool") ? "done" : { toolCalls: [{ id: "w0", name: "wait", arguments: JSON.stringify({ forever: true }) }] }),
      hanger: () => ({ fault: "hang" }),
    },
    () => true,
  );
  const env = await parseEnvironment(readFileSync(join(FIXTURE, "unsandboxed.yaml"), "utf8"), { baseDir: join(process.cwd(), FIXTURE) });
  const { judge } = connect(world.url, []);
  ({ server, url } = await serveSessions(env, judge, world.url));
});
afterAll(async () => {
  await server?.close();
  await world?.close();
});

async function rollouts(task: string, model: string): Promise<any> {
  const res = await fetch(`${url}/v1/rollouts`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ task_id: task, policy: { base_url: world.url, model } }) });
  expect(res.status).toBe(200);
  return res.json();
}

it("an agent that stalls in its tool call until the limit is scored 0, the forfeit named; a policy call that hangs past it has no reward", async () => {
  const stalled = await rollouts("waits", "waiter");
  expect(stalled.rewards).toEqual([0]);
  expect(stalled.rollouts[0]).toMatchObject({ stop_reason: "timeout", reward: 0, forfeit: { code: "ROLLOUT_TIMEOUT", message: 'task "waits" ran longer than 3000 ms: the limit ended the wait tool call, the agent\'s own action' } });
  expect(stalled.rollouts[0].error).toBeUndefined();
  const hung = await rollouts("policy-hangs", "hanger");
  expect(hung.rewards).toEqual([null]);
  expect(hung.rollouts[0]).toMatchObject({ stop_reason: "timeout", reward: null, error: { code: "ROLLOUT_TIMEOUT", message: 'task "policy-hangs" ran longer than 3000 ms' } });
  expect(hung.rollouts[0].forfeit).toBeUndefined();
});
