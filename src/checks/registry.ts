import { RubricateError } from "../errors.js";
import type { CheckFunction } from "./types.js";

const registry = new Map<string, CheckFunction>();

/**
 * Registers a custom check usable as `check: { custom: name }` in any rubric.
 * @example registerCheck("has-citation", (text) => /\[\d+\]/.test(text))
 */
export function registerCheck(name: string, fn: CheckFunction): void {
  registry.set(name, fn);
}

/** Removes a registered custom check (tests, hot reload). */
export function unregisterCheck(name: string): boolean {
  return registry.delete(name);
}

/** The custom check registered under `name`; `UNKNOWN_CHECK` when there is none. */
export function getCheck(name: string): CheckFunction {
  const fn = registry.get(name);
  if (!fn) {
    const known = [...registry.keys()];
    throw new RubricateError("UNKNOWN_CHECK", `no custom check named "${name}" is registered${known.length ? ` (registered: ${known.join(", ")})` : ""}; call registerCheck("${name}", fn) first`);
  }
  return fn;
}
