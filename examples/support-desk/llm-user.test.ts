import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEval } from "rubricate/env";
import { loadEnvironment } from "rubricate/env";
import { createPolicy } from "rubricate/env";
import { compareModels } from "rubricate/env";
import type { Environment } from "rubricate/env";
import type { TestServer } from "rubricate/testing";
import { connect, startWorld, type WireMessage } from "../../tests/env/world.js";
import { policyViolation, type Order } from "./hooks.js";
import { personaPrompt } from "./llm-user.js";

const call = (turn: number, name: string, args: Record<string, unknown>) => ({ toolCalls: [{ id: `call_${turn}`, name, arguments: args }] });

/** Asks what the customer wants, then works the order named in the customer's answers. */
function agent(messages: WireMessage[]) {
  const said = messages.filter((m) => m.role === "user").map((m) => m.content ?? "");
  const email = /\(([^)]+@[^)]+)\)/.exec(said[0])?.[1] ?? "";
  const turn = messages.filter((m) => m.role === "assistant").length;
  if (said.length === 1) return "Hello! Which order is it about, and what happened?";
  const tools = messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content ?? "null") as unknown);
  if (tools.length === 0) return call(turn, "find_orders", { email });
  const orders = tools[0] as Order[];
  const target = orders.find((o) => said.some((s) => s.includes(o.order_id) || s.toLowerCase().includes(o.item)));
  if (!target) return "I'm sorry, I could not find that order.";
  const why = policyViolation({ today: "2026-11-29" }, target, target.price, []);
  if (why) return `I'm sorry, I can't refund order ${target.order_id}: ${why}.`;
  if (tools.length === 1) return call(turn, "issue_refund", { order_id: target.order_id, amount: target.price, reason: "customer request" });
  return `I'm sorry about that. I have refunded ${target.price} euros for order ${target.order_id}.`;
}

/** The simulated customer: states its goal (from the persona prompt), thanks and ends once handled. */
function customer(messages: WireMessage[]) {
  const system = messages.find((m) => m.role === "system")?.content ?? "";
  const last = [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
  if (/refunded|can't refund/.test(last)) return "Thank you for your help. [DONE]";
  return /Your goal: (.*)/.exec(system)?.[1] ?? "I don't know.";
}

let server: TestServer<unknown>;
let env: Environment;
const userRequests = () => server.requests.filter((r) => (r.body as { model: string }).model === "user-sim");
beforeAll(async () => {
  env = await loadEnvironment("examples/support-desk/llm-user.yaml");
  server = await startWorld({ agent, "user-sim": customer }, () => true);
});
afterAll(() => server.close());

describe("support desk with an LLM customer (ctx.llm)", () => {
  it("the simulated customer is an LLM with a persona and a goal, called through the engine; its usage counts to the rollout", async () => {
    const { engine, judge, policies } = connect(server.url, ["agent"]);
    const user = createPolicy({ provider: "openai-compatible", model: "user-sim", base_url: server.url, max_retries: 1, price: { input: 3, output: 5 } });
    const { records } = await runEval(env, { policies, engine, judge, models: { user } });
    expect(records).toHaveLength(env.tasks.length);
    for (const r of records) {
      const task = env.tasks.find((t) => t.id === r.task)!;
      expect(r.error).toBeUndefined();
      expect(r.stopReason).toBe("env_done");
      // The customer named its order in its own words, from its goal.
      expect(r.messages[2]).toEqual({ role: "user", content: String(task.inputs.message) });
      expect(r.sample?.user_turns).toBe(2);
      expect(r.usage.hooks).toMatchObject({ calls: 2, cacheHits: 0 });
      expect(r.usage.hooks!.inputTokens).toBeGreaterThan(0);
      expect(r.usage.hooks!.costUsd).toBeGreaterThan(0);
      expect(r.verdicts.find((v) => v.id === "db-end-state")?.status).toBe("met");
    }
    // The summary's cost includes the simulated customer.
    const stats = compareModels(records).models[0];
    const hookCost = records.reduce((sum, r) => sum + (r.usage.hooks?.costUsd ?? 0), 0);
    expect(stats.usage.hooks.calls).toBe(2 * records.length);
    expect(stats.usage.costUsd).toBeCloseTo(stats.usage.policy.costUsd + stats.usage.judge.costUsd + hookCost, 10);
    // What the user model was sent: the persona as system prompt, the agent's words as "user" turns.
    const first = userRequests()[0].body as { messages: WireMessage[] };
    const task = env.tasks.find((t) => first.messages[0].content === personaPrompt(t.inputs));
    expect(task).toBeDefined();
    expect(first.messages.slice(1)).toEqual([{ role: "user", content: "Hello! Which order is it about, and what happened?" }]);

    // Same engine again: the customer's replies come from the cache (nothing paid twice).
    const before = userRequests().length;
    const again = await runEval(env, { policies, engine, judge, models: { user } });
    expect(userRequests().length).toBe(before);
    expect(again.records.every((r) => r.usage.hooks?.cacheHits === 2)).toBe(true);
  });
});
