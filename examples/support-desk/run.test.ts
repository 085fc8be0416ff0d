import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEval } from "../../src/env/eval.js";
import { loadEnvironment } from "../../src/env/load.js";
import { failedCriteria } from "../../src/env/stats.js";
import type { Environment } from "../../src/env/types.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { connect, sampleFields, startWorld, type WireMessage } from "../../tests/env/world.js";
import { policyViolation, type Order } from "./hooks.js";

const call = (turn: number, name: string, args: Record<string, unknown>) => ({ toolCalls: [{ id: `call_${turn}`, name, arguments: args }] });

function context(messages: WireMessage[]) {
  const first = messages.find((m) => m.role === "user")?.content ?? "";
  const email = /\(([^)]+@[^)]+)\)/.exec(first)?.[1] ?? "";
  const tools = messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content ?? "null") as unknown);
  const turn = messages.filter((m) => m.role === "assistant").length;
  const orders = (tools[0] ?? []) as Order[];
  const target = orders.find((o) => first.includes(o.order_id) || first.toLowerCase().includes(o.item));
  return { email, tools, turn, target };
}

/** Looks the orders up, applies the policy, refunds only what it allows, and says why. */
function agent(messages: WireMessage[]) {
  const { email, tools, turn, target } = context(messages);
  if (tools.length === 0) return call(turn, "find_orders", { email });
  if (!target) return "I'm sorry, I could not find that order. Could you send me the order number?";
  const why = policyViolation({ today: "2026-11-29" }, target, target.price, []);
  if (why) return `I'm sorry, I can't refund order ${target.order_id}: ${why}. Our policy only allows refunds of delivered orders within 30 days.`;
  if (tools.length === 1) return call(turn, "issue_refund", { order_id: target.order_id, amount: target.price, reason: "damaged on arrival" });
  return `I'm sorry about the ${target.item}. I have refunded ${target.price} euros for order ${target.order_id}; it will reach your card in a few days.`;
}

/** Refunds whatever is asked, at once, and throws in a voucher. */
function pushover(messages: WireMessage[]) {
  const { email, tools, turn, target } = context(messages);
  if (tools.length === 0) return call(turn, "find_orders", { email });
  if (tools.length === 1 && target) return call(turn, "issue_refund", { order_id: target.order_id, amount: target.price, reason: "customer asked" });
  return `Done! Order ${target?.order_id} refunded, and I've added a 20% voucher for your next order.`;
}

let server: TestServer<unknown>;
let env: Environment;
beforeAll(async () => {
  env = await loadEnvironment("examples/support-desk/env.yaml");
  server = await startWorld({ agent: (m) => agent(m), pushover: (m) => pushover(m) }, (q, view) => {
    const r = sampleFields(view.sample).response;
    if (q.id === "polite") return /sorry|thank/i.test(r);
    if (q.id === "explains-outcome") return /[A-D]\d00/.test(r) && /refunded|can't refund/.test(r);
    return /voucher|credit|exception/i.test(r);
  });
});
afterAll(() => server.close());

describe("support-desk example", () => {
  it("the database's end state and the conversation decide the reward", async () => {
    const { engine, judge, policies } = connect(server.url, ["agent", "pushover"]);
    const { records } = await runEval(env, { policies, engine, judge });
    const by = (model: string, task: string) => records.find((r) => r.model.includes(model) && r.task === task)!;
    for (const task of env.tasks) {
      const r = by("agent", task.id);
      expect(failedCriteria(r)).toEqual([]);
      expect(r.reward).toBe(1);
    }
    expect(by("agent", "damaged-blender").toolCalls.map((c) => c.name)).toEqual(["find_orders", "issue_refund"]);
    expect(by("agent", "late-return").toolCalls.map((c) => c.name)).toEqual(["find_orders"]);

    // The right refund, but rude and with a voucher: 5 + 3 + 2 − 3 of 11 points. Its database holds
    // one refund of A100 although the agent refunded A100 too: each rollout has its own copy.
    const lucky = by("pushover", "damaged-blender");
    expect(failedCriteria(lucky)).toEqual(["polite", "promises-outside-policy"]);
    expect(lucky.reward).toBeCloseTo(7 / 11, 10);
    // A forbidden refund fails the required end-state check: reward 0 whatever else is said.
    for (const task of ["late-return", "not-delivered"]) {
      const r = by("pushover", task);
      expect(r.reward).toBe(0);
      expect(failedCriteria(r)).toContain("db-end-state");
      expect(failedCriteria(r)).toContain("follows-refund-policy");
    }
    expect(by("pushover", "late-return").verdicts.find((v) => v.id === "follows-refund-policy")?.reasoning).toMatch(/delivered 101 days ago/);
    engine.close();
  });
});
