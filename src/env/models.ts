import { RubricateError } from "../errors.js";
import { createPolicy, type Policy } from "./policy.js";

/**
 * An environment's `models:` (for `ctx.llm` and the REPL's `llm_query`) with `name=spec`
 * overrides (`eval --env-model`), as policies.
 * @example envModels({ customer: "openai:gpt-4.1-mini" }, ["customer=anthropic:claude-haiku-4-5"])
 */
export function envModels(declared: Record<string, string>, overrides: string[]): Record<string, Policy> {
  const specs = { ...declared };
  for (const o of overrides) {
    const eq = o.indexOf("=");
    if (eq <= 0) throw new RubricateError("BAD_INPUT", `--env-model "${o}": expected name=provider:model`);
    specs[o.slice(0, eq)] = o.slice(eq + 1);
  }
  return Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, createPolicy(spec)]));
}
