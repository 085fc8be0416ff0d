import { existsSync } from "node:fs";
import { openCache } from "../engine/cache/index.js";
import type { RubricateError } from "../errors.js";
import { createEngine, type Engine } from "../engine/engine.js";
import type { SchedulerLimits } from "../engine/types.js";
import { JudgeConfigSchema, type JudgeConfig, type JudgeConfigInput } from "./config.js";
import { createLLMJudge } from "./llm-judge.js";
import { assertRubricJudgeKeyDestination, readJudgeFile, type JudgeFile, type JudgeOrigin } from "./load.js";
import { createPanel } from "./panel.js";
import { resolve } from "node:path";
import { createProvider } from "../providers/index.js";
import type { Provider } from "../providers/types.js";
import type { Judge } from "./types.js";

/** Options of `createJudge`: cache, engine, and where the judge reference came from. */
export interface CreateJudgeOptions {
  /** Share one engine (cache, schedulers) between judges and policies; otherwise the judge owns one. */
  engine?: Engine;
  /** The cache file for an engine the judge owns: a path, `false` memory only, `null` none. */
  cache?: string | false | null;
  /** Use this provider instead of building one from the config (tests, custom adapters). */
  provider?: Provider;
  /**
   * Told when the owned cache degrades (read-only, full disk, unreadable rows); default: a
   * process warning (`RubricateWarning`, code CACHE), so a run that stops persisting says so.
   */
  onCacheError?: (error: RubricateError) => void;
  /**
   * "rubric" when the reference is a rubric's `judge:` field rather than the user's own choice:
   * such a judge may not send an API key to a host other than the provider's or loopback.
   */
  origin?: JudgeOrigin;
}

const warnCache = (e: RubricateError) => process.emitWarning(e.message, { type: "RubricateWarning", code: e.code });

/**
 * A judge that also exposes the engine it calls through (for stats). A panel's `config` and
 * `provider` are its first member's; `members` lists them all.
 */
export type EngineJudge = Judge & { readonly engine: Engine; readonly config: JudgeConfig; readonly provider: Provider; readonly members?: EngineJudge[] };

/** A panel judge file's members on one engine (one cache, a scheduler each), combined by majority. */
function createPanelJudge(file: Extract<JudgeFile, { kind: "panel" }>, options: CreateJudgeOptions): EngineJudge {
  const owned = options.engine === undefined;
  const engine = options.engine ?? createEngine({ cache: openCache({ path: options.cache, onError: options.onCacheError ?? warnCache }), limits: { maxConcurrency: 8, maxRetries: 5, timeoutMs: 60_000 } });
  const members = file.members.map((ref) => {
    const local = resolve(file.baseDir, ref);
    return createJudge(existsSync(local) ? local : ref, { engine });
  });
  const panel = createPanel(members, { id: file.id, decide: file.decide });
  return {
    ...panel,
    engine,
    config: members[0].config,
    provider: members[0].provider,
    members,
    close: () => {
      if (owned) engine.close();
    },
  };
}

/** The provider a config names; several `base_url`s make a fleet. */
export function providerFor(config: JudgeConfig): Provider {
  const { provider, base_url, api_key_env, timeout_ms, server_max_concurrency } = config;
  return createProvider({ provider, base_url, api_key_env, timeout_ms, server_max_concurrency });
}

/** The scheduler limits a judge configuration asks for. */
export function limitsOf(config: JudgeConfig): SchedulerLimits {
  return { maxConcurrency: config.max_concurrency, rpm: config.rpm, tpm: config.tpm, maxRetries: config.max_retries, timeoutMs: config.timeout_ms, maxRetryWaitMs: config.max_retry_wait_ms };
}

/**
 * Builds an LLM judge from a configuration object or a judge file (path or packaged id).
 * @example const judge = createJudge("judges/openai-small.yaml"); await score(rubric, samples, { judge })
 */
export function createJudge(configOrPath: JudgeConfigInput | string, options: CreateJudgeOptions = {}): EngineJudge {
  let config: JudgeConfig;
  if (typeof configOrPath === "string") {
    const file = readJudgeFile(configOrPath);
    if (file.kind === "panel") return createPanelJudge(file, options);
    config = file.config;
    // A judge a shared rubric names may not send the user's key to a host the user did not choose.
    if (options.origin === "rubric") assertRubricJudgeKeyDestination(config, configOrPath);
  } else config = JudgeConfigSchema.parse(configOrPath);
  const provider = options.provider ?? providerFor(config);
  const owned = options.engine === undefined;
  const engine = options.engine ?? createEngine({ cache: openCache({ path: options.cache, onError: options.onCacheError ?? warnCache }), limits: limitsOf(config), price: config.price });
  const id = config.id ?? `${config.provider}:${config.model}`;
  engine.schedulerFor(id, limitsOf(config));
  const judge = createLLMJudge(config, { engine, provider, id });
  return {
    ...judge,
    engine,
    config,
    provider,
    close: async () => {
      if (owned) await engine.close(); // a shared (Redis) cache sends its pending writes first
    },
  };
}
