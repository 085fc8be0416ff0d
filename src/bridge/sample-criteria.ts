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
 * - What they cost is sized before anything compiles or runs (`CLIENT_CRITERIA_LIMITS`): how many
 *   a sample adds, what RE2 would build for each pattern (checks/regex-cost.ts), a schema's size as
 *   validated with its `$ref`s inlined and its enum/const values (checks/schema-shape.ts), and a
 *   request's work: the characters its client criteria read, summed over its samples. Past a bound,
 *   400 (one criterion, one sample) or 413 (the request's total) `SAMPLE_CRITERIA_TOO_LARGE`.
 * - At scoring, a sample's client checks run in a worker thread under a CPU limit
 *   (checks/off-thread.ts): RE2's slowest engine (`a.{20}x` on a/b text, ~1.4 s per 10,000
 *   characters here) never runs on the event loop.
 */
import { pureCheckKinds } from "../checks/registry.js";
import { runsInLinearTime } from "../checks/regex.js";
import { regexCost } from "../checks/regex-cost.js";
import { schemaShape, type SchemaShape } from "../checks/schema-shape.js";
import { templateLength, variableText } from "../text/template.js";
import { HttpError } from "./http.js";

/** "off": no sample criteria; "checks": pure checks only (default); "questions": pure checks and LLM questions. */
export type SampleCriteriaPolicy = "off" | "checks" | "questions";

/**
 * The check kinds a client may send: pure (they read only the sample, start no process, open no
 * file, run no server code) and cheap (linear in the text, or bounded by RE2 and ajv).
 */
export const PURE_CHECK_KINDS: readonly string[] = Object.freeze(pureCheckKinds());

/**
 * What a client's criteria may cost, sized before anything compiles or runs (docs/serving-rewards.md).
 * Measured on a loaded 2-core machine; each bound sits well above what legitimate criteria need.
 */
export const CLIENT_CRITERIA_LIMITS = Object.freeze({
  /** Criteria one sample (or a session's task) adds; the rubric's own are not counted. A reasoning rubric has a dozen. */
  perSample: 64,
  /** RE2 program units (checks/regex-cost.ts) of one pattern, ~7–35 µs each to compile: `^.{0,280}$` is ~7,800. */
  regexUnits: 16_384,
  /** RE2 program units of a request's distinct patterns (each counts at least `patternOverhead`): about a second of compiling at most. */
  regexUnitsPerRequest: 65_536,
  /** What compiling any pattern costs at least, in RE2 units (~0.8 ms measured for `\bword\b`). */
  patternOverhead: 64,
  /** Objects and arrays of one schema with its `$ref`s inlined: what validating one value can visit. */
  schemaNodes: 4_096,
  /** `enum` entries and `const` values of one schema (refs inlined): each validated value is compared with every one. */
  schemaValues: 1_024,
  /** Characters of those values' JSON. */
  schemaValueChars: 65_536,
  /** Objects and arrays ajv compiles for a request's distinct schemas (~0.2 ms each), each schema at least `schemaOverhead`: one ajv instance's share (checks/compile.ts). */
  schemaNodesPerRequest: 8_192,
  schemaOverhead: 8,
  /**
   * Work units of a request's client criteria: each reads its text (a `tag` once more), except
   * that contains' fold and equals' normalization of a text count once per sample (scoring does
   * them once); a `contains` needle costs 16 and a 32nd of the text (a substring search), a
   * `{{variable}}` what it renders to, twice (rendered, then normalized), and a json_schema one
   * pass more per 64 nodes and values of its schema. ~10–50 ns a unit: a few seconds at most.
   */
  workPerRequest: 64 * 1024 * 1024,
});

/** Keys of a check that modify its kind rather than name one. */
const CHECK_MODIFIERS = new Set(["field", "tag", "match", "case_sensitive", "normalize", "args"]);

/** A client pattern to test for linear time once every criterion of the request is sized. */
interface PatternAt {
  pattern: string;
  flags: string;
  at: string;
  where: string;
}

/** A request's running totals: the distinct patterns and schemas it compiles, and its criteria's work. */
class RequestTally {
  readonly patterns = new Set<string>();
  regexUnits = 0;
  readonly schemas = new Map<string, SchemaShape>();
  schemaNodes = 0;
  work = 0;
  /** Distinct patterns, with where each first appears, for the linear-time test. */
  readonly linear: PatternAt[] = [];
}

/** What the sample a criterion reads offers it: each field's length and each variable's, measured once. */
interface SampleText {
  length(field: string | undefined): number;
  variable(name: string): number;
  /** True the first time `key` (a text and what is done to it) is read in this sample. */
  firstRead(key: string): boolean;
}

/** Where the k-th sample of a `/v1/score` body is, as an error's `field` names it. */
export const samplesField = (k: number): string => `samples.${k}`;

/**
 * The 400 (or 413) for the first sample criterion the policy refuses or the limits size out, or
 * undefined. Every criterion of the request is sized before any pattern compiles.
 */
