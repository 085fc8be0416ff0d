/**
 * Provider construction from a judge configuration, plus a scripted provider for tests and
 * examples that must run without a network.
 */
import { RubricateError } from "../errors.js";
import { createFleetProvider } from "./fleet.js";
import { PROVIDERS, providerSpec, type ProviderName } from "./registry.js";
import type { CompletionRequest, CompletionResponse, Provider } from "./types.js";

export { createAnthropicProvider, type AnthropicProviderOptions } from "./anthropic.js";
export { createOpenAIProvider, type OpenAIProviderOptions } from "./openai.js";
export { parseRetryAfter, scrubSecrets, toProviderError } from "./errors.js";
export { PROVIDERS, PROVIDER_NAMES, providerSpec, type ProviderName, type ProviderSpec, type ProviderFactoryOptions } from "./registry.js";
export type * from "./types.js";

/** The part of a judge configuration that picks and reaches a provider. */
export interface ProviderConfig {
  provider: ProviderName;
  /** Several URLs make a fleet: one provider over several OpenAI-compatible servers. */
  base_url?: string | string[];
  /** With several base_urls: requests in flight per server. */
  server_max_concurrency?: number;
  api_key_env?: string;
  /** Client-wide timeout (ms) when a call passes none. */
  timeout_ms?: number;
}

/**
 * Builds the provider a judge configuration names; the key is read from the environment now,
 * so a missing key fails before any sample is scored.
 * @example
 * const p = createProvider({ provider: "openai-compatible", base_url: "http://127.0.0.1:11434/v1" });
 */
export function createProvider(config: ProviderConfig): Provider {
  if (Array.isArray(config.base_url)) {
    const members = config.base_url.map((base_url) => createProvider({ ...config, base_url }));
    return members.length === 1 ? members[0] : createFleetProvider(members, { maxConcurrencyPerServer: config.server_max_concurrency });
  }
  return createSingleProvider({ ...config, base_url: config.base_url });
}

function createSingleProvider(config: ProviderConfig & { base_url?: string }): Provider {
  const spec = providerSpec(config.provider);
  if (!spec) {
    const names = PROVIDERS.map((p) => p.name).join(", ");
    throw new RubricateError("JUDGE_CONFIG", `unknown provider ${JSON.stringify(config.provider)} (one of: ${names})`);
  }
  return spec.create({ baseURL: config.base_url, apiKeyEnv: config.api_key_env, timeoutMs: config.timeout_ms });
}

/** What a scripted provider's function may return: a full response, or just the text. */
export type ScriptedReply = CompletionResponse | string;

/**
 * A provider answered by a function, for tests and offline examples (name "scripted"). A string
 * becomes `{ text, finishReason: "stop" }` with rough token counts.
 * @example
 * const p = createScriptedProvider((req) => JSON.stringify({ answers: [{ id: "q1", reason: "ok", verdict: true }] }));
 */
export function createScriptedProvider(fn: (req: CompletionRequest) => ScriptedReply | Promise<ScriptedReply>): Provider {
  return {
    name: "scripted",
    async complete(request, options) {
      if (options?.signal?.aborted) throw new RubricateError("ABORTED", "scripted: request aborted");
      const out = await fn(request);
      if (typeof out !== "string") return out;
      const prompt = JSON.stringify([request.system ?? "", request.messages]);
      return {
        text: out,
        finishReason: "stop",
        usage: { inputTokens: Math.ceil(prompt.length / 4), outputTokens: Math.ceil(out.length / 4), cachedInputTokens: 0 },
        model: request.model,
      };
    },
  };
}
