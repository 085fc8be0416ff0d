/**
 * The OpenAI adapter (chat completions, non-streaming), also used for OpenAI-compatible servers
 * (vLLM, Ollama, llama.cpp). Thin by design: it maps neutral requests to the wire format and
 * back, and leaves retries to our scheduler. Live calls go out without the SDK (openai-http.ts)
 * unless the caller asks for the SDK's own transport; the batch API always uses the SDK.
 */
import type OpenAI from "openai";
import { scrubResponse } from "./errors.js";
import { createOpenAIBatchApi } from "./openai-batch.js";
import { nodeHttpFetch } from "./http-fetch.js";
import { chatCompletionsCall, type ChatCompletionsCall } from "./openai-http.js";
import { streamingFetch } from "./batch-fetch.js";
import { RubricateError } from "../errors.js";
import { keyFromEnv, withCallSignals, withDeadline, withOwnDeadline } from "./call.js";
import { fromOpenAIResponse, toOpenAIBody } from "./openai-wire.js";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type { CallOptions, Provider } from "./types.js";

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
  /**
   * A fetch for live calls, which then go through the SDK with it. Without one, live calls are
   * sent by openai-http.ts over keep-alive `node:http` (a third of the CPU per call; BENCHMARKS.md),
   * and the batch API's through the SDK with a streaming fetch.
   */
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

/**
 * A Provider for OpenAI's chat completions. Live calls go out without the SDK (openai-http.ts, by
 * the SDK's rules) unless `fetch`, `RUBRICATE_HTTP=fetch` or `OPENAI_LOG` ask for it; the batch
 * API goes through the official `openai` SDK. SDK retries are off: our scheduler is the only
 * retry layer.
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
  const clientOptions = { apiKey, baseURL: options.baseURL, maxRetries: 0, timeout: options.timeoutMs ?? 600_000, fetch: options.fetch ?? nodeHttpFetch };
  // The SDK loads on the first call, not here nor when rubricate is imported: a program without an
  // OpenAI judge (validate, code checks, an Anthropic judge) never needs it, and dist/ bundles it
  // into a chunk of its own that `import()` reads in a fraction of its ~150 files' time.
  let client: OpenAI | undefined;
  let loading: Promise<OpenAI> | undefined;
  const load = () => (loading ??= import("./openai-sdk.js").then(({ OpenAI: Client }) => (client = new Client(clientOptions))));
  let batchClient: Promise<OpenAI> | undefined;
  const secrets = apiKey === NO_KEY ? [] : [apiKey];
  const baseURL = openAIBaseURL(options.baseURL);
  const clientTimeoutMs = clientOptions.timeout;
  let direct: ChatCompletionsCall | undefined;
  const throughSdk = sdkTransportAsked(options);
  return {
    name,
    baseURL,
    async complete(request, callOptions) {
      const body = toOpenAIBody(request, name);
      if (throughSdk) return completeWithSdk(body, callOptions);
      direct ??= chatCompletionsCall(name, baseURL, apiKey);
      // The SDK's client-wide timeout applies when the call gives none, over the whole call as ours do.
      const scoped = { ...callOptions, timeoutMs: callOptions?.timeoutMs ?? clientTimeoutMs };
      const res = await withOwnDeadline(name, secrets, scoped, (s) => direct!(body, s));
      return scrubResponse(fromOpenAIResponse(res, name), secrets);
    },
    // The batch client streams uploads and result files (hundreds of MB); the live one buffers small JSON.
    batch: withCallSignals(createOpenAIBatchApi(() => (batchClient ??= load().then((c) => c.withOptions({ fetch: options.fetch ?? streamingFetch }))), name, secrets)),
  };

  async function completeWithSdk(body: ChatCompletionCreateParamsNonStreaming, callOptions: CallOptions | undefined) {
    const sdk = client ?? (await load());
    const res = await withDeadline(name, secrets, callOptions, (s) =>
      sdk.chat.completions.create(body, { signal: s.signal, ...(s.timeoutMs !== undefined ? { timeout: s.timeoutMs } : {}) }),
    );
    return scrubResponse(fromOpenAIResponse(res, name), secrets);
  }
}

/**
 * True when live calls go through the SDK: a fetch given in code, `RUBRICATE_HTTP=fetch` (the global
 * fetch everywhere), or `OPENAI_LOG` (the SDK's own request log, which only the SDK writes). Read
 * once, when the provider is made: a read of `process.env` per call was ~1 % of a run's CPU.
 */
function sdkTransportAsked(options: OpenAIProviderOptions): boolean {
  return options.fetch !== undefined || process.env.RUBRICATE_HTTP === "fetch" || Boolean(process.env.OPENAI_LOG?.trim());
}

/** The base URL the SDK's client will use (its own rule: the option, else `OPENAI_BASE_URL`, else OpenAI's), known before it loads. */
export function openAIBaseURL(given: string | undefined): string {
  return (given === undefined ? process.env.OPENAI_BASE_URL?.trim() : given) || "https://api.openai.com/v1";
}
