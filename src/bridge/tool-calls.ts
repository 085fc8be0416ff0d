/**
 * Tool calls as trainers send them to `POST /v1/sessions/:id/step`. A trainer that generates
 * with its own engine (OpenRLHF's MultiTurnAgentExecutor, verl's interaction) hands over the
 * model's raw text, so the calls are still written inside it in the chat template's format;
 * a trainer behind an OpenAI-compatible server hands over the parsed `tool_calls`.
 *
 * - Hermes / Qwen 2.5 / Qwen 3 templates (and vLLM's `hermes` parser, verl's `hermes` format):
 *   `<tool_call>\n{"name": "...", "arguments": {...}}\n</tool_call>`, any number per turn, text
 *   around them kept as the turn's content.
 * - OpenAI `tool_calls`: `{id, type: "function", function: {name, arguments}}` with arguments a
 *   JSON text; our flat `{id, name, arguments}` is accepted too.
 */
import * as z from "zod";

/** A tool call in either wire shape; `arguments` a JSON object or the JSON text the model wrote. */
export interface WireToolCall {
  id?: string;
  name: string;
  arguments: string | Record<string, unknown>;
}

const Arguments = z.union([z.string(), z.record(z.string(), z.unknown())]).default({});
const FlatCall = z.strictObject({ id: z.string().min(1).max(256).optional(), name: z.string().min(1).max(64), arguments: Arguments });
const OpenAICall = z.strictObject({
  id: z.string().min(1).max(256).optional(),
  type: z.literal("function").optional(),
  function: z.strictObject({ name: z.string().min(1).max(64), arguments: Arguments }),
});

/** One tool call of a step body: ours (`{name, arguments}`) or OpenAI's (`{type, function: {name, arguments}}`). */
export const StepToolCallSchema = z.union([FlatCall, OpenAICall]).transform((c): WireToolCall => ("function" in c ? { ...(c.id ? { id: c.id } : {}), name: c.function.name, arguments: c.function.arguments } : c));

const BLOCK = /<tool_call>([\s\S]*?)<\/tool_call>/g;

/**
 * Splits a model's text into its Hermes-format tool calls and the text around them. A block whose
 * JSON does not parse, or has no string `name`, stays in the text: the model wrote something that
 * is not a call, and the environment answers it as text (as vLLM's hermes parser does).
 * @example toolCallsInText('Looking.\n<tool_call>{"name": "get_order", "arguments": {"order_id": "A1"}}</tool_call>')
 * // → { content: "Looking.", calls: [{ name: "get_order", arguments: { order_id: "A1" } }] }
 */
export function toolCallsInText(text: string): { content: string; calls: WireToolCall[] } {
  if (!text.includes("<tool_call>")) return { content: text, calls: [] };
  const calls: WireToolCall[] = [];
  const content = text.replace(BLOCK, (block, body: string) => {
    const call = parseCall(body);
    if (!call) return block;
    calls.push(call);
    return "";
  });
  return { content: calls.length ? content.trim() : text, calls };
}

function parseCall(body: string): WireToolCall | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.trim());
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const { name, arguments: args, parameters } = parsed as Record<string, unknown>;
  // Some templates (Llama 3.x JSON tools) write "parameters" where Hermes writes "arguments".
  const given = args ?? parameters ?? {};
  if (typeof name !== "string" || name.length === 0 || name.length > 64) return undefined;
  if (typeof given === "string") return { name, arguments: given };
  if (typeof given !== "object" || given === null || Array.isArray(given)) return undefined;
  return { name, arguments: given as Record<string, unknown> };
}
