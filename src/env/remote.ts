import { z } from "zod";
import type { Engine } from "../engine/engine.js";
import { RubricateError } from "../errors.js";
import type { Judge } from "../judge/types.js";
import { createProvider } from "../providers/index.js";
import type { Provider } from "../providers/types.js";
import type { ErrorPolicy } from "../types.js";
import { defaultPolicyId, type Policy } from "./policy.js";
import { rollout } from "./rollout.js";
import type { Environment, RolloutRecord, Task } from "./types.js";

const JsonObject = z.record(z.string(), z.unknown());

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
  extra_body: JsonObject.optional(),
  /** One object per rollout of a group (length k): each rollout's own session id. */
  extra_bodies: z.array(JsonObject).optional(),
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
   * Hosts a request may name as its policy endpoint besides loopback (the operator's
   * `--allow-policy-host`): the server connects wherever a policy URL points, so a client
   * must not be able to aim it at arbitrary machines.
   */
  allowHosts?: readonly string[];
}

/** True when the URL's host is loopback or one the operator allowed (`host` or `host:port`). */
export function policyHostAllowed(url: string, allowHosts: readonly string[] = []): boolean {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host)) return true;
  return allowHosts.some((allowed) => {
    const a = allowed.toLowerCase();
    return a === host || a === `${host}:${u.port || (u.protocol === "https:" ? "443" : "80")}`;
  });
}

/**
 * Plays k rollouts of one task against a trainer's policy endpoint, in parallel, each a full
 * `rollout` (tools, environment replies, rubric); judge calls stay cached, policy calls do not
 * unless the request names a `policy_version`.
 * @example
 * const records = await runRemoteRollouts(env, env.tasks[0], 4, { base_url: "http://127.0.0.1:8001/v1", model: "policy" }, { engine, judge });
 */
export async function runRemoteRollouts(env: Environment, task: Task, k: number, spec: RemotePolicy, options: RemoteRolloutOptions): Promise<RolloutRecord[]> {
  if (!policyHostAllowed(spec.base_url, options.allowHosts)) {
    throw new RubricateError("BAD_INPUT", `policy.base_url: ${new URL(spec.base_url).host} is not loopback and not allowed by the operator (--allow-policy-host)`);
  }
  if (spec.extra_bodies && spec.extra_bodies.length !== k) {
    throw new RubricateError("BAD_INPUT", `policy.extra_bodies has ${spec.extra_bodies.length} entries for k=${k} rollouts; give one per rollout`);
  }
  const provider = providerFor(spec.base_url, spec.timeout_ms);
  const base = basePolicy(spec, provider);
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
