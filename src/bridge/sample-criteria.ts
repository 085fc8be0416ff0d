/**
 * What a client may add as its own criteria: a sample's `criteria` (per-sample rubrics, on
 * `/v1/score` and `/get_reward`) and a session or rollout task's `criteria` (`serve --env`). One
 * rule for all of them: a client never names server files or server code, and never makes the
 * server's event loop wait.
 *
 * - Only pure checks (`PURE_CHECK_KINDS`, the kinds the table of kinds marks `pure`): functions of
 *   the sample's text alone. `custom` checks
 *   run registered server code (`sql-result-matches` opens a database path given in `args`),
 *   `tests` runs the client's code, `math` and `similarity` spend unbounded CPU on the main thread:
 *   all refused, whatever the setting.
 * - Regexes (`regex` checks, json_schema `pattern`/`patternProperties`) must run in linear time
 *   (RE2: no lookaround, no backreferences); at scoring they never fall back to the backtracking
 *   engine (`ScoreOptions.clientCriteria`).
 * - LLM questions cost the operator money: off unless `--allow-sample-questions`.
 */
import { pureCheckKinds } from "../checks/registry.js";
import { runsInLinearTime } from "../checks/regex.js";
import { HttpError } from "./http.js";

/** "off": no sample criteria; "checks": pure checks only (default); "questions": pure checks and LLM questions. */
export type SampleCriteriaPolicy = "off" | "checks" | "questions";

/**
 * The check kinds a client may send: pure (they read only the sample, start no process, open no
 * file, run no server code) and cheap (linear in the text, or bounded by RE2 and ajv).
 */
export const PURE_CHECK_KINDS: readonly string[] = Object.freeze(pureCheckKinds());

/** Keys of a check that modify its kind rather than name one. */
const CHECK_MODIFIERS = new Set(["field", "tag", "match", "case_sensitive", "normalize", "args"]);

/** The 400 for the first sample criterion the policy refuses, or undefined. */
export function refusedSampleCriterion(samples: unknown[], policy: SampleCriteriaPolicy): HttpError | undefined {
  for (const [i, sample] of samples.entries()) {
    if (!sample || typeof sample !== "object" || !("criteria" in sample)) continue;
    const refused = refusedCriteria((sample as { criteria: unknown }).criteria, `samples.${i}.criteria`, policy);
    if (refused) return refused;
  }
  return undefined;
}

/**
 * The 400 for the first criterion of a client's list (at `field`, e.g. `task.criteria`) the
 * policy refuses, or undefined. A malformed list is left to scoring, which reports it.
 */
export function refusedCriteria(criteria: unknown, field: string, policy: SampleCriteriaPolicy): HttpError | undefined {
  if (criteria === undefined) return undefined;
  if (policy === "off") return new HttpError(400, "SAMPLE_CRITERIA_REFUSED", `${field}: this server scores only its rubric's criteria (started with --no-sample-criteria)`, field);
  if (!Array.isArray(criteria)) return undefined;
  for (const [j, criterion] of criteria.entries()) {
    if (!criterion || typeof criterion !== "object") continue;
    const at = `${field}.${j}`;
    const check = (criterion as { check?: unknown }).check;
    if (check && typeof check === "object") {
      const refused = refusedCheck(check as Record<string, unknown>, `${at}.check`);
      if (refused) return refused;
    }
    if ("question" in criterion && policy !== "questions") {
      return new HttpError(400, "SAMPLE_QUESTIONS_REFUSED", `${at}.question: client-added judge questions are paid by this server and are off (the operator can start it with --allow-sample-questions)`, `${at}.question`);
    }
  }
  return undefined;
}

function refusedCheck(check: Record<string, unknown>, at: string): HttpError | undefined {
  const kinds = Object.keys(check).filter((k) => !CHECK_MODIFIERS.has(k));
  const impure = kinds.find((k) => !PURE_CHECK_KINDS.includes(k));
  if (impure !== undefined || "args" in check) {
    const why = impure === "custom" || impure === undefined ? "clients may not run server code (custom checks can read server files)" : `"${impure}" is not a pure check (clients may not run code, start processes or open files on this server)`;
    return new HttpError(400, "SAMPLE_CHECK_REFUSED", `${at}.${impure ?? "args"}: ${why}; use a pure check (${PURE_CHECK_KINDS.join(", ")})`, at);
  }
  for (const { pattern, flags, where } of patternsOf(check)) {
    let linear = false;
    try {
      linear = runsInLinearTime(pattern, flags);
    } catch {
      linear = true; // an invalid pattern is that sample's SCHEMA error at scoring, not a refusal
    }
    if (!linear) {
      return new HttpError(400, "SAMPLE_REGEX_REFUSED", `${at}.${where}: /${pattern.slice(0, 80)}/ needs the backtracking engine (lookaround or a backreference); a client's pattern must run in linear time (RE2)`, at);
    }
  }
  return undefined;
}

/** Every regular expression a check carries: its `regex`, and `pattern`/`patternProperties` anywhere in its json_schema. */
function patternsOf(check: Record<string, unknown>): { pattern: string; flags: string; where: string }[] {
  const found: { pattern: string; flags: string; where: string }[] = [];
  const regex = check.regex;
  if (typeof regex === "string") found.push({ pattern: regex, flags: "", where: "regex" });
  else if (regex && typeof regex === "object") {
    const { pattern, flags } = regex as { pattern?: unknown; flags?: unknown };
    if (typeof pattern === "string") found.push({ pattern, flags: typeof flags === "string" ? flags : "", where: "regex" });
  }
  // Any "pattern" string or "patternProperties" key in the schema, however deep (a loop, not
  // recursion): conservative, since a property named "pattern" holds an object, not a string.
  const stack: unknown[] = [check.json_schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node || typeof node !== "object") continue;
    for (const [key, value] of Object.entries(node)) {
      if (key === "pattern" && typeof value === "string") found.push({ pattern: value, flags: "u", where: "json_schema…pattern" });
      if (key === "patternProperties" && value && typeof value === "object") for (const p of Object.keys(value)) found.push({ pattern: p, flags: "u", where: "json_schema…patternProperties" });
      stack.push(value);
    }
  }
  return found;
}
