import { existsSync } from "node:fs";
import { sanitizeBaseURL } from "../engine/key.js";
import type { SchedulerLimits } from "../engine/types.js";
import type { TokenPrice } from "../engine/usage.js";
import { RubricateError } from "../errors.js";
import { createProvider, PROVIDERS, providerSpec } from "../providers/index.js";
import type { Provider } from "../providers/types.js";
import { parseConfig, readConfigText } from "../config/load.js";
import { PolicyConfigSchema, type PolicyConfig, type PolicyConfigInput } from "./policy-schema.js";

/** A policy model ready to roll out: its provider, sampling parameters and scheduler limits. */
export interface Policy {
  /** Names the model in rollouts and reports (and its scheduler: `policy:<id>`). */
  id: string;
  provider: Provider;
  model: string;
  params: { temperature?: number; topP?: number; maxTokens?: number; seed?: number };
  limits: SchedulerLimits;
  price?: TokenPrice;
  /** Extra top-level request fields sent on every policy call (a trainer's `session_id`). */
  extraBody?: Record<string, unknown>;
  /**
   * How policy calls use the cache: "on" (default; a re-run replays them free), "off" (always a
   * fresh call: a trainer's weights change between steps), or a version tag that is part of the
   * cache key (calls of the same weights version are replayed).
   */
  cache?: "on" | "off" | { version: string | number };
}

/** A policy's scheduler id in the shared engine: its own limits, apart from the judge's. */
export const policySchedulerId = (policy: Pick<Policy, "id">) => `policy:${policy.id}`;

/**
 * Parses `provider:model`: `openai:gpt-4.1-mini`, `anthropic:claude-haiku-4-5`, or
 * `openai-compatible:<model>@<base_url>` (vLLM, Ollama, llama.cpp). The model may contain ":".
 * @example parseModelSpec("openai-compatible:qwen3:8b@http://127.0.0.1:11434/v1")
 */
export function parseModelSpec(spec: string): PolicyConfig {
  const colon = spec.indexOf(":");
  const provider = colon > 0 ? spec.slice(0, colon) : "";
  let model = colon > 0 ? spec.slice(colon + 1) : "";
  let base_url: string | undefined;
  const entry = providerSpec(provider);
  if (entry?.needsBaseUrl) {
    // The URL starts at "@http": a model name may hold "@", and so may a URL (credentials).
    const at = model.search(/@https?:\/\//);
    if (at <= 0) throw new RubricateError("BAD_INPUT", `--model ${spec}: a ${provider} model is written ${provider}:<model>@<base_url>`);
    base_url = model.slice(at + 1);
    model = model.slice(0, at);
  }
  if (!entry || model === "") {
    const names = PROVIDERS.map((p) => p.name).join(", ");
    throw new RubricateError("BAD_INPUT", `--model "${spec}": expected provider:model with provider one of ${names} (or a policy config file)`);
  }
  const parsed = PolicyConfigSchema.safeParse({ provider, model, ...(base_url ? { base_url } : {}) });
  if (!parsed.success) throw new RubricateError("BAD_INPUT", `--model "${spec}": ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  return { ...parsed.data, id: defaultPolicyId(parsed.data) };
}

/**
 * Reads a policy configuration file (YAML or JSON): provider, model, base_url, api_key_env,
 * sampling, limits and price. Errors name file:line:col.
 * @example loadPolicyConfig("policies/local-qwen.yaml")
 */
export function loadPolicyConfig(path: string): PolicyConfig {
  const c = parseConfig(readConfigText(path, { what: "policy" }), PolicyConfigSchema, { filename: path }).value;
  return { ...c, id: c.id ?? defaultPolicyId(c) };
}

/** `provider:model`, plus `@base_url` (credentials stripped) when the policy names a server. */
export function defaultPolicyId(config: Pick<PolicyConfig, "provider" | "model" | "base_url">): string {
  return config.base_url ? `${config.provider}:${config.model}@${sanitizeBaseURL(config.base_url)}` : `${config.provider}:${config.model}`;
}

/** A `--model` value: a policy config file when it names one, else a `provider:model` spec. */
export function resolveModelArg(arg: string): PolicyConfig {
  if (/\.(ya?ml|json)$/i.test(arg) && existsSync(arg)) return loadPolicyConfig(arg);
  return parseModelSpec(arg);
}

/**
 * Builds a policy from a spec, a config, or a config plus a provider of your own (tests, custom adapters).
 * @example const policy = createPolicy("openai:gpt-4.1-mini", { defaults: env.policy })
 */
export function createPolicy(
  specOrConfig: string | PolicyConfigInput,
  options: { provider?: Provider; defaults?: { temperature?: number; top_p?: number; max_tokens?: number; seed?: number } } = {},
): Policy {
  const config = typeof specOrConfig === "string" ? resolveModelArg(specOrConfig) : PolicyConfigSchema.parse(specOrConfig);
  const provider = options.provider ?? createProvider({ provider: config.provider, base_url: config.base_url, api_key_env: config.api_key_env, timeout_ms: config.timeout_ms });
  const d = options.defaults ?? {};
  const id = config.id ?? defaultPolicyId(config);
  return {
    id,
    provider,
    model: config.model,
    params: {
      temperature: config.temperature ?? d.temperature,
      topP: config.top_p ?? d.top_p,
      maxTokens: config.max_tokens ?? d.max_tokens,
      seed: config.seed ?? d.seed,
    },
    limits: { maxConcurrency: config.max_concurrency, rpm: config.rpm, tpm: config.tpm, maxRetries: config.max_retries, timeoutMs: config.timeout_ms },
    ...(config.price ? { price: config.price } : {}),
  };
}
