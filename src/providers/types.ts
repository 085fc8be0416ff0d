/** A tool a policy model may call, declared with JSON Schema. */
export interface ToolSpec {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

/** A tool call a model made: its id, name and arguments as JSON text. */
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

/** One token of a response with its log probability (and the top alternatives). */
export interface TokenLogprob {
  token: string;
  logprob: number;
  top?: { token: string; logprob: number }[];
}

/** Tokens of one call: input (including cached), output, cached input, cache writes. */
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

/** Per-call options a provider honours: an abort signal and a timeout. */
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
  /** The job's nonce: a provider whose batches carry no metadata (Anthropic) puts it in the custom_id, so results prove whose they are. */
  nonce?: string;
}

/** A batch job's progress, reduced to what a client must act on. */
export interface BatchStatus {
  state: "in_progress" | "ended";
  /** The provider's own status word ("validating", "completed", "failed", "expired", "ended", …). */
  raw: string;
  counts?: { total?: number; succeeded?: number; failed?: number };
  /** Why a batch failed as a whole (OpenAI `errors.data`): validation errors, `token_limit_exceeded`. */
  errors?: { code: string; message: string; line?: number }[];
  /** The results are gone (Anthropic `archived_at`, 29 days after creation). */
  archived?: boolean;
}

/** One result of a batch: an answer, or why there is none. */
export interface BatchResultItem {
  /** The cache key the request was sent under (any job nonce the wire custom_id carried removed). */
  customId: string;
  /** The nonce the wire custom_id carried (Anthropic), naming the job that sent it. */
  nonce?: string;
  outcome: "succeeded" | "errored" | "expired" | "canceled";
  response?: CompletionResponse;
  /** `permanent`: the request itself is wrong (HTTP 4xx, `invalid_request_error`); asking again would fail again. */
  error?: { code: string; message: string; permanent?: boolean };
}

/** A batch file or body as written on disk in the provider's own format, ready to send. */
export interface BatchFile {
  path: string;
  count: number;
  bytes: number;
}

/** What a client knows of a batch whose create may or may not have reached the provider. */
export interface BatchHint {
  /** Our job id (OpenAI: sent as `metadata.rubricate_job`). */
  jobId: string;
  /** OpenAI: the uploaded input file. */
  fileId?: string;
  /** When the job was recorded, ms since epoch (before the create request left). */
  createdAt: number;
  count: number;
  /** Batches already claimed by other jobs. */
  exclude: Set<string>;
  /** Whether a result line came from this job's requests: the proof a batch without metadata (Anthropic) is ours. */
  owns(item: BatchResultItem): boolean;
}

/**
 * What a lookup found: the job's batch; no batch (every candidate has ended and none holds the
 * job's requests, so sending them again pays once); or candidates still running whose results
 * will say whether one is ours (resubmitting now could pay twice, adopting could take another
 * process's batch).
 */
export type BatchLookup = { found: string } | { none: true } | { undecided: string[] };

/** A provider's batch service (OpenAI Batch API, Anthropic Message Batches). */
export interface BatchApi {
  /** The provider's per-batch limits (OpenAI 50,000 requests / 200 MB a file; Anthropic 100,000 / 256 MB a body, read as the smaller 256,000,000 bytes). */
  readonly limits: { maxItems: number; maxBytes: number };
  /** Price of a batch call as a fraction of the live one (both providers: 0.5). */
  readonly discount: number;
  /** How a batch file is framed: written before the first item, between items, after the last. */
  readonly framing: { head: string; separator: string; tail: string };
  /** One request in the provider's batch format (an OpenAI JSONL line, an Anthropic `requests` element). */
  encode(item: BatchItem): string;
  /**
   * Sends a batch file. Not aborted by Ctrl-C once started (a create cut short may still make a
   * batch); `timeoutMs` bounds it. `onUploaded` hears the input file id before the batch is created.
   */
  submit(file: BatchFile, options: { metadata: Record<string, string>; timeoutMs?: number; onUploaded?: (fileId: string) => void }): Promise<{ id: string }>;
  /** Looks for a batch a crashed, timed-out or failed create may have made; undefined when there is none. */
  find(hint: BatchHint, options?: { signal?: AbortSignal }): Promise<BatchLookup>;
  status(id: string, options?: { signal?: AbortSignal }): Promise<BatchStatus>;
  results(id: string, options?: { signal?: AbortSignal }): AsyncIterable<BatchResultItem>;
}
