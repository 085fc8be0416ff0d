import { dirname } from "node:path";
import { openCache } from "../engine/cache/index.js";
import type { RubricateError } from "../errors.js";
import { createEngine, type Engine } from "../engine/engine.js";
import type { SchedulerLimits } from "../engine/types.js";
import { JudgeConfigSchema, type JudgeConfig, type JudgeConfigInput } from "./config.js";
import { createLLMJudge } from "./llm-judge.js";
import { assertJudgeFileKeyDestinations, readJudgeFile, type JudgeFile, type JudgeOrigin } from "./load.js";
import { createPanel } from "./panel.js";
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
  /** The folder a relative judge file is resolved from (default: the working folder). */
  baseDir?: string;
}

/** A judge reference and where it came from: what `chooseJudge` returns and `createJudge` takes. */
export interface JudgeChoice {
  ref: string;
  origin: JudgeOrigin;
  /** The folder of the file that named it, which a relative `ref` is resolved from. */
  baseDir?: string;
}

/**
 * The judge a command uses: the user's own `--judge` (resolved from the working folder, any
 * destination), else the `judge:` a rubric (or suite) file names, resolved beside that file and
 * held to the key-destination rule (`assertJudgeFileKeyDestinations`). Every command that lets a
 * file name its judge goes through this, so none forgets the rule.
 * @example createJudge(chooseJudge(flags.judge, rubric)!, { cache })
 */
export function chooseJudge(userRef: string | undefined, namedBy?: { judge?: string; source?: string }): JudgeChoice | undefined {
  if (userRef !== undefined) return { ref: userRef, origin: "user" };
  if (!namedBy?.judge) return undefined;
  return { ref: namedBy.judge, origin: "rubric", ...(namedBy.source ? { baseDir: dirname(namedBy.source) } : {}) };
}

const isChoice = (value: unknown): value is JudgeChoice => typeof value === "object" && value !== null && "ref" in value && "origin" in value;

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
  // Members resolve beside the panel file; their key destinations were checked with the panel's.
  const members = file.members.map((ref) => createJudge(ref, { engine, baseDir: file.baseDir }));
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
export function createJudge(configOrPath: JudgeConfigInput | string | JudgeChoice, options: CreateJudgeOptions = {}): EngineJudge {
  if (isChoice(configOrPath)) return createJudge(configOrPath.ref, { ...options, origin: configOrPath.origin, baseDir: configOrPath.baseDir });
  let config: JudgeConfig;
  if (typeof configOrPath === "string") {
    const baseDir = options.baseDir ?? process.cwd();
    // A judge a shared rubric names (itself, or any panel member) may not send the user's key to a host the user did not choose.
    if (options.origin === "rubric") assertJudgeFileKeyDestinations(configOrPath, baseDir);
    const file = readJudgeFile(configOrPath, baseDir);
    if (file.kind === "panel") return createPanelJudge(file, options);
    config = file.config;
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
