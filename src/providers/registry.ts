/**
 * The provider table: every provider rubricate can build, with what the rest of the code needs
 * to know about it. The judge and policy schemas' enums, `createProvider`, `provider:model`
 * specs, the key-destination guard and the family warning all read this table, so a new
 * provider is its adapter file plus one entry here (and its tests).
 */
import { anthropicBaseURL, createAnthropicProvider } from "./anthropic.js";
import { createOpenAIProvider, openAIBaseURL } from "./openai.js";
import type { Provider } from "./types.js";

/** What a provider's factory receives from a judge or policy configuration (one server). */
export interface ProviderFactoryOptions {
  baseURL?: string;
  apiKeyEnv?: string;
  timeoutMs?: number;
}

/** The wire formats providers speak; `rubricate/testing` has a local server for each. */
export type WireFormat = "openai" | "anthropic";

/** One row of the provider table. */
export interface ProviderSpec {
  /** The `provider:` value in judge and policy files, and the prefix of a `provider:model` spec. */
  readonly name: string;
  /** Builds the provider; reads the key from the environment now, so a missing key fails early. */
  readonly create: (options: ProviderFactoryOptions) => Provider;
  /** The variable its key is read from when the configuration names none; absent for keyless servers. */
  readonly keyEnv?: string;
  /** The provider's own API hosts: the only non-loopback hosts a rubric's judge may send a key to. */
  readonly hosts: readonly string[];
  /** The model family every model of this provider belongs to (first-party APIs), for the self-preference warning. */
  readonly family?: string;
  /** Whether a `base_url` is required (a self-hosted server); its `provider:model` spec is then `name:model@base_url`. */
  readonly needsBaseUrl?: boolean;
  /** The wire format it speaks: tests reach it through the matching server in `rubricate/testing`. */
  readonly wire: WireFormat;
  /**
   * The server its calls go to for a configured `base_url` (or none), by its client's own rule
   * (the option, else the SDK's environment variable, else the provider's API): known without a
   * key, so a run can name the endpoints it uses before anything is called.
   */
  readonly baseURL: (given: string | undefined) => string;
}

/** Every provider, in the order error messages list them. */
export const PROVIDERS = [
  {
    name: "openai",
    create: (o) => createOpenAIProvider({ baseURL: o.baseURL, apiKeyEnv: o.apiKeyEnv, timeoutMs: o.timeoutMs }),
    keyEnv: "OPENAI_API_KEY",
    hosts: ["api.openai.com"],
    family: "OpenAI",
    wire: "openai",
    baseURL: openAIBaseURL,
  },
  {
    name: "anthropic",
    create: (o) => createAnthropicProvider({ baseURL: o.baseURL, apiKeyEnv: o.apiKeyEnv, timeoutMs: o.timeoutMs }),
    keyEnv: "ANTHROPIC_API_KEY",
    hosts: ["api.anthropic.com"],
    family: "Anthropic",
    wire: "anthropic",
    baseURL: anthropicBaseURL,
  },
  {
    // vLLM, Ollama, llama.cpp, SGLang: the model's family comes from its name, never the server.
    name: "openai-compatible",
    create: (o) => createOpenAIProvider({ name: "openai-compatible", baseURL: o.baseURL, apiKeyEnv: o.apiKeyEnv, timeoutMs: o.timeoutMs }),
    hosts: [],
    needsBaseUrl: true,
    wire: "openai",
    // The OpenAI client too: without a base_url it is refused before any call.
    baseURL: openAIBaseURL,
  },
] as const satisfies readonly ProviderSpec[];

/** A provider name from the table. */
export type ProviderName = (typeof PROVIDERS)[number]["name"];

/** The names, as the tuple `z.enum` takes. */
export const PROVIDER_NAMES = PROVIDERS.map((p) => p.name) as unknown as readonly [ProviderName, ...ProviderName[]];

/** The table row for a name; undefined for a name not in the table. */
export function providerSpec(name: string): ProviderSpec | undefined {
  return (PROVIDERS as readonly ProviderSpec[]).find((p) => p.name === name);
}
