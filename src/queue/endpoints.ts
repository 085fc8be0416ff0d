/**
 * What answers a queued run's calls, for its fingerprint: every judge and model configuration it
 * calls, each with the servers its provider sends the calls to, resolved as the provider resolves
 * them (the configured `base_url`, else the SDK's variable such as `OPENAI_BASE_URL`, else the
 * provider's own API). Two runs whose files match but whose servers differ (another model served
 * under the same name) then get chunks and a `.partial` of their own, and a worker whose variable
 * points elsewhere than the coordinator's refuses the chunk. Credentials in a URL are left out;
 * keys are never read.
 */
import { sanitizeBaseURL } from "../engine/key.js";
import { judgeConfigsOf } from "../judge/load.js";
import { providerSpec } from "../providers/registry.js";
import { resolveModelArg } from "../env/policy.js";

/** A provider configuration (judge or policy) as a fingerprint takes it: its `base_url` as the servers its calls go to. */
export function servedConfig<C extends { provider: string; base_url?: string | string[] }>(config: C): Omit<C, "base_url"> & { base_url: string[] } {
  const given = Array.isArray(config.base_url) ? config.base_url : [config.base_url];
  const resolve = providerSpec(config.provider)?.baseURL ?? ((url: string | undefined) => url ?? "");
  return { ...config, base_url: given.map((url) => sanitizeBaseURL(resolve(url))) };
}

/** Every judge a judge file calls (a panel's members, depth first), with its servers; none without a file. */
export function judgeEndpoints(judgeFile: string | undefined): unknown[] {
  return judgeFile ? judgeConfigsOf(judgeFile).map(({ config }) => servedConfig(config)) : [];
}

/** Every model of `--model` values (provider:model specs or policy files), with its servers. */
export function modelEndpoints(models: string[]): unknown[] {
  return models.map((model) => servedConfig(resolveModelArg(model)));
}
