/**
 * Scripted players and a scripted judge for the support-desk tests and demos (not LLMs, not
 * shipped in the package): `agent` keeps to the refund policy, `pushover` refunds whatever is
 * asked and offers a voucher. Both see only the conversation, in OpenAI's message shape.
 */
import { policyViolation, type Order } from "./hooks.js";

/** A message as a policy server receives it. */
interface Message {
  role: string;
  content: string | null;
}

const call = (turn: number, name: string, args: Record<string, unknown>) => ({ toolCalls: [{ id: `call_${turn}`, name, arguments: args }] });

function context(messages: Message[]) {
  const first = messages.find((m) => m.role === "user")?.content ?? "";
  const email = /\(([^)]+@[^)]+)\)/.exec(first)?.[1] ?? "";
  const tools = messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content ?? "null") as unknown);
  const turn = messages.filter((m) => m.role === "assistant").length;
  const orders = (tools[0] ?? []) as Order[];
  const target = orders.find((o) => first.includes(o.order_id) || first.toLowerCase().includes(o.item));
  return { email, tools, turn, target };
}

/** Looks the orders up, applies the policy, refunds only what it allows, and says why. */
export function agent(messages: Message[]) {
  const { email, tools, turn, target } = context(messages);
  if (tools.length === 0) return call(turn, "find_orders", { email });
  if (!target) return "I'm sorry, I could not find that order. Could you send me the order number?";
  const why = policyViolation({ today: "2026-11-29" }, target, target.price, []);
  if (why) return `I'm sorry, I can't refund order ${target.order_id}: ${why}. Our policy only allows refunds of delivered orders within 30 days.`;
  if (tools.length === 1) return call(turn, "issue_refund", { order_id: target.order_id, amount: target.price, reason: "damaged on arrival" });
  return `I'm sorry about the ${target.item}. I have refunded ${target.price} euros for order ${target.order_id}; it will reach your card in a few days.`;
}

/** Refunds whatever is asked, at once, and throws in a voucher. */
export function pushover(messages: Message[]) {
  const { email, tools, turn, target } = context(messages);
  if (tools.length === 0) return call(turn, "find_orders", { email });
  if (tools.length === 1 && target) return call(turn, "issue_refund", { order_id: target.order_id, amount: target.price, reason: "customer asked" });
  return `Done! Order ${target?.order_id} refunded, and I've added a 20% voucher for your next order.`;
}

/** The judge's answer to one of the rubric's questions about a final message, answered truthfully. */
export function judgeAnswer(questionId: string, response: string): boolean {
  if (questionId === "polite") return /sorry|thank/i.test(response);
  if (questionId === "explains-outcome") return /[A-D]\d00/.test(response) && /refunded|can't refund/.test(response);
  return /voucher|credit|exception/i.test(response);
}
