import { describe, expect, it } from "vitest";
import { createEngine } from "../../src/engine/engine.js";
import { loadEnvironment } from "../../src/env/load.js";
import { rollout } from "../../src/env/rollout.js";
import type { Policy } from "../../src/env/policy.js";
import { fromOpenAIResponse } from "../../src/providers/openai-wire.js";
import type { CompletionResponse, Provider } from "../../src/providers/types.js";

/** A policy whose server answers these chat-completion bodies in turn (the last one again after them). */
function policyAnswering(bodies: unknown[]): Policy {
  let i = 0;
  const provider: Provider = {
    name: "openai-compatible",
    baseURL: "http://policy.invalid/v1",
    complete: async (): Promise<CompletionResponse> => fromOpenAIResponse(bodies[Math.min(i++, bodies.length - 1)] as never, "openai-compatible"),
  };
  return { id: "malformed", provider, model: "m", params: {}, limits: { maxConcurrency: 1, maxRetries: 0, timeoutMs: 5000 }, cache: "off" };
}

const withCalls = (toolCalls: unknown[]) => ({ model: "m", choices: [{ index: 0, finish_reason: "tool_calls", message: { role: "assistant", content: null, tool_calls: toolCalls } }] });
const text = (content: string) => ({ model: "m", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }] });

describe("tool calls a policy server writes out of spec", () => {
  it("arguments sent as a JSON object, null or missing, and a call without an id or type, run as calls (the model reads what went wrong), never fail the rollout", async () => {
    const env = await loadEnvironment("tests/env/fixtures/tools/env.yaml");
    const engine = createEngine({ limits: { maxConcurrency: 1, maxRetries: 0, timeoutMs: 5000 } });
    const policy = policyAnswering([
      withCalls([
        { id: "a", type: "function", function: { name: "lookup", arguments: { word: "alpha" } } }, // llama.cpp / Ollama style: an object
        { id: "b", type: "function", function: { name: "lookup", arguments: null } },
        { id: "c", type: "function", function: { name: "lookup" } },
        { function: { name: "lookup", arguments: '{"word": "alpha"}' } }, // no id, no type
      ]),
      text("alpha"),
    ]);
    const rec = await rollout(env, policy, env.tasks[0], { engine, errors: "skip-criterion" });
    expect(rec.error).toBeUndefined();
    expect(rec.stopReason).not.toBe("error");
    expect(rec.toolCalls.map((c) => [c.name, c.error ?? "ok"])).toEqual([
      ["lookup", "ok"],
      ["lookup", "bad_arguments"],
      ["lookup", "bad_arguments"],
      ["lookup", "ok"],
    ]);
    expect(rec.toolCalls.every((c) => typeof c.arguments === "string" && typeof c.id === "string" && c.id !== "")).toBe(true);
    // Each result is answered under its own call's id, so the next request pairs them.
    expect(new Set(rec.toolCalls.map((c) => c.id)).size).toBe(4);
    expect(rec.response).toBe("alpha");
  });
});

describe("a rollout's tool calls share one regex budget", () => {
  it("arguments that spend it on costly pattern tests leave none for the next call's, which alone would have run", async () => {
    const env = await loadEnvironment("tests/env/fixtures/costly-arguments/env.yaml");
    const engine = createEngine({ limits: { maxConcurrency: 1, maxRetries: 0, timeoutMs: 5000 } });
    // ^(?!(a+)+$) backtracks 2^25 steps on each string (~0.15 s of worker CPU): 60 spend the budget, 3 do not.
    const costly = (n: number) => JSON.stringify({ queries: Array.from({ length: n }, (_, i) => `${"a".repeat(25)}b${"c".repeat(1_000)}${i}`) });
    const call = (id: string, n: number) => withCalls([{ id, type: "function", function: { name: "batch", arguments: costly(n) } }]);
    const rec = await rollout(env, policyAnswering([call("a", 60), call("b", 3), text("ran")]), env.tasks[0], { engine, errors: "skip-criterion" });
    expect(rec.toolCalls.map((c) => c.error ?? "ok")).toEqual(["bad_arguments", "bad_arguments"]);
    expect(rec.toolCalls[1].result).toMatch(/regex budget/);
    // In a rollout of its own, the three-string call runs.
    const alone = await rollout(env, policyAnswering([call("c", 3), text("ran")]), env.tasks[0], { engine, errors: "skip-criterion" });
    expect(alone.toolCalls.map((c) => c.error ?? "ok")).toEqual(["ok"]);
  }, 90_000);
});
