/**
 * The Anthropic adapter (messages API, non-streaming). Structured output is a forced tool call
 * whose input is the answer; `cache: true` text parts become `cache_control` breakpoints.
 */
import type Anthropic from "@anthropic-ai/sdk";
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
  // The SDK loads on the first call, not here nor when rubricate is imported: with OpenTelemetry it
  // is ~320 files that a program without an Anthropic judge never needs, and dist/ bundles it into
  // a chunk of its own that `import()` reads in a fraction of their time.
  let client: Anthropic | undefined;
  let loading: Promise<Anthropic> | undefined;
  const load = () =>
    (loading ??= import("./anthropic-sdk.js").then(
      ({ Anthropic: Client }) => (client = new Client({ apiKey, baseURL: options.baseURL, maxRetries: 0, timeout: options.timeoutMs ?? 600_000, fetch: nodeHttpFetch })),
    ));
  let batchClient: Promise<Anthropic> | undefined;
  return {
    name: "anthropic",
    baseURL: anthropicBaseURL(options.baseURL),
    async complete(request, callOptions) {
      const body = toAnthropicBody(request);
      const sdk = client ?? (await load());
      const res = await withDeadline("anthropic", [apiKey], callOptions, (s) =>
        sdk.messages.create(body, { signal: s.signal, ...(s.timeoutMs !== undefined ? { timeout: s.timeoutMs } : {}) }),
      );
      return scrubResponse(fromAnthropicResponse(res, request.jsonSchema?.name), [apiKey]);
    },
    // The batch client streams uploads and result files (hundreds of MB); the live one buffers small JSON.
    batch: withCallSignals(createAnthropicBatchApi(() => (batchClient ??= load().then((c) => c.withOptions({ fetch: streamingFetch }))), [apiKey])),
  };
}

/** The base URL the SDK's client will use (its own rule: the option, else `ANTHROPIC_BASE_URL`, else Anthropic's), known before it loads. */
export function anthropicBaseURL(given: string | undefined): string {
  return (given === undefined ? process.env.ANTHROPIC_BASE_URL?.trim() : given) || "https://api.anthropic.com";
}
