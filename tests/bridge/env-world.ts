/**
 * A support-desk world for the environment API tests: one OpenAI wire-format server playing the
 * scripted policies and the judge.
 */
import type { TestServer } from "../../src/testing/servers/common.js";
import { sampleFields, startWorld, type ScriptedPolicy } from "../env/world.js";
import { agent, judgeAnswer } from "../../examples/support-desk/agents.js";

export { agent } from "../../examples/support-desk/agents.js";

/** Policies: `agent` (examples/support-desk/agents.ts), `echo` (answers with the session_id its call carried), plus `extra`. */
export function startSupportWorld(extra: Record<string, ScriptedPolicy> = {}): Promise<TestServer<unknown>> {
  return startWorld({ agent: (m) => agent(m), echo: (_m, body) => `session ${String((body as { session_id?: unknown }).session_id)}`, ...extra }, (q, view) => judgeAnswer(q.id, sampleFields(view.sample).response));
}