export function refusedSampleCriterion(samples: unknown[], policy: SampleCriteriaPolicy, options: { responseField?: string; fieldOf?: (k: number) => string } = {}): HttpError | undefined {
  const fieldOf = options.fieldOf ?? samplesField;
  const tally = new RequestTally();
  for (const [i, sample] of samples.entries()) {
    if (!sample || typeof sample !== "object" || !("criteria" in sample)) continue;
    const refused = sizedCriteria((sample as { criteria: unknown }).criteria, `${fieldOf(i)}.criteria`, policy, tally, sampleText(sample as Record<string, unknown>, options.responseField ?? "response"));
    if (refused) return refused;
  }
  return refusedNonLinear(tally);
}

/**
 * The 400 for the first criterion of a client's list (at `field`, e.g. `task.criteria`) the
 * policy refuses or the limits size out, or undefined. A malformed list is left to scoring, which
 * reports it. Without a sample (a session's task, before its transcript exists) no work is counted.
 */
export function refusedCriteria(criteria: unknown, field: string, policy: SampleCriteriaPolicy): HttpError | undefined {
  const tally = new RequestTally();
  return sizedCriteria(criteria, field, policy, tally, undefined) ?? refusedNonLinear(tally);
}

function sizedCriteria(criteria: unknown, field: string, policy: SampleCriteriaPolicy, tally: RequestTally, text: SampleText | undefined): HttpError | undefined {
  if (criteria === undefined) return undefined;
  if (policy === "off") return new HttpError(400, "SAMPLE_CRITERIA_REFUSED", `${field}: this server scores only its rubric's criteria (started with --no-sample-criteria)`, field);
  if (!Array.isArray(criteria)) return undefined;
  if (criteria.length > CLIENT_CRITERIA_LIMITS.perSample) return tooLarge(400, field, `${criteria.length.toLocaleString("en-US")} criteria; a sample adds at most ${CLIENT_CRITERIA_LIMITS.perSample} of its own (the rubric's are not counted)`);
  for (const [j, criterion] of criteria.entries()) {
    if (!criterion || typeof criterion !== "object") continue;
    const at = `${field}.${j}`;
    const check = (criterion as { check?: unknown }).check;
    if (check && typeof check === "object") {
      const reasoning = (criterion as { reasoning?: unknown }).reasoning;
      const refused = refusedCheck(check as Record<string, unknown>, `${at}.check`) ?? sizedCheck(check as Record<string, unknown>, at, tally, text && { text, view: typeof reasoning === "string" ? reasoning : "" });
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
  return undefined;
}

const tooLarge = (status: 400 | 413, field: string, why: string) => new HttpError(status, "SAMPLE_CRITERIA_TOO_LARGE", `${field}: ${why}`, field);
const count = (n: number) => (n >= Number.MAX_SAFE_INTEGER ? "more than 9e15" : Math.round(n).toLocaleString("en-US"));

/** Sizes one client check (at `at`, the criterion): its schema, its patterns, and (with a sample) its work. */
function sizedCheck(check: Record<string, unknown>, at: string, tally: RequestTally, read: { text: SampleText; view: string } | undefined): HttpError | undefined {
  const L = CLIENT_CRITERIA_LIMITS;
  let shape: SchemaShape | undefined;
  const schema = check.json_schema;
  if (schema && typeof schema === "object") {
    const key = JSON.stringify(schema);
    shape = tally.schemas.get(key);
    if (!shape) {
      shape = schemaShape(schema);
      const where = `${at}.check.json_schema`;
      if (shape.outsideRef !== undefined) return new HttpError(400, "SAMPLE_CHECK_REFUSED", `${where}: $ref "${shape.outsideRef.slice(0, 80)}" points outside the schema; a client's $ref must point inside its own schema (#/definitions/…, or an $id or $anchor in it)`, where);
      if (shape.expanded > L.schemaNodes) return tooLarge(400, where, `the schema has ${count(shape.expanded)} objects and arrays with its $refs inlined (each validated value can visit them all; a $ref used twice counts twice); a client's schema may have at most ${L.schemaNodes.toLocaleString("en-US")}`);
      if (shape.values > L.schemaValues) return tooLarge(400, where, `the schema's enum and const hold ${count(shape.values)} values with its $refs inlined (each validated value is compared with every one); at most ${L.schemaValues.toLocaleString("en-US")}`);
      if (shape.valueChars > L.schemaValueChars) return tooLarge(400, where, `the schema's enum and const values are ${count(shape.valueChars)} characters of JSON with its $refs inlined; at most ${L.schemaValueChars.toLocaleString("en-US")}`);
      tally.schemaNodes += shape.nodes + L.schemaOverhead;
      if (tally.schemaNodes > L.schemaNodesPerRequest) return tooLarge(413, where, `the request's distinct schemas would compile ${count(tally.schemaNodes)} objects and arrays (each schema at least ${L.schemaOverhead}); at most ${L.schemaNodesPerRequest.toLocaleString("en-US")} a request: send fewer samples per request, or the same schema in each`);
      tally.schemas.set(key, shape);
    }
  }
  for (const { pattern, flags, where } of patternsOf(check)) {
    const key = `${flags}/${pattern}`;
    if (tally.patterns.has(key)) continue;
    const field = `${at}.check.${where}`;
    const units = regexCost(pattern, flags);
    if (units > L.regexUnits) return tooLarge(400, field, `/${pattern.slice(0, 80)}/ would compile to ~${count(units)} RE2 instructions (repetition counts multiply through nesting, and a class counts its ranges); a client's pattern may have at most ${L.regexUnits.toLocaleString("en-US")}: check a text's length with a length check, not a repetition`);
    tally.regexUnits += Math.max(units, L.patternOverhead);
    if (tally.regexUnits > L.regexUnitsPerRequest) return tooLarge(413, field, `the request's distinct patterns would compile to ~${count(tally.regexUnits)} RE2 instructions (each at least ${L.patternOverhead}); at most ${L.regexUnitsPerRequest.toLocaleString("en-US")} a request: send fewer samples per request, or the same patterns in each`);
    tally.patterns.add(key);
    tally.linear.push({ pattern, flags, at: `${at}.check`, where });
  }
  if (!read) return undefined;
  tally.work += criterionWork(check, read.text, read.view, shape);
  if (tally.work > L.workPerRequest) return tooLarge(413, at, `the request's client criteria would read ~${count(tally.work)} characters (each criterion its text, a contains needle a 32nd of it, a {{variable}} what it renders to, a json_schema once more per 64 nodes); at most ${L.workPerRequest.toLocaleString("en-US")} a request: send fewer samples per request, or fewer criteria`);
  return undefined;
}

/**
 * Work units of one client check on its sample (see `CLIENT_CRITERIA_LIMITS.workPerRequest`), as
 * scoring does the work: a text that contains folds, or equals normalizes, is counted the first
 * time the sample's criteria read it (the same field, tag, reasoning view and case), as
 * score.ts's memo transforms it once; every other check reads its text itself.
 */
function criterionWork(check: Record<string, unknown>, text: SampleText, view: string, shape: SchemaShape | undefined): number {
  const field = typeof check.field === "string" ? check.field : undefined;
  const tag = typeof check.tag === "string" ? check.tag : undefined;
  const length = text.length(field);
  const once = (what: string) => (text.firstRead([what, field ?? "", tag ?? "", view].join("\u0000")) ? length : 0);
  const templated = (spec: unknown) => (typeof spec === "string" ? 2 * templateLength(spec, (name) => text.variable(name)) : 0);
  // Finding the tag's section is a pass of its own, for each criterion.
  let units = tag === undefined ? 0 : length;
  const needles = check.contains ?? check.not_contains;
  if (needles !== undefined) {
    units += once(`fold:${check.case_sensitive === true}`);
    for (const needle of Array.isArray(needles) ? needles : [needles]) units += 16 + Math.ceil(length / 32) + 2 * (typeof needle === "string" ? needle.length : 0);
  } else if (check.equals !== undefined) {
    units += (check.normalize === false ? length : once("normalize")) + templated(check.equals);
  } else {
    const expected = check.number && typeof check.number === "object" ? (check.number as { expected?: unknown }).expected : undefined;
    units += length * (shape ? 1 + Math.floor((shape.expanded + shape.values) / 64) : 1) + templated(expected);
  }
  return units;
}

/** Lengths of a sample's fields (a non-string one as JSON, as checks read it) and variables, each measured once. */
function sampleText(sample: Record<string, unknown>, responseField: string): SampleText {
  const fields = new Map<string, number>();
  const variables = new Map<string, number>();
  const read = new Set<string>();
  const measure = (value: unknown) => (value === undefined || value === null ? 0 : typeof value === "string" ? value.length : (JSON.stringify(value)?.length ?? 0));
  return {
    length(field = responseField) {
      let n = fields.get(field);
      if (n === undefined) fields.set(field, (n = Object.hasOwn(sample, field) ? measure(sample[field]) : 0));
      return n;
    },
    variable(name) {
      let n = variables.get(name);
      if (n === undefined) variables.set(name, (n = variableText(sample, name)?.length ?? 0));
      return n;
    },
    firstRead(key) {
      if (read.has(key)) return false;
      read.add(key);
      return true;
    },
  };
}

/** The 400 for the first of the request's distinct patterns that needs the backtracking engine, compiled once each (and kept for scoring). */
function refusedNonLinear(tally: RequestTally): HttpError | undefined {
  for (const { pattern, flags, at, where } of tally.linear) {
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

/** Every regular expression a check carries, with where it is in the check: its `regex`, and `pattern`/`patternProperties` anywhere in its json_schema. */
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
  const stack: [unknown, string][] = [[check.json_schema, "json_schema"]];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (!node || typeof node !== "object") continue;
    for (const [key, value] of Object.entries(node)) {
      if (key === "pattern" && typeof value === "string") found.push({ pattern: value, flags: "u", where: `${path}.pattern` });
      if (key === "patternProperties" && value && typeof value === "object") for (const p of Object.keys(value)) found.push({ pattern: p, flags: "u", where: `${path}.patternProperties` });
      stack.push([value, `${path}.${key}`]);
    }
  }
  return found;
}
