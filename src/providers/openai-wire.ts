/**
 * The OpenAI chat-completions wire format: neutral requests to request bodies, responses back.
 * Shared by the live adapter (openai.ts) and the batch adapter (openai-batch.ts), so neither
 * imports the other.
 */
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { sha256Hex } from "../text/sha256.js";
import { joinText } from "./call.js";
import { malformedResponse } from "./errors.js";
import type { CompletionRequest, CompletionResponse, TokenLogprob, ToolCall } from "./types.js";

/** Maps a neutral request to a chat completions body (exported for request-shape tests). */
export function toOpenAIBody(req: CompletionRequest, name: string): ChatCompletionCreateParamsNonStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (req.system !== undefined) messages.push({ role: "system", content: joinText(req.system) });
  for (const m of req.messages) {
    const text = joinText(m.content);
    if (m.role === "tool") {
      messages.push({ role: "tool", tool_call_id: m.toolCallId ?? "", content: text });
    } else if (m.role === "assistant") {
      messages.push({
        role: "assistant",
        content: m.toolCalls?.length && text === "" ? null : text,
        ...(m.toolCalls?.length
          ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } })) }
          : {}),
      });
    } else {
      messages.push({ role: "user", content: text });
    }
  }
  const body: ChatCompletionCreateParamsNonStreaming = { model: req.model, messages };
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.top_p = req.topP;
  // OpenAI's reasoning models reject max_tokens; many compatible servers only know max_tokens.
  if (req.maxTokens !== undefined) {
    if (name === "openai") body.max_completion_tokens = req.maxTokens;
    else body.max_tokens = req.maxTokens;
  }
  if (req.stop?.length) body.stop = req.stop;
  if (req.seed !== undefined) body.seed = req.seed;
  if (req.jsonSchema) {
    body.response_format = {
      type: "json_schema",
      json_schema: { name: req.jsonSchema.name, schema: req.jsonSchema.schema, strict: true },
    };
  }
  if (req.logprobs) {
    body.logprobs = true;
    body.top_logprobs = req.topLogprobs ?? 5;
  }
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({
      type: "function" as const,
      function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters },
    }));
  }
  // Fields the caller's server understands and the SDK's types do not (a trainer's session_id); ours win.
  if (req.extraBody) return { ...req.extraBody, ...body } as ChatCompletionCreateParamsNonStreaming;
  return body;
}

/**
 * One tool call of a chat completion as the neutral `ToolCall`. Servers other than OpenAI's write
 * them out of spec (llama.cpp, Ollama and some vLLM parsers: `arguments` as a JSON object, or
 * null; no `id`; no `type`): such a call is still a call, with its arguments as JSON text and an id
 * of its own, so the tool answers it (bad arguments become a result the model reads) and the next
 * request pairs the result with it. The id is made from the answer itself (`answerText`), not at
 * random: a resumed rollout reads the same answer from the cache and must send the same next
 * request, or its cache key differs and the call is paid again. A `type` other than "function"
 * (a custom tool) is left out.
 */
function wireToolCall(c: unknown, index: number, answerText: string): ToolCall | undefined {
  if (typeof c !== "object" || c === null) return undefined;
  const { id, type, function: fn } = c as { id?: unknown; type?: unknown; function?: unknown };
  if ((type !== undefined && type !== "function") || typeof fn !== "object" || fn === null) return undefined;
  const { name, arguments: args } = fn as { name?: unknown; arguments?: unknown };
  const text = typeof args === "string" ? args : args === undefined || args === null ? "" : JSON.stringify(args);
  const callName = typeof name === "string" ? name : "";
  return {
    id: typeof id === "string" && id !== "" ? id : `call_${index}_${sha256Hex(`${index}\u0000${callName}\u0000${text}\u0000${answerText}`).slice(0, 12)}`,
    name: callName,
    arguments: text,
  };
}

/** Maps a chat completion to the neutral response; a body that is not one is a retryable error. */
export function fromOpenAIResponse(res: ChatCompletion, name: string): CompletionResponse {
  if (typeof res !== "object" || res === null) throw malformedResponse(name, "body is not a JSON object");
  const choice = Array.isArray(res.choices) ? res.choices[0] : undefined;
  if (!choice?.message) throw malformedResponse(name, "no choices[0].message");
  const msg = choice.message;
  const calls: unknown[] = Array.isArray(msg.tool_calls) ? msg.tool_calls : [];
  // Only an answer with a call lacking its id pays for hashing the answer's text.
  const answerText = calls.some((c) => typeof (c as { id?: unknown } | null)?.id !== "string") ? JSON.stringify(msg) : "";
  const toolCalls: ToolCall[] = calls.flatMap((c, i) => wireToolCall(c, i, answerText) ?? []);
  const logprobs: TokenLogprob[] | undefined = choice.logprobs?.content?.map((t) => ({
    token: t.token,
    logprob: t.logprob,
    top: t.top_logprobs?.map((a) => ({ token: a.token, logprob: a.logprob })),
  }));
  const refused = typeof msg.refusal === "string" && msg.refusal !== "";
  const u = res.usage;
  return {
    text: msg.content ?? "",
    ...(toolCalls.length ? { toolCalls } : {}),
    ...(logprobs ? { logprobs } : {}),
    finishReason: refused ? "refusal" : (choice.finish_reason ?? "stop"),
    ...(refused ? { refusal: msg.refusal as string } : {}),
    usage: {
      inputTokens: u?.prompt_tokens ?? 0,
      outputTokens: u?.completion_tokens ?? 0,
      cachedInputTokens: u?.prompt_tokens_details?.cached_tokens ?? 0,
    },
    model: res.model,
  };
}
