import type { Check } from "./schema.js";
import { kindOf } from "./registry.js";

/**
 * Compiles what a check definition contains (regexes, JSON Schemas), through its kind's
 * `validate`, so a bad one fails at load, with its path inside the check.
 */
export function validateCheckDefinition(check: Check): { message: string; path: string[] } | undefined {
  const named = kindOf(check);
  const problem = named?.kind.validate?.(named.spec);
  return problem && named ? { message: problem.message, path: [named.kind.key, ...problem.path.map(String)] } : undefined;
}
