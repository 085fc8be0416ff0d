import type { ChatCompletionCreateParamsBase } from "openai/resources/chat/completions";
import * as z from "zod";
import type { Engine } from "../engine/engine.js";
import { RubricateError } from "../errors.js";
import type { Judge } from "../judge/types.js";
import { createProvider } from "../providers/index.js";
import type { Provider } from "../providers/types.js";
import type { ErrorPolicy } from "../types.js";
import { defaultPolicyId, type Policy } from "./policy.js";
import { rollout } from "./rollout.js";
import type { Environment, RolloutRecord, Task } from "./types.js";
import { readingWrittenToolCalls } from "./written-tool-calls.js";

const JsonObject = z.record(z.string(), z.unknown());

/**
 * The fields `extra_body` may carry: those of a chat completion (the openai SDK's
 * `ChatCompletionCreateParams`) but the ones a rollout sets itself, plus `session_id`, by which
 * OpenRLHF's agent server matches calls to its token traces. Anything else is refused, so a client
 * cannot make the server POST a body of its choosing (a container-create, say) to a local service.
 */
export const EXTRA_BODY_FIELDS = [
  "audio",
  "frequency_penalty",
  "logit_bias",
  "logprobs",
  "max_completion_tokens",
  "max_tokens",
  "metadata",
  "modalities",
  "moderation",
  "n",
  "parallel_tool_calls",
  "prediction",
  "presence_penalty",
  "prompt_cache_key",
  "prompt_cache_options",
  "prompt_cache_retention",
  "reasoning_effort",
  "response_format",
  "safety_identifier",
  "seed",
  "service_tier",
  "stop",
  "store",
  "temperature",
  "tool_choice",
  "top_logprobs",
  "top_p",
  "user",
  "verbosity",
  "web_search_options",
] as const satisfies readonly (keyof ChatCompletionCreateParamsBase)[];
/** Chat-completion fields a rollout owns: the conversation, the model, the tools, streaming. */
type SetByRollout = "messages" | "model" | "tools" | "functions" | "function_call" | "stream" | "stream_options";
// A field the SDK adds must be sorted into one of the two lists: this fails to compile until it is.
type Unsorted = Exclude<keyof ChatCompletionCreateParamsBase, (typeof EXTRA_BODY_FIELDS)[number] | SetByRollout>;
const everyFieldSorted: [Unsorted] extends [never] ? true : Unsorted = true;
void everyFieldSorted;
const TRAINER_FIELDS = ["session_id"] as const;
const extraBodyFields = new Set<string>([...EXTRA_BODY_FIELDS, ...TRAINER_FIELDS]);
const ExtraBody = JsonObject.superRefine((body, ctx) => {
  for (const key of Object.keys(body)) {
    if (!extraBodyFields.has(key)) ctx.addIssue({ code: "custom", path: [key], message: `"${key}" is not a chat-completion field (extra_body takes ${[...extraBodyFields].join(", ")})` });
  }
});

/**
 * A policy a trainer serves for the duration of a step (OpenRLHF's OpenAI-server executor,
 * prime-rl, verifiers): an OpenAI-compatible endpoint, sampling parameters, and the extra body
 * fields the trainer uses to match calls to its token traces.
 */
export const RemotePolicySchema = z.strictObject({
  base_url: z.string().url(),
  model: z.string().min(1),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
  /** Sent as top-level fields on every policy call of every rollout (e.g. `{ "session_id": "…" }`). */
  extra_body: ExtraBody.optional(),
  /** One object per rollout of a group (length k): each rollout's own session id. */
  extra_bodies: z.array(ExtraBody).optional(),
  /**
   * The weights version the endpoint serves. Without one, policy calls never come from the cache
   * (the weights change between steps); with one, calls of the same version are replayed.
   */
  policy_version: z.union([z.string().min(1), z.number()]).optional(),
  timeout_ms: z.number().int().positive().max(3_600_000).optional(),
});
/** A trainer's policy endpoint for `/v1/rollouts`: base URL, model, sampling, extra body, weights version. */
export type RemotePolicy = z.infer<typeof RemotePolicySchema>;

/** Options of `runRemoteRollouts`. */
export interface RemoteRolloutOptions {
  engine: Engine;
  judge?: Judge;
  errors?: ErrorPolicy;
  signal?: AbortSignal;
  /**
   * The policy endpoints a request may name, as `host:port` (the operator's `--allow-policy-host`;
   * a bare `host` means the scheme's default port). Loopback is no exception: the server connects
   * wherever a policy URL points, so a client must not aim it at any machine, or any local port.
   */
  allowHosts?: readonly string[];
}

