import { openCache } from "../../engine/cache/index.js";
import { createEngine, type Engine } from "../../engine/engine.js";
import { RubricateError } from "../../errors.js";
import { JudgeConfigSchema, type JudgeConfig, type JudgeConfigInput } from "../../judge/config.js";
import { limitsOf, providerFor } from "../../judge/create.js";
import { loadJudgeConfig } from "../../judge/load.js";
import type { Provider } from "../../providers/types.js";
import { addUsage, emptyUsage, type Usage } from "../../types.js";
import { buildReflectionPrompt } from "../reflection.js";
import type { Candidate, Reflect, ReflectiveRecord } from "../types.js";

/** Builds the reflection prompt for one component of a candidate. */
export type ReflectionPrompt<I> = (args: { candidate: Candidate; component: string; reflectiveDataset: ReflectiveRecord<I>[] }) => string;

/** Options of `createReflector`. */
export interface ReflectorOptions<I> {
  /** Share one engine (cache, schedulers) with the judge and the policy; otherwise the reflector owns one. */
  engine?: Engine;
  /** The cache of an engine the reflector owns: a path, `false` memory only, `null` none. */
  cache?: string | false | null;
  /** Use this provider instead of building one from the config (tests, custom adapters). */
  provider?: Provider;
  /** The prompt (default: `buildReflectionPrompt` of the component's text and the dataset). */
  prompt?: ReflectionPrompt<I>;
}

/** A `reflect` function for `optimize` over an LLM, with its usage. */
export interface Reflector<I> {
  reflect: Reflect<I>;
  /** Calls made, cache hits, tokens and cost of the reflection model so far. */
  usage(): Usage;
  readonly config: JudgeConfig;
  /** Closes the engine when the reflector owns it. */
  close(): void;
}

/**
 * A reflection model for GEPA, configured like a judge (a judge file, a packaged judge id or a
 * config object: provider, model, temperature, max_tokens, limits, price). Calls go through the
 * engine's cache keyed by the prompt and the run's reflection call number: a resumed run
 * re-asks an interrupted reflection for free, but a stuck proposal asked again later is a new
 * (paid) call, so a sampled model can answer differently.
 * @example
 * const reflector = createReflector("judges/reflector.yaml", { engine });
 * await optimize({ ...target, reflect: reflector.reflect, budget: 300 });
 */
export function createReflector<I>(configOrPath: JudgeConfigInput | string, options: ReflectorOptions<I> = {}): Reflector<I> {
  const config = typeof configOrPath === "string" ? loadJudgeConfig(configOrPath) : JudgeConfigSchema.parse(configOrPath);
  const provider = options.provider ?? providerFor(config);
  const owned = options.engine === undefined;
  const engine = options.engine ?? createEngine({ cache: openCache({ path: options.cache }), limits: limitsOf(config), price: config.price });
  const scheduler = `reflector:${config.id ?? `${config.provider}:${config.model}`}`;
  engine.schedulerFor(scheduler, limitsOf(config));
  const prompt = options.prompt ?? (({ candidate, component, reflectiveDataset }) => buildReflectionPrompt(candidate[component], reflectiveDataset));
  const usage = emptyUsage();

  const reflect: Reflect<I> = async (args) => {
    const request = {
      model: config.model,
      ...(config.system ? { system: config.system } : {}),
      messages: [{ role: "user" as const, content: prompt(args) }],
      temperature: config.temperature,
      maxTokens: config.max_tokens,
    };
    const result = await engine.complete(provider, request, { scheduler, signal: args.signal, keyExtra: { purpose: "gepa-reflection", call: args.call }, price: config.price });
    addUsage(usage, result.usage);
    const response = result.response;
    if (response.refusal) throw new RubricateError("JUDGE_REFUSAL", `the reflection model refused: ${response.refusal}`);
    return response.text;
  };
  return {
    reflect,
    usage: () => ({ ...usage }),
    config,
    close: () => {
      if (owned) engine.close();
    },
  };
}
