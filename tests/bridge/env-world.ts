/**
 * A support-desk world for the environment API tests: one OpenAI wire-format server playing the
 * scripted policies and the judge.
 */
import type { Reply, TestServer } from "../../src/testing/servers/common.js";
import { sampleFields, startWorld, type ScriptedPolicy, type WireMessage } from "../env/world.js";
import { policyViolation, type Order } from "../../examples/support-desk/hooks.js";

// The support-desk agent of examples/support-desk/run.test.ts: looks orders up, refunds what the policy allows.
export function agent(messages: WireMessage[]): Reply {
  const first = messages.find((m) => m.role === "user")?.content ?? "";
  const email = /\(([^)]+@[^)]+)\)/.exec(first)?.[1] ?? "";
  const tools = messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content ?? "null") as unknown);
  const turn = messages.filter((m) => m.role === "assistant").length;
  const orders = (tools[0] ?? []) as Order[];
  const target = orders.find((o) => first.includes(o.order_id) || first.toLowerCase().includes(o.item));
  if (tools.length === 0) return { toolCalls: [{ id: `call_${turn}`, name: "find_orders", arguments: { email } }] };
  if (!target) return "I'm sorry, I could not find that order.";
  const why = policyViolation({ today: "2026-11-29" }, target, target.price, []);
  if (why) return `I'm sorry, I can't refund order ${target.order_id}: ${why}. Our policy only allows refunds of delivered orders within 30 days.`;
  if (tools.length === 1) return { toolCalls: [{ id: `call_${turn}`, name: "issue_refund", arguments: { order_id: target.order_id, amount: target.price, reason: "damaged on arrival" } }] };
  return `I'm sorry about the ${target.item}. I have refunded ${target.price} euros for order ${target.order_id}; it will reach your card in a few days.`;
}


/** Policies: `agent` (above), `echo` (answers with the session_id its call carried), plus `extra`. */
export function startSupportWorld(extra: Record<string, ScriptedPolicy> = {}): Promise<TestServer<unknown>> {
  return startWorld({ agent: (m) => agent(m), echo: (_m, body) => `session ${String((body as { session_id?: unknown }).session_id)}`, ...extra }, (q, view) => {
    const r = sampleFields(view.sample).response;
    if (q.id === "polite") return /sorry|thank/i.test(r);
    if (q.id === "explains-outcome") return /[A-D]\d00/.test(r) && /refunded|can't refund/.test(r);
    return /voucher|credit|exception/i.test(r);
  });
}