/** True when the URL's host and port are an endpoint the operator allowed (`host:port`, or `host` for the default port). */
export function policyHostAllowed(url: string, allowHosts: readonly string[] = []): boolean {
  const u = new URL(url);
  const host = u.hostname.toLowerCase();
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  return allowHosts.some((allowed) => {
    const a = allowed.trim().toLowerCase();
    return a === `${host}:${port}` || (a === host && u.port === "");
  });
}

/**
 * The base URL the policy is called at: http(s), no credentials, query or fragment (a `#` or `?`
 * would swallow the `/chat/completions` the SDK appends), path without a trailing slash.
 */
export function policyBaseUrl(url: string, allowHosts: readonly string[] = []): string {
  const u = new URL(url);
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new RubricateError("BAD_INPUT", `policy.base_url: ${u.protocol} is not http or https`);
  // The raw text, not u.search/u.hash: a bare trailing "#" or "?" parses to empty ones and still cuts the path.
  if (u.username || u.password || /[?#]/.test(url)) throw new RubricateError("BAD_INPUT", "policy.base_url: give a plain http(s)://host:port/path, without credentials, a query (?) or a fragment (#)");
  if (!policyHostAllowed(url, allowHosts)) {
    const allowed = allowHosts.length ? `allowed: ${allowHosts.join(", ")}` : "the operator allowed none: start serve with --allow-policy-host <host:port>";
    throw new RubricateError("BAD_INPUT", `policy.base_url: ${u.host} is not a policy endpoint the operator allowed (${allowed})`);
  }
  return `${u.origin}${u.pathname.replace(/\/+$/, "")}`;
}

/**
 * Plays k rollouts of one task against a trainer's policy endpoint, in parallel, each a full
 * `rollout` (tools, environment replies, rubric); judge calls stay cached, policy calls do not
 * unless the request names a `policy_version`. Tool calls the policy wrote in its text (Hermes /
 * Qwen `<tool_call>` blocks) run as calls and go back as written (./written-tool-calls.ts).
 * @example
 * const records = await runRemoteRollouts(env, env.tasks[0], 4, { base_url: "http://127.0.0.1:8001/v1", model: "policy" }, { engine, judge });
 */
export async function runRemoteRollouts(env: Environment, task: Task, k: number, spec: RemotePolicy, options: RemoteRolloutOptions): Promise<RolloutRecord[]> {
  const baseUrl = policyBaseUrl(spec.base_url, options.allowHosts);
  if (spec.extra_bodies && spec.extra_bodies.length !== k) {
    throw new RubricateError("BAD_INPUT", `policy.extra_bodies has ${spec.extra_bodies.length} entries for k=${k} rollouts; give one per rollout`);
  }
  // Tool calls a policy without a tool parser writes in its text run too (OpenRLHF's server executor);
  // per request, so the written turns it remembers go with this group.
  const provider = readingWrittenToolCalls(providerFor(baseUrl, spec.timeout_ms));
  const base = basePolicy({ ...spec, base_url: baseUrl }, provider);
  return Promise.all(
    Array.from({ length: k }, (_, i) => {
      const extraBody = { ...spec.extra_body, ...spec.extra_bodies?.[i] };
      const policy: Policy = { ...base, ...(Object.keys(extraBody).length ? { extraBody } : {}) };
      return rollout(env, policy, task, { engine: options.engine, judge: options.judge, errors: options.errors, signal: options.signal, index: i });
    }),
  );
}

function basePolicy(spec: RemotePolicy, provider: Provider): Policy {
  return {
    id: defaultPolicyId({ provider: "openai-compatible", model: spec.model, base_url: spec.base_url }),
    provider,
    model: spec.model,
    params: { temperature: spec.temperature, topP: spec.top_p, maxTokens: spec.max_tokens, seed: spec.seed },
    limits: { maxConcurrency: 256, maxRetries: 2, timeoutMs: spec.timeout_ms ?? 600_000 },
    cache: spec.policy_version === undefined ? "off" : { version: spec.policy_version },
  };
}

// One SDK client per endpoint, reused across requests (bounded: trainers use a handful).
const providers = new Map<string, Provider>();
function providerFor(baseURL: string, timeoutMs?: number): Provider {
  const key = `${baseURL}\n${timeoutMs ?? ""}`;
  let provider = providers.get(key);
  if (!provider) {
    if (providers.size >= 64) providers.delete(providers.keys().next().value!);
    provider = createProvider({ provider: "openai-compatible", base_url: baseURL, timeout_ms: timeoutMs });
    providers.set(key, provider);
  }
  return provider;
}
