/**
 * A local world for environment tests: one OpenAI wire-format server that plays scripted policy
 * models (routed by the request's `model`) and the judge (model "judge-model", answered by
 * `judgeResponder`), plus helpers to build a shared engine, judge and policies against it.
 */
import { openCache } from "../../src/engine/cache/index.js";
import { createEngine, type Engine } from "../../src/engine/engine.js";
import { createPolicy, type Policy } from "../../src/env/policy.js";
import { createJudge, type EngineJudge } from "../../src/judge/create.js";
import type { Reply, TestServer } from "../../src/testing/servers/common.js";
import { judgeResponder, type AskedQuestion, type Decision, type JudgeRequestView } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";

/** A message as the policy server receives it (OpenAI chat format). */
export interface WireMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** A scripted policy: the conversation so far in, the model's reply out. */
export type ScriptedPolicy = (messages: WireMessage[], body: Record<string, unknown>) => Reply;

export const JUDGE_MODEL = "judge-model";

/** Starts the server; `policies` maps a model name to its script. */
export async function startWorld(policies: Record<string, ScriptedPolicy>, decide: (q: AskedQuestion, view: JudgeRequestView) => Decision): Promise<TestServer<unknown>> {
  const judge = judgeResponder(decide);
  return (await startOpenAIServer({
    respond: (body) => {
      const model = String(body.model);
      if (model === JUDGE_MODEL) return judge(body);
      const script = policies[model];
      if (!script) return { fault: "500" };
      return script(body.messages as WireMessage[], body);
    },
  })) as TestServer<unknown>;
}

/** A shared engine (memory cache unless a path is given), a judge on it and policies for `models`. */
export function connect(url: string, models: string[], options: { cache?: string | false } = {}): { engine: Engine; judge: EngineJudge; policies: Policy[] } {
  const engine = createEngine({ cache: openCache({ path: options.cache ?? false }), limits: { maxConcurrency: 4, maxRetries: 1, timeoutMs: 10_000, backoffBaseMs: 5, backoffMaxMs: 20 } });
  const judge = createJudge({ provider: "openai-compatible", base_url: url, model: JUDGE_MODEL, max_retries: 1, max_concurrency: 4 }, { engine });
  const policies = models.map((m) => createPolicy({ provider: "openai-compatible", model: m, base_url: url, max_retries: 1, max_concurrency: 4, price: { input: 1, output: 2 } }));
  return { engine, judge, policies };
}

/** The text of the last message with this role. */
export function lastOf(messages: WireMessage[], role: string): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === role) return messages[i].content ?? "";
  return "";
}

/** The fields of a judge request's sample block (`### name` sections) by name. */
export function sampleFields(sample: string): Record<string, string> {
  const out: Record<string, string> = {};
  const parts = sample.split(/^### ([A-Za-z0-9_.-]+)\n/m);
  for (let i = 1; i < parts.length; i += 2) out[parts[i]] = parts[i + 1].replace(/\n+$/, "");
  return out;
}

/** Every tool result text in a transcript rendered by `renderTranscript`. */
export function toolResults(transcript: string): string {
  return [...transcript.matchAll(/^\[tool result [^\]]*\]\n([\s\S]*?)(?=\n\n\[|$)/gm)].map((m) => m[1]).join("\n");
}
