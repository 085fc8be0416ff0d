/**
 * An in-memory order database behind three tools. Every rollout gets its own copy of the seed
 * (db.json), so what a policy does is visible in the end state the checks read.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
// rubricate is a peer dependency: the types of the rubricate that runs this environment.
import type { CheckFunction, EnvHooks, FinalizeContext, HookContext } from "rubricate";

/** One order of the mock shop. */
export interface Order {
  order_id: string;
  email: string;
  item: string;
  price: number;
  status: "delivered" | "shipped";
  delivered_at: string | null;
}

/** One refund the agent issued. */
export interface Refund {
  order_id: string;
  amount: number;
  reason: string;
}

/** The database of one rollout. */
export interface Db {
  orders: Order[];
  refunds: Refund[];
  today: string;
}

/** Days allowed between delivery and refund. */
export const REFUND_WINDOW_DAYS = 30;

/** Why the policy forbids refunding this order, or undefined when it allows it. */
export function policyViolation(db: Pick<Db, "today">, order: Order | undefined, amount: number, earlier: Refund[]): string | undefined {
  if (!order) return "no such order";
  if (order.status !== "delivered" || !order.delivered_at) return `order ${order.order_id} is not delivered yet`;
  const days = (Date.parse(db.today) - Date.parse(order.delivered_at)) / 86_400_000;
  if (days > REFUND_WINDOW_DAYS) return `order ${order.order_id} was delivered ${days} days ago (limit ${REFUND_WINDOW_DAYS})`;
  if (earlier.some((r) => r.order_id === order.order_id)) return `order ${order.order_id} was already refunded`;
  if (Math.abs(amount - order.price) > 0.005) return `refund of ${amount} for order ${order.order_id} is not its full price ${order.price}`;
  return undefined;
}

const order = (db: Db, id: string) => db.orders.find((o) => o.order_id === id);

export const tools = {
  find_orders: ({ email }: { email: string }, { state }: HookContext<Db>) => state.orders.filter((o) => o.email === email.toLowerCase()),
  get_order: ({ order_id }: { order_id: string }, { state }: HookContext<Db>) => {
    const found = order(state, order_id);
    if (!found) throw new Error(`no order ${order_id}`);
    return found;
  },
  // The tool does what it is told (like a real back office): keeping to the policy is the agent's job.
  issue_refund: ({ order_id, amount, reason }: Refund, { state }: HookContext<Db>) => {
    if (!order(state, order_id)) throw new Error(`no order ${order_id}`);
    state.refunds.push({ order_id, amount, reason });
    return { ok: true, refunded: amount, order_id };
  },
};

const dbOf = (sample: Record<string, unknown>) => sample.db as Db;

export const checks: Record<string, CheckFunction> = {
  /** The refunds in the database are exactly the task's expected ones (order and amount). */
  "refunds-match-expected": (_text, { sample }) => {
    const expected = ((sample.answer as { refunds: Omit<Refund, "reason">[] }).refunds ?? []).map((r) => `${r.order_id}:${r.amount.toFixed(2)}`).sort();
    const actual = dbOf(sample).refunds.map((r) => `${r.order_id}:${r.amount.toFixed(2)}`).sort();
    const pass = JSON.stringify(expected) === JSON.stringify(actual);
    return { pass, reasoning: `refunds ${actual.join(", ") || "none"}; expected ${expected.join(", ") || "none"}` };
  },
  /** No refund in the database breaks the policy. */
  "refunds-follow-policy": (_text, { sample }) => {
    const db = dbOf(sample);
    const problems = db.refunds.map((r, i) => policyViolation(db, order(db, r.order_id), r.amount, db.refunds.slice(0, i))).filter(Boolean);
    return { pass: problems.length === 0, reasoning: problems.length ? problems.join("; ") : "every refund within policy" };
  },
};

const hooks: EnvHooks<Db> = {
  setup: ({ config, envDir }) => {
    const seed = JSON.parse(readFileSync(resolve(envDir, String(config.database ?? "db.json")), "utf8")) as Omit<Db, "today">;
    return { ...structuredClone(seed), today: String(config.today ?? new Date().toISOString().slice(0, 10)) };
  },
  tools,
  finalize: ({ state }: FinalizeContext<Db>) => ({ db: state }),
  checks,
};

export default hooks;
