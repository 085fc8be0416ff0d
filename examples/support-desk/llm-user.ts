/**
 * A simulated customer for the support desk: the database and tools of hooks.ts, plus an
 * envResponse that asks an LLM (ctx.llm, the environment's `user` model) to play the customer
 * with a persona and a goal taken from the task. The customer ends the conversation with [DONE].
 * Types are written out here (the shape of rubricate's EnvResponseContext) so the module depends
 * on the package's API, not on its sources.
 */
import base, { type Db } from "./hooks.js";

/** The marker the simulated customer puts at the end of its last message. */
export const DONE = "[DONE]";

interface Message {
  role: string;
  content: string | { text: string }[];
}

/** What rubricate hands envResponse (the part this hook reads). */
interface UserTurnContext {
  task: { id: string; inputs: Record<string, unknown> };
  state: Db;
  config: Record<string, unknown>;
  messages: Message[];
  turn: number;
  text: string;
  llm: (request: { model?: string; system?: string; messages?: { role: "user" | "assistant"; content: string }[]; temperature?: number; maxTokens?: number }) => Promise<string>;
}

/** The customer's instructions: who they are and what they want, from the task. */
export function personaPrompt(inputs: Record<string, unknown>): string {
  return [
    `You are a customer of an online shop writing to its support desk. Your e-mail is ${String(inputs.customer_email)}.`,
    `Your goal: ${String(inputs.message)}`,
    "Answer the agent's questions truthfully and briefly (one or two sentences), as this customer would. Never invent order numbers you were not given.",
    `When the agent has done what you asked or clearly explained why it cannot, thank them and end your message with ${DONE}.`,
  ].join("\n");
}

const textOf = (m: Message) => (typeof m.content === "string" ? m.content : m.content.map((p) => p.text).join(""));

/** The conversation as the customer sees it: the agent's words are the "user" side, tool traffic hidden. */
export function customerView(messages: Message[]): { role: "user" | "assistant"; content: string }[] {
  return messages
    .filter((m) => (m.role === "assistant" || m.role === "user") && textOf(m).trim() !== "")
    .slice(1) // the opening line comes from the task's prompt template
    .map((m) => ({ role: m.role === "assistant" ? ("user" as const) : ("assistant" as const), content: textOf(m) }));
}

let userTurns = 0;
const hooks = {
  ...base,
  envResponse: async (ctx: UserTurnContext) => {
    const limit = Number(ctx.config.max_user_turns ?? 4);
    const turns = ctx.messages.filter((m) => m.role === "user").length - 1;
    if (turns >= limit) return { done: true };
    const reply = await ctx.llm({ model: "user", system: personaPrompt(ctx.task.inputs), messages: customerView(ctx.messages), temperature: 0 });
    userTurns++;
    const done = reply.includes(DONE);
    return { message: reply.replace(DONE, "").trim(), done };
  },
  finalize: (ctx: UserTurnContext & { response: string }) => ({ db: ctx.state, user_turns: ctx.messages.filter((m) => m.role === "user").length - 1 }),
};

/** Simulated-customer replies so far in this process (for tests and logs). */
export const simulatedTurns = () => userTurns;

export default hooks;
