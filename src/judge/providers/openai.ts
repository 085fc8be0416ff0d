/**
 * The OpenAI adapter (chat completions, non-streaming), also used for OpenAI-compatible servers
 * (vLLM, Ollama, llama.cpp). Thin by design: it maps neutral requests to the wire format and
 * back, and leaves retries to our scheduler.
 */
import OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { createOpenAIBatchApi } from "./openai-batch.js";
import { nodeHttpFetch } from "./http-fetch.js";
import { RubricateError } from "../../errors.js";
import { joinText, keyFromEnv, withDeadline } from "./call.js";
import { malformedResponse } from "./errors.js";
import type { CompletionRequest, CompletionResponse, Provider, TokenLogprob, ToolCall } from "./types.js";

/** Options of `createOpenAIProvider`; the key comes from the environment unless given in code. */
export interface OpenAIProviderOptions {
  /** A key given in code; judge files never carry one, only `apiKeyEnv`. */
  apiKey?: string;
  /** The variable holding the key (default `OPENAI_API_KEY`). */
  apiKeyEnv?: string;
  baseURL?: string;
  /** "openai" (default) or "openai-compatible" (a local server; the key is then optional). */
  name?: "openai" | "openai-compatible";
  /** Client-wide timeout in ms when a call gives none (default 600000, the SDK's). */
  timeoutMs?: number;
  /** The fetch the SDK calls (default: `nodeHttpFetch`, keep-alive `node:http`; see BENCHMARKS.md). */
  fetch?: typeof fetch;
}

/** A placeholder the SDK insists on for keyless local servers; not a secret. */
const NO_KEY = "not-needed";

function resolveKey(o: OpenAIProviderOptions, name: string): string {
  if (o.apiKey) return o.apiKey;
  // A compatible server gets a key only from a variable named for it: sending OPENAI_API_KEY
  // to an arbitrary base URL would hand the real key to a third party.
  if (name === "openai-compatible") return o.apiKeyEnv ? keyFromEnv(o.apiKeyEnv, name) : NO_KEY;
  return keyFromEnv(o.apiKeyEnv ?? "OPENAI_API_KEY", name);
}

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
  return body;
}

/** Maps a chat completion to the neutral response; a body that is not one is a retryable error. */
export function fromOpenAIResponse(res: ChatCompletion, name: string): CompletionResponse {
  if (typeof res !== "object" || res === null) throw malformedResponse(name, "body is not a JSON object");
  const choice = Array.isArray(res.choices) ? res.choices[0] : undefined;
  if (!choice?.message) throw malformedResponse(name, "no choices[0].message");
  const msg = choice.message;
  const toolCalls: ToolCall[] = [];
  for (const c of msg.tool_calls ?? []) {
    if (c.type === "function") toolCalls.push({ id: c.id, name: c.function.name, arguments: c.function.arguments });
  }
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

/**
 * A Provider over the official `openai` SDK (chat completions). SDK retries are off: our
 * scheduler is the only retry layer.
 * @example
 * const openai = createOpenAIProvider();                       // OPENAI_API_KEY
 * const local = createOpenAIProvider({ name: "openai-compatible", baseURL: "http://127.0.0.1:8000/v1" });
 * const res = await openai.complete({ model: "gpt-4.1-mini", messages: [{ role: "user", content: "Hi" }] });
 */
export function createOpenAIProvider(options: OpenAIProviderOptions = {}): Provider {
  const name = options.name ?? "openai";
  if (name === "openai-compatible" && !options.baseURL) {
    throw new RubricateError("JUDGE_CONFIG", "openai-compatible: base_url is required");
  }
  const apiKey = resolveKey(options, name);
  const client = new OpenAI({
    apiKey,
    baseURL: options.baseURL,
    maxRetries: 0,
    timeout: options.timeoutMs ?? 600_000,
    fetch: options.fetch ?? nodeHttpFetch,
  });
  const secrets = apiKey === NO_KEY ? [] : [apiKey];
  return {
    name,
    baseURL: client.baseURL,
    async complete(request, callOptions) {
      const body = toOpenAIBody(request, name);
      const res = await withDeadline(name, secrets, callOptions, (s) =>
        client.chat.completions.create(body, { signal: s.signal, ...(s.timeoutMs !== undefined ? { timeout: s.timeoutMs } : {}) }),
      );
      return fromOpenAIResponse(res, name);
    },
    batch: createOpenAIBatchApi(client, name, secrets),
  };
}
