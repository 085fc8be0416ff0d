import { RubricateError } from "../errors.js";
import { SQL_CHECK_NAME, sqlResultMatches } from "./sql.js";
import type { CheckFunction } from "./types.js";

/**
 * Custom check functions by the name a rubric uses (`check: { custom: name }`). Passed where
 * they are used (`score(…, { checks })`, an environment's hooks), never kept in a process-wide
 * registry: two rubrics or environments in one process cannot clash, and the ESM and CJS builds
 * cannot disagree about what is registered.
 */
export type CustomChecks = Readonly<Record<string, CheckFunction>>;

/** The custom checks every rubric can use without passing them. */
export const BUILTIN_CHECKS: CustomChecks = Object.freeze({ [SQL_CHECK_NAME]: sqlResultMatches });

/**
 * The function for `check: { custom: name }`: from `checks` first, then the built-ins;
 * `UNKNOWN_CHECK` naming what is available when there is none.
 * @example findCheck("has-citation", { "has-citation": (text) => /\[\d+\]/.test(text) })
 */
export function findCheck(name: string, checks: CustomChecks = {}): CheckFunction {
  const fn = Object.hasOwn(checks, name) ? checks[name] : Object.hasOwn(BUILTIN_CHECKS, name) ? BUILTIN_CHECKS[name] : undefined;
  if (typeof fn === "function") return fn;
  const known = [...new Set([...Object.keys(checks), ...Object.keys(BUILTIN_CHECKS)])];
  throw new RubricateError(
    "UNKNOWN_CHECK",
    `no custom check named "${name}" is registered for this scoring (available: ${known.join(", ")}); pass it where the rubric is scored: score(rubric, samples, { checks: { "${name}": fn } }) or an environment's hooks.checks`,
  );
}
