/**
 * A support-desk world for the environment API tests: one OpenAI wire-format server playing the
 * scripted policies and the judge.
 */
import { createRewardServer, type RewardServer } from "../../src/bridge/server.js";
import { sessionRoutes } from "../../src/bridge/sessions.js";
import { createSessionManager } from "../../src/env/sessions.js";
import type { Environment } from "../../src/env/types.js";
import type { EngineJudge } from "../../src/judge/create.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { sampleFields, startWorld, type ScriptedPolicy } from "../env/world.js";
import { agent, judgeAnswer } from "../../examples/support-desk/agents.js";

export { agent } from "../../examples/support-desk/agents.js";

/** Policies: `agent` (examples/support-desk/agents.ts), `echo` (answers with the session_id its call carried), plus `extra`. */
export function startSupportWorld(extra: Record<string, ScriptedPolicy> = {}): Promise<TestServer<unknown>> {
  return startWorld({ agent: (m) => agent(m), echo: (_m, body) => `session ${String((body as { session_id?: unknown }).session_id)}`, ...extra }, (q, view) => judgeAnswer(q.id, sampleFields(view.sample).response));
}

/**
 * A reward server over `env`'s sessions (`/v1/sessions`, `/v1/rollouts`), on `judge` and its
 * engine, whose rollouts may call only the world at `worldUrl` as their policy.
 */
export async function serveSessions(env: Environment, judge: EngineJudge, worldUrl: string): Promise<{ server: RewardServer; url: string }> {
  const sessions = createSessionManager({ env, engine: judge.engine, judge });
  const server = createRewardServer({ rubric: env.rubric, judge, dynamicRoutes: sessionRoutes({ env, sessions, engine: judge.engine, judge, allowPolicyHosts: [new URL(worldUrl).host] }), onClose: () => sessions.closeAll() });
  return { server, url: await server.listen(0) };
}
