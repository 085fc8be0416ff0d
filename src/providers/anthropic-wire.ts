/**
 * The Anthropic messages wire format: neutral requests to request bodies, messages back.
 * Structured output is a forced tool call whose input is the answer; `cache: true` text parts
 * become `cache_control` breakpoints. Shared by the live and batch adapters.
 */
import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import { joinText } from "./call.js";
import { malformedResponse } from "./errors.js";
import type { CompletionRequest, CompletionResponse, TextPart, ToolCall } from "./types.js";

/** Anthropic requires max_tokens; judges answer briefly, so a modest default. */
const DEFAULT_MAX_TOKENS = 1024;

function textBlocks(content: string | TextPart[]): TextBlockParam[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return content
    .filter((p) => p.text !== "")
    .map((p) => (p.cache ? { type: "text", text: p.text, cache_control: { type: "ephemeral" } } : { type: "text", text: p.text }));
}

function parseArgs(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    // The API only takes objects; keep the model's raw text rather than dropping the call.
    return { raw: args };
  }
}

/** The messages body with the sampling fields the SDK's types lag behind on. */
export type AnthropicBody = MessageCreateParamsNonStreaming & { temperature?: number; top_p?: number };

/** Maps a neutral request to a messages body (exported for request-shape tests). */
export function toAnthropicBody(req: CompletionRequest): AnthropicBody {
  const messages: MessageParam[] = [];
  const push = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    const last = messages[messages.length - 1];
    // Roles must alternate: tool results and a following user turn share one user message.
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const m of req.messages) {
    if (m.role === "tool") {
      push("user", [{ type: "tool_result", tool_use_id: m.toolCallId ?? "", content: joinText(m.content) }]);
    } else if (m.role === "assistant") {
      const uses: ContentBlockParam[] = (m.toolCalls ?? []).map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: parseArgs(c.arguments) }));
      push("assistant", [...textBlocks(m.content), ...uses]);
    } else {
      push("user", textBlocks(m.content));
    }
  }
  const body: AnthropicBody = { model: req.model, max_tokens: req.maxTokens ?? DEFAULT_MAX_TOKENS, messages };
  if (req.system !== undefined) {
    body.system = typeof req.system === "string" ? req.system : textBlocks(req.system);
  }
  // The SDK's types dropped temperature and top_p, but the API takes them for most models and a
  // judge at temperature 0 matters: typed locally, sent only when the request sets them.
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.stop?.length) body.stop_sequences = req.stop;
  const tools: Tool[] = (req.tools ?? []).map((t) => ({
    name: t.name,
    ...(t.description ? { description: t.description } : {}),
    input_schema: t.parameters as Tool["input_schema"],
  }));
  if (req.jsonSchema) {
    tools.push({ name: req.jsonSchema.name, input_schema: req.jsonSchema.schema as Tool["input_schema"] });
    body.tool_choice = { type: "tool", name: req.jsonSchema.name };
  }
  if (tools.length) body.tools = tools;
  return body;
}

const STOP: Record<string, string> = { end_turn: "stop", stop_sequence: "stop", max_tokens: "length", tool_use: "tool_calls", refusal: "refusal" };

/** Maps a message to the neutral response; the forced tool's input becomes `text`. */
export function fromAnthropicResponse(res: Message, jsonTool?: string): CompletionResponse {
  if (typeof res !== "object" || res === null || !Array.isArray(res.content)) {
    throw malformedResponse("anthropic", "body is not a message");
  }
  let text = "";
  let answer: string | undefined;
  const toolCalls: ToolCall[] = [];
  for (const b of res.content) {
    if (b.type === "text") text += b.text;
    else if (b.type === "tool_use") {
      if (jsonTool !== undefined && b.name === jsonTool && answer === undefined) answer = JSON.stringify(b.input);
      else toolCalls.push({ id: b.id, name: b.name, arguments: JSON.stringify(b.input) });
    }
  }
  const stop = res.stop_reason ?? "stop";
  const refused = stop === "refusal";
  // A forced tool's answer is the reply itself, not a tool call the caller should run.
  const finishReason = answer !== undefined && stop === "tool_use" && toolCalls.length === 0 ? "stop" : (STOP[stop] ?? stop);
  const u = res.usage;
  return {
    text: refused ? "" : (answer ?? text),
    ...(toolCalls.length ? { toolCalls } : {}),
    finishReason,
    ...(refused ? { refusal: text || "refused" } : {}),
    usage: {
      // Anthropic's input_tokens excludes cache reads and writes; we report the total, as OpenAI does.
      inputTokens: (u?.input_tokens ?? 0) + (u?.cache_read_input_tokens ?? 0) + (u?.cache_creation_input_tokens ?? 0),
      outputTokens: u?.output_tokens ?? 0,
      cachedInputTokens: u?.cache_read_input_tokens ?? 0,
      cacheWriteTokens: u?.cache_creation_input_tokens ?? 0,
    },
    model: res.model,
  };
}
