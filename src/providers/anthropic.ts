/**
 * The Anthropic adapter (messages API, non-streaming). Structured output is a forced tool call
 * whose input is the answer; `cache: true` text parts become `cache_control` breakpoints.
 */
import { createRequire } from "node:module";
import { scrubResponse } from "./errors.js";
import { createAnthropicBatchApi } from "./anthropic-batch.js";
import { nodeHttpFetch } from "./http-fetch.js";
import { streamingFetch } from "./batch-fetch.js";
import { keyFromEnv, withCallSignals, withDeadline } from "./call.js";
import { fromAnthropicResponse, toAnthropicBody } from "./anthropic-wire.js";
import type { Provider } from "./types.js";

/** Options of `createAnthropicProvider`; the key comes from the environment unless given in code. */
export interface AnthropicProviderOptions {
  /** A key given in code; judge files never carry one, only `apiKeyEnv`. */
  apiKey?: string;
  /** The variable holding the key (default `ANTHROPIC_API_KEY`). */
  apiKeyEnv?: string;
  baseURL?: string;
  /** Client-wide timeout in ms when a call gives none (default 600000). */
  timeoutMs?: number;
}

/**
 * A Provider over `@anthropic-ai/sdk` (messages). SDK retries are off: our scheduler retries.
 * @example
 * const claude = createAnthropicProvider();                    // ANTHROPIC_API_KEY
 * const res = await claude.complete({ model: "claude-haiku-4-5", messages: [{ role: "user", content: "Hi" }] });
 */
export function createAnthropicProvider(options: AnthropicProviderOptions = {}): Provider {
  const apiKey = options.apiKey || keyFromEnv(options.apiKeyEnv ?? "ANTHROPIC_API_KEY", "anthropic");
  // Loaded here, not when rubricate is imported: the SDK (with OpenTelemetry) is ~320 files and
  // 120–150 ms that a program without an Anthropic judge never needs.
  const { Anthropic: Client } = createRequire(import.meta.url)("@anthropic-ai/sdk") as typeof import("@anthropic-ai/sdk");
  const client = new Client({ apiKey, baseURL: options.baseURL, maxRetries: 0, timeout: options.timeoutMs ?? 600_000, fetch: nodeHttpFetch });
  return {
    name: "anthropic",
    baseURL: client.baseURL,
    async complete(request, callOptions) {
      const body = toAnthropicBody(request);
      const res = await withDeadline("anthropic", [apiKey], callOptions, (s) =>
        client.messages.create(body, { signal: s.signal, ...(s.timeoutMs !== undefined ? { timeout: s.timeoutMs } : {}) }),
      );
      return scrubResponse(fromAnthropicResponse(res, request.jsonSchema?.name), [apiKey]);
    },
    // The batch client streams uploads and result files (hundreds of MB); the live one buffers small JSON.
    batch: withCallSignals(createAnthropicBatchApi(client.withOptions({ fetch: streamingFetch }), [apiKey])),
  };
}
