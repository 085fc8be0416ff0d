/** A tool a policy model may call, declared with JSON Schema. */
export interface ToolSpec {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them (a JSON text, possibly invalid). */
  arguments: string;
}

/** A text part of a message; `cache: true` marks the end of a shared prefix (Anthropic `cache_control`). */
export interface TextPart {
  text: string;
  cache?: boolean;
}

/** A provider-neutral chat message. */
export interface ChatMessage {
  role: "user" | "assistant" | "tool";
  content: string | TextPart[];
  /** On assistant messages: the tool calls it made. */
  toolCalls?: ToolCall[];
  /** On tool messages: which call this answers. */
  toolCallId?: string;
}

/** One request to a chat model, neutral across providers. */
export interface CompletionRequest {
  model: string;
  system?: string | TextPart[];
  messages: ChatMessage[];
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  /** Structured output: OpenAI `response_format: json_schema`; Anthropic a forced tool with this input schema. */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  /** Ask for token logprobs (OpenAI and compatible servers; ignored by Anthropic). */
  logprobs?: boolean;
  topLogprobs?: number;
  tools?: ToolSpec[];
  stop?: string[];
  seed?: number;
  /**
   * Extra top-level fields of the request body, sent as they are (the OpenAI SDK's `extra_body`):
   * e.g. a trainer's `session_id`, so its policy server can match calls to token traces.
   */
  extraBody?: Record<string, unknown>;
}

export interface TokenLogprob {
  token: string;
  logprob: number;
  top?: { token: string; logprob: number }[];
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache. */
  cachedInputTokens: number;
  /** Anthropic: tokens written to its prompt cache. */
  cacheWriteTokens?: number;
}

/** A provider's answer, neutral across providers. */
export interface CompletionResponse {
  /** The text content; for structured output, the JSON text (Anthropic: the forced tool's input, serialised). */
  text: string;
  toolCalls?: ToolCall[];
  logprobs?: TokenLogprob[];
  /** "stop" | "length" | "tool_calls" | "refusal" | "content_filter" | provider-specific */
  finishReason: string;
  /** The model's refusal message, when it refused. */
  refusal?: string;
  usage: TokenUsage;
  model?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * A thin adapter over one provider's SDK. Throws only `RubricateError`s: `RATE_LIMITED` (429,
 * with `retryAfterMs`), `PROVIDER_HTTP` (with `status`; 408/409/5xx/529 retryable),
 * `PROVIDER_TIMEOUT`, `PROVIDER_NETWORK` (retryable), `ABORTED`, `MISSING_API_KEY`.
 */
export interface Provider {
  /** "openai" | "anthropic" | "openai-compatible" | "scripted" ... */
  readonly name: string;
  /** Part of the cache key: a different server may answer differently. */
  readonly baseURL?: string;
  complete(request: CompletionRequest, options?: CallOptions): Promise<CompletionResponse>;
  /** The provider's batch service, when it has one. */
  readonly batch?: BatchApi;
}

/** One request of a provider batch; `customId` is the cache key, so results land where live answers would. */
export interface BatchItem {
  customId: string;
  request: CompletionRequest;
}

/** A batch job's progress, reduced to what a client must act on. */
export interface BatchStatus {
  state: "in_progress" | "ended";
  /** The provider's own status word ("validating", "completed", "expired", "ended", …). */
  raw: string;
  counts?: { total?: number; succeeded?: number; failed?: number };
}

/** One result of a batch: an answer, or why there is none. */
export interface BatchResultItem {
  customId: string;
  outcome: "succeeded" | "errored" | "expired" | "canceled";
  response?: CompletionResponse;
  error?: { code: string; message: string };
}

/** A provider's batch service (OpenAI Batch API, Anthropic Message Batches). */
export interface BatchApi {
  /** Requests per batch this client sends (the runner splits larger sets). */
  readonly maxItems?: number;
  /** Items arrive as a stream so a 100k-request batch is never held in memory where the API allows. */
  submit(items: AsyncIterable<BatchItem>, options?: { signal?: AbortSignal; metadata?: Record<string, string> }): Promise<{ id: string }>;
  status(id: string, options?: { signal?: AbortSignal }): Promise<BatchStatus>;
  results(id: string, options?: { signal?: AbortSignal }): AsyncIterable<BatchResultItem>;
}
