import { RubricateError } from "../errors.js";
import { createPolicy, type Policy } from "./policy.js";

/**
 * An environment's `models:` (for `ctx.llm` and the REPL's `llm_query`) with `name=spec`
 * overrides (`eval --env-model`), as policies.
 * @example envModels({ customer: "openai:gpt-4.1-mini" }, ["customer=anthropic:claude-haiku-4-5"])
 */
export function envModels(declared: Record<string, string>, overrides: string[]): Record<string, Policy> {
  return Object.fromEntries(Object.entries(envModelSpecs(declared, overrides)).map(([name, spec]) => [name, createPolicy(spec)]));
}

/**
 * The model specs `envModels` makes policies of: the declared ones with the overrides applied
 * (read without a key, for a queued run's fingerprint).
 * @example envModelSpecs({ customer: "openai:gpt-4.1-mini" }, ["customer=anthropic:claude-haiku-4-5"]) // { customer: "anthropic:claude-haiku-4-5" }
 */
export function envModelSpecs(declared: Record<string, string>, overrides: string[]): Record<string, string> {
  const specs = { ...declared };
  for (const o of overrides) {
    const eq = o.indexOf("=");
    if (eq <= 0) throw new RubricateError("BAD_INPUT", `--env-model "${o}": expected name=provider:model`);
    specs[o.slice(0, eq)] = o.slice(eq + 1);
  }
  return specs;
}
