import { RubricateError, toRubricateError } from "../errors.js";
import { renderTemplate } from "../text/template.js";
import type { Check } from "./schema.js";
import type { Sample, Verdict } from "../types.js";
import { compileJsonSchema, compileRegex, describeAjvErrors } from "./compile.js";
import { extractNumber, parseNumber } from "./number.js";
import { findCheck, type CustomChecks } from "./custom.js";
import { builtinKind } from "./kinds.js";
import { tagContent } from "./format.js";

/** Options of `runCheck`: the default field, the rubric folder, custom checks. */
export interface RunCheckOptions {
  /** The input a check reads when it names no `field` (the rubric's `response_field`, default "response"). */
  defaultField?: string;
  rubricDir?: string;
  /** Custom check functions by name, for `check: { custom: name }` (the built-ins need not be passed). */
  checks?: CustomChecks;
  /**
   * The check came from a client (a reward server's per-sample criteria): its regexes and
   * json_schema patterns run on RE2 only, so no text can hold the server's event loop.
   */
  fromClient?: boolean;
}

/**
 * Answers a code check on a sample. Throws `RubricateError` (a check that throws, a missing input)
 * so callers record an error verdict, never a "no".
 * @example await runCheck({ contains: "Paris" }, { response: "It is Paris." }) // { pass: true, source: "check" }
 */
export async function runCheck(check: Check, sample: Sample, options: RunCheckOptions = {}): Promise<Verdict> {
  const field = check.field ?? options.defaultField ?? "response";
  const value = sample[field];
  if (value === undefined || value === null) {
    throw new RubricateError("MISSING_INPUT", `the sample has no "${field}" input for this check`);
  }
  const text = typeof value === "string" ? value : JSON.stringify(value);
  try {
    const outcome = await evaluate(check, text, sample, options);
    return { pass: outcome.pass, reasoning: outcome.reasoning, source: "check", ...(outcome.score !== undefined ? { score: outcome.score } : {}) };
  } catch (e) {
    const error = toRubricateError(e, "CHECK_FAILED");
    if (error.code === "INTERNAL") throw new RubricateError("CHECK_FAILED", error.message, { cause: e });
    throw error;
  }
}

async function evaluate(check: Check, text: string, sample: Sample, options: RunCheckOptions): Promise<{ pass: boolean; reasoning?: string; score?: number }> {
  // One normalisation for every kind that takes `tag`: the check reads that section only.
  if ("tag" in check && check.tag !== undefined) {
    const content = tagContent(text, check.tag);
    if (content === undefined) return { pass: false, reasoning: `no <${check.tag}>…</${check.tag}> in the text` };
    text = content;
  }
  const builtin = builtinKind(check);
  if (builtin) return builtin.kind.run(builtin.spec, { text, sample, rubricDir: options.rubricDir });
  if ("regex" in check) {
    const { pattern, flags } = typeof check.regex === "string" ? { pattern: check.regex, flags: "" } : check.regex;
    const pass = compileRegex(pattern, flags, { linearOnly: options.fromClient }).test(text);
    return { pass, reasoning: pass ? `matches /${pattern}/` : `does not match /${pattern}/` };
  }
  if ("contains" in check) return containment(check.contains, text, check.case_sensitive, check.match ?? "any", true);
  if ("not_contains" in check) return containment(check.not_contains, text, check.case_sensitive, "any", false);
  if ("equals" in check) {
    const expected = typeof check.equals === "string" ? renderTemplate(check.equals, sample) : String(check.equals);
    const normalize = check.normalize ?? true;
    const pass = normalize ? normalizeText(text) === normalizeText(expected) : text === expected;
    return { pass, reasoning: pass ? "equals the expected value" : `expected "${truncate(expected)}", got "${truncate(text)}"` };
  }
  if ("json_schema" in check) return jsonSchema(check.json_schema, text, options.fromClient);
  if ("number" in check) return numberCheck(check.number, text, sample);
  if ("length" in check) {
    const unit = check.length.unit ?? "chars";
    const size = unit === "words" ? text.trim().split(/\s+/).filter(Boolean).length : [...text].length;
    const pass = (check.length.min === undefined || size >= check.length.min) && (check.length.max === undefined || size <= check.length.max);
    return { pass, reasoning: `${size} ${unit} (allowed ${check.length.min ?? 0}–${check.length.max ?? "∞"})` };
  }
  if (!("custom" in check)) throw new RubricateError("INTERNAL", `no runner for the check kind ${Object.keys(check).join(", ")}`);
  const fn = findCheck(check.custom, options.checks);
  const outcome = await fn(text, { sample, args: check.args ?? {}, rubricDir: options.rubricDir });
  if (typeof outcome === "boolean") return { pass: outcome };
  if (typeof outcome !== "object" || outcome === null || typeof outcome.pass !== "boolean") {
    throw new RubricateError("CHECK_FAILED", `custom check "${check.custom}" returned ${JSON.stringify(outcome)}, not a boolean or { pass }`);
  }
  return outcome;
}

function containment(needles: string | string[], text: string, caseSensitive = false, match: "any" | "all", wanted: boolean) {
  const list = Array.isArray(needles) ? needles : [needles];
  const haystack = caseSensitive ? text : text.toLowerCase();
  const found = list.filter((n) => haystack.includes(caseSensitive ? n : n.toLowerCase()));
  if (!wanted) return { pass: found.length === 0, reasoning: found.length ? `contains ${quoteList(found)}` : `contains none of ${quoteList(list)}` };
  const pass = match === "all" ? found.length === list.length : found.length > 0;
  const missing = list.filter((n) => !found.includes(n));
  return { pass, reasoning: pass ? `contains ${quoteList(found)}` : `missing ${quoteList(match === "all" ? missing : list)}` };
}

function jsonSchema(schema: Record<string, unknown>, text: string, fromClient = false) {
  const validate = compileJsonSchema(schema, { linearOnly: fromClient });
  let data: unknown;
  try {
    data = JSON.parse(unfence(text));
  } catch (e) {
    return { pass: false, reasoning: `not valid JSON: ${(e as Error).message}` };
  }
  const pass = validate(data) as boolean;
  return { pass, reasoning: pass ? "valid against the schema" : `schema violations: ${describeAjvErrors(validate)}` };
}

function numberCheck(spec: { expected: number | string; tolerance?: number; relative?: boolean; pick?: "last" | "first" | "boxed" }, text: string, sample: Sample) {
  const expected = typeof spec.expected === "number" ? spec.expected : parseNumber(renderTemplate(spec.expected, sample));
  if (Number.isNaN(expected)) throw new RubricateError("CHECK_FAILED", `expected value ${JSON.stringify(spec.expected)} is not a number`);
  const actual = extractNumber(text, spec.pick);
  if (actual === undefined) return { pass: false, reasoning: "no number found in the response" };
  const tolerance = spec.tolerance ?? 1e-6;
  const allowed = spec.relative ? tolerance * Math.abs(expected) : tolerance;
  const pass = Math.abs(actual - expected) <= allowed;
  return { pass, reasoning: pass ? `answer ${actual} matches ${expected}` : `answer ${actual}, expected ${expected}` };
}

/** Trim, collapse white space, lower-case, and drop trailing punctuation. */
export function normalizeText(text: string): string {
  return text.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase().replace(/[.!?;:]+$/, "");
}

/** The JSON inside a response that is one fenced code block, else the text itself. */
function unfence(text: string): string {
  const fenced = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return fenced ? fenced[1] : text;
}

const truncate = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n)}…` : s);
const quoteList = (items: string[]) => items.map((i) => `"${i}"`).join(", ");
