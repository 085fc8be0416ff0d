/**
 * A rollout's trajectory for the `tool_calls` kind (kinds/tool-calls.ts): the calls in order,
 * from rubricate rollouts (`tool_calls: [{ name, arguments, result }]`) or OpenAI chat messages
 * (`messages` with assistant `tool_calls` and `role: tool` results), and whether an answer
 * states a tool's result.
 */
import { RubricateError } from "../errors.js";
import type { Sample } from "../types.js";
import { extractNumber } from "./number.js";

/** One call in a trajectory. */
export interface TrajectoryCall {
  name: string;
  /** The arguments as the model wrote them (a JSON string), or an object. */
  arguments: unknown;
  result?: string;
}

/** The tool calls of a sample, in order, from rubricate's `tool_calls` or OpenAI-style `messages`. */
export function readTrajectory(sample: Sample, field?: string): TrajectoryCall[] {
  const source = field ?? (sample.tool_calls !== undefined ? "tool_calls" : sample.messages !== undefined ? "messages" : undefined);
  if (source === undefined) throw new RubricateError("MISSING_INPUT", "the sample has no tool_calls or messages input for a tool_calls check");
  let value = sample[source];
  // An empty cell (a CSV column, a rollout without tools) is an empty trajectory.
  if (typeof value === "string" && value.trim() === "") return [];
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      throw new RubricateError("BAD_INPUT", `the sample's "${source}" input is not a JSON list of tool calls or messages`);
    }
  }
  if (!Array.isArray(value)) throw new RubricateError(value === undefined || value === null ? "MISSING_INPUT" : "BAD_INPUT", `the sample's "${source}" input is not a list of tool calls or messages`);
  const isMessages = value.some((m) => m && typeof m === "object" && "role" in m);
  return isMessages ? fromMessages(value) : value.map((c, i) => fromCall(c, `${source}[${i}]`));
}

function fromCall(raw: unknown, where: string): TrajectoryCall {
  if (!raw || typeof raw !== "object") throw new RubricateError("BAD_INPUT", `${where} is not a tool call object`);
  const call = raw as Record<string, unknown>;
  const fn = (call.function ?? call) as Record<string, unknown>;
  if (typeof fn.name !== "string") throw new RubricateError("BAD_INPUT", `${where} has no tool name`);
  const result = call.result ?? call.output;
  return { name: fn.name, arguments: fn.arguments ?? fn.args ?? fn.input ?? {}, ...(result !== undefined && result !== null ? { result: typeof result === "string" ? result : JSON.stringify(result) } : {}) };
}

function fromMessages(messages: unknown[]): TrajectoryCall[] {
  const calls: TrajectoryCall[] = [];
  const byId = new Map<string, TrajectoryCall>();
  messages.forEach((m, i) => {
    if (!m || typeof m !== "object") return;
    const message = m as Record<string, unknown>;
    const toolCalls = message.tool_calls ?? message.toolCalls;
    if (message.role === "assistant" && Array.isArray(toolCalls)) {
      toolCalls.forEach((c, j) => {
        const call = fromCall(c, `messages[${i}].tool_calls[${j}]`);
        calls.push(call);
        const id = (c as { id?: unknown }).id;
        if (typeof id === "string") byId.set(id, call);
      });
    }
    if (message.role === "tool") {
      const id = message.tool_call_id ?? message.toolCallId;
      const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
      const call = typeof id === "string" ? byId.get(id) : calls[calls.length - 1];
      if (call) call.result = content;
    }
  });
  return calls;
}

export const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export function parseArguments(args: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  if (typeof args !== "string") return { ok: true, value: args };
  try {
    return { ok: true, value: JSON.parse(args) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** True when the response states the tool's result: the same number, or the result's text. */
export function usesResult(response: string, result: string): boolean {
  const expected = extractNumber(result, "last");
  const trimmed = result.trim();
  if (expected !== undefined && /^[-−]?[\d.,\s/eE+]+$/.test(trimmed)) {
    const got = extractNumber(response, undefined);
    return got !== undefined && Math.abs(got - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
  }
  const norm = (s: string) => s.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
  return trimmed !== "" && norm(response).includes(norm(trimmed));
}
