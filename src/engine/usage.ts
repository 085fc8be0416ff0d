import type { CompletionRequest, CompletionResponse, TokenUsage } from "../providers/types.js";
import type { Usage } from "../types.js";

/** USD per million tokens (the judge file's `price`, whose extra fields are ignored here). */
export interface TokenPrice {
  input: number;
  output: number;
  /** Price of input tokens served from the provider's prompt cache; defaults to `input`. */
  cached_input?: number;
  /** Fraction of the live price paid through the batch API (e.g. 0.5). */
  batch_discount?: number;
  /** Price of input tokens written to the provider's prompt cache (Anthropic); defaults to 1.25 × `input`. */
  cache_write?: number;
}

/**
 * What cache writes cost above the plain input price (Anthropic bills them at 1.25× by default);
 * `costUsd` bills them as plain input, so a live call adds this.
 * @example cacheWritePremiumUsd({ inputTokens: 2000, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 1000 }, { input: 3, output: 15 }) // 0.00075
 */
export function cacheWritePremiumUsd(usage: TokenUsage, price: TokenPrice): number {
  const writes = usage.cacheWriteTokens ?? 0;
  return (writes * ((price.cache_write ?? price.input * 1.25) - price.input)) / 1e6;
}

/**
 * Estimated cost in USD of one response. `inputTokens` is taken to include `cachedInputTokens`
 * (OpenAI's convention: prompt_tokens counts cached ones), so cached ones are billed at
 * `cached_input` instead of `input`. Anthropic's `input_tokens` excludes cache reads: its adapter
 * must report their sum, or cached tokens are under-counted here.
 * @example
 * costUsd({ inputTokens: 1000, outputTokens: 50, cachedInputTokens: 800 }, { input: 2.5, output: 10, cached_input: 1.25 })
 */
export function costUsd(usage: TokenUsage, price: TokenPrice): number {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const fresh = usage.inputTokens - cached;
  return (fresh * price.input + cached * (price.cached_input ?? price.input) + usage.outputTokens * price.output) / 1e6;
}

/**
 * The one classification of a call's usage: a paid call counts once with its tokens and cost; an
 * answer that cost nothing this time (a cache hit, or merged into an identical call in flight)
 * counts as a cache hit with no tokens and no cost, whatever the stored answer once used.
 * @example callUsage(response, false, { input: 2.5, output: 10 }) // { calls: 1, cacheHits: 0, inputTokens: …, costUsd: … }
 */
export function callUsage(response: CompletionResponse, cached: boolean, price?: TokenPrice): Usage {
  if (cached) return { calls: 0, cacheHits: 1, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0 };
  const { inputTokens, outputTokens, cachedInputTokens } = response.usage;
  return { calls: 1, cacheHits: 0, inputTokens, outputTokens, cachedInputTokens, costUsd: price ? costUsd(response.usage, price) + cacheWritePremiumUsd(response.usage, price) : 0 };
}

/**
 * A rough token count of a request for the tpm bucket before the call (~4 characters a token,
 * plus `maxTokens` since providers reserve it); corrected with the real usage afterwards.
 */
export function estimateTokens(request: CompletionRequest): number {
  let chars = textLength(request.system);
  for (const m of request.messages) {
    chars += textLength(m.content);
    for (const call of m.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  }
  if (request.jsonSchema) chars += schemaLength(request.jsonSchema.schema);
  if (request.tools) chars += JSON.stringify(request.tools).length;
  return Math.ceil(chars / 4) + (request.maxTokens ?? 0);
}

const schemaLengths = new WeakMap<object, number>();

/** The JSON length of a structured-output schema; a judge reuses one schema object per id list, so it is measured once. */
function schemaLength(schema: Record<string, unknown>): number {
  let n = schemaLengths.get(schema);
  if (n === undefined) schemaLengths.set(schema, (n = JSON.stringify(schema).length));
  return n;
}

function textLength(content: string | { text: string }[] | undefined): number {
  if (content === undefined) return 0;
  if (typeof content === "string") return content.length;
  return content.reduce((n, p) => n + p.text.length, 0);
}
