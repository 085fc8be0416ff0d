import { createRequire } from "node:module";
import type { Ajv, SchemaValidateFunction, ValidateFunction } from "ajv";
import type addFormatsModule from "ajv-formats";
import { isRubricateError, RubricateError } from "../errors.js";
import { canonicalJson } from "../text/canonical-json.js";
import { ajvLinearRegExp, ajvRegExp, compiledRegex, regexTextFault, withAwaitedPatternTests, type SafeRegex, type VerdictBudgets } from "./regex.js";
import { nestingDepth } from "../text/json.js";

// json_schema `pattern` and `patternProperties` run on the same safe engine as regex checks;
// a client's schema (linearOnly) on RE2 alone, through an ajv instance of its own.
// ownProperties: `required: [constructor]` must not be met by Object.prototype's own `constructor` on `{}`.
// A client's schema writes nothing to the server's log (ajv warns on the console about unknown formats and keywords).
const ajvOptionsOf = (linearOnly: boolean) => ({ allErrors: true, strict: false, ownProperties: true, code: { regExp: linearOnly ? ajvLinearRegExp : ajvRegExp }, ...(linearOnly ? { logger: false as const } : {}) }) as const;

/** A new ajv with the formats; ajv and ajv-formats load with the first JSON Schema, not on `import "rubricate"`. */
function newAjv(linearOnly: boolean): Ajv {
  const load = createRequire(import.meta.url);
  const { Ajv: AjvClass } = load("ajv") as typeof import("ajv");
  // ajv-formats is CommonJS with a default export; required, the callable is the module itself.
  const addFormats = load("ajv-formats") as typeof addFormatsModule & { default?: typeof addFormatsModule };
  const ajv = ((addFormats.default ?? addFormats) as unknown as (ajv: Ajv) => Ajv)(new AjvClass(ajvOptionsOf(linearOnly)));
  return ajv.removeKeyword("uniqueItems").addKeyword({ keyword: "uniqueItems", type: "array", schemaType: "boolean", errors: true, validate: uniqueItems });
}

/**
 * `uniqueItems` in time linear in the array: each item's canonical JSON (keys sorted, so items
 * equal as JSON Schema defines it have the same text) in a set. ajv's own compares every pair of
 * items that may be objects or arrays: 20,000 small objects (a 0.3 MB response) held the event
 * loop ~10 s, and a response picks its array's length.
 */
const uniqueItems: SchemaValidateFunction = (schema: boolean, data: unknown[]): boolean => {
  uniqueItems.errors = undefined;
  if (!schema) return true;
  const seen = new Map<string, number>();
  for (const [i, item] of data.entries()) {
    const text = canonicalJson(item);
    const j = seen.get(text);
    if (j !== undefined) {
      uniqueItems.errors = [{ keyword: "uniqueItems", message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i, j } }];
      return false;
    }
    seen.set(text, i);
  }
  return true;
};

/**
 * Schema nodes (objects and arrays) one ajv instance compiles before a fresh instance takes over.
 * ajv keeps every validator an instance compiled, with its schema and patterns (its scope, which
 * `removeSchema` does not empty), for as long as the instance lives: a reward server receiving a
 * new client schema per request grew ~22 MB per 1,000 small schemas until it ran out of memory.
 * A retired instance is collected once no cached validator of its own is left (see `retire`).
 */
const AJV_INSTANCE_NODES = 8192;
interface AjvSlot {
  ajv: Ajv;
  nodes: number;
}
const ajvs: { trusted?: AjvSlot; linear?: AjvSlot } = {};

/** The shared instance that compiles a schema of `nodes` nodes: the current one, or a fresh one once the current has compiled its share. */
function sharedAjv(linearOnly: boolean, nodes: number): Ajv {
  const which = linearOnly ? "linear" : "trusted";
  let slot = ajvs[which];
  if (!slot || (slot.nodes > 0 && slot.nodes + nodes > AJV_INSTANCE_NODES)) {
    if (slot) retire(slot.ajv);
    slot = ajvs[which] = { ajv: newAjv(linearOnly), nodes: 0 };
  }
  slot.nodes += nodes;
  return slot.ajv;
}

/**
 * An instance stops compiling: cached validators of instances older than it are dropped (compiled
 * again on a fresh instance when used), so at most it and the fresh one stay alive, whatever the
 * order in which cached schemas are used.
 */
function retire(retiring: Ajv): void {
  const live = new Set<Ajv>([retiring, ...[ajvs.trusted, ajvs.linear].flatMap((slot) => (slot ? [slot.ajv] : []))]);
  for (const [key, entry] of validators) if (entry.shared && !live.has(entry.owner)) validators.delete(key);
}

/** Objects and arrays in a JSON value (a loop, not recursion): what an ajv instance compiles and keeps per schema. */
function schemaNodes(schema: unknown): number {
  let nodes = 0;
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node || typeof node !== "object") continue;
    nodes++;
    for (const value of Object.values(node)) if (value && typeof value === "object") stack.push(value);
  }
  return nodes;
}

/** Options of `compileJsonSchema` and `compileRegex`. */
export interface CompileOptions {
  /** A client-supplied pattern or schema: its regexes run on RE2 only (see `SafeRegexOptions`). */
  linearOnly?: boolean;
}
/**
 * Compiled schemas and regexes kept, most recently used last. Bounded: per-sample criteria in a
 * long-running reward server may bring a new schema with every request.
 */
export const COMPILE_CACHE_LIMIT = 1000;
/** A compiled schema: its validator, the copy ajv compiled, the instance that holds it, and whether that instance is a shared one (not one of its own, for an `$id` taken). */
interface Compiled {
  validate: ValidateFunction;
  schema: Record<string, unknown>;
  owner: Ajv;
  shared: boolean;
}
const validators = new Map<string, Compiled>();

/** The compiled validator for a JSON Schema, compiled once per distinct schema and reused. */
export function compileJsonSchema(schema: Record<string, unknown>, options: CompileOptions = {}): ValidateFunction {
  const linearOnly = options.linearOnly === true;
  const key = `${linearOnly ? "linear:" : ""}${JSON.stringify(schema)}`;
  let entry = validators.get(key);
  if (entry) {
    validators.delete(key);
  } else {
    const copy = structuredClone(schema);
    try {
      entry = compileWith(sharedAjv(linearOnly, schemaNodes(copy)), copy, linearOnly);
      refuseAsync(entry);
    } catch (e) {
      if (isRubricateError(e, "REGEX_REFUSED")) throw e;
      const { text, path } = explainSchemaError((e as Error).message);
      // `schemaPath` lets the rubric loader point at the offending keyword inside `json_schema`.
      throw Object.assign(new RubricateError("SCHEMA", `invalid JSON Schema: ${text}`, { cause: e }), { schemaPath: path });
    }
    if (validators.size >= COMPILE_CACHE_LIMIT) {
      const [oldestKey, oldest] = validators.entries().next().value!;
      validators.delete(oldestKey);
      // ajv keeps every compiled schema (and its $id) until told otherwise.
      oldest.owner.removeSchema(oldest.schema);
    }
  }
  validators.set(key, entry);
  return entry.validate;
}

/** ajv's "schema is invalid: data/properties/a/type must be …, data/… …" as its first problem, in the rubric's words, and where it is. */
function explainSchemaError(message: string): { text: string; path: string[] } {
  const m = /^schema is invalid: data(\S*) (.+?)(?:, data[\/\s].*)?$/s.exec(message);
  if (!m) return { text: message, path: [] };
  const path = m[1].split("/").filter(Boolean);
  const hint = path.at(-1) === "type" ? " (string, number, integer, boolean, object, array, null, or a list of them)" : "";
  return { text: `${path.length ? `"${path.join(".")}" ` : "the schema "}${m[2]}${hint}`, path };
}

/**
 * An `$async` schema's validator returns a Promise: a check would read it as a pass whatever the
 * data, and its rejection, unhandled, ends the process (a client's schema on a reward server).
 */
function refuseAsync(entry: Compiled): void {
  if (!(entry.validate as { $async?: boolean }).$async) return;
  entry.owner.removeSchema(entry.schema);
  throw new Error("$async schemas are not supported: a check validates the response synchronously");
}

let schemaCompiles = 0;

/** How many schemas ajv has been asked to compile in this process: for tests that a refused schema never compiled. */
export const schemaCompileCount = (): number => schemaCompiles;

/** Compiles on the shared instance; a schema whose `$id` another (different) schema already took gets an instance of its own. */
function compileWith(shared: Ajv, schema: Record<string, unknown>, linearOnly: boolean): Compiled {
  schemaCompiles++;
  try {
    return { validate: shared.compile(schema), schema, owner: shared, shared: true };
  } catch (e) {
    if (!/already exists/.test((e as Error).message)) throw e;
    const own = newAjv(linearOnly);
    return { validate: own.compile(schema), schema, owner: own, shared: false };
  }
}

/**
 * A compiled user regular expression, cached: linear-time RE2 where it can run the pattern, else
 * JavaScript's engine under a deadline (see regex.ts); `g` and `y` are dropped so `test` has no state.
 */
export function compileRegex(pattern: string, flags = "", options: CompileOptions = {}): SafeRegex {
  try {
    return compiledRegex(pattern, flags, options);
  } catch (e) {
    if (isRubricateError(e, "REGEX_REFUSED")) throw e;
    throw new RubricateError("SCHEMA", `invalid regular expression /${pattern}/: ${(e as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "")}`, { cause: e });
  }
}

/**
 * Why the data, not the schema, made a compiled validator throw: a `pattern` the text made
 * backtrack (see `regexTextFault`), or data nested deeper than the stack of ajv's recursive
 * validation (`$ref` to itself on 100,000 nested arrays). JSON-checking kinds count it as a no:
 * as an error, `--errors skip-criterion` would leave the criterion out of the reward. Undefined
 * for anything else, and for a stack overflow on shallow data (a schema that recurses without
 * end: the rubric's), which stay errors.
 */
function validationFault(e: unknown, data: unknown): string | undefined {
  const regex = regexTextFault(e);
  if (regex !== undefined) return regex;
  if (!(e instanceof RangeError)) return undefined;
  const depth = nestingDepth(data, DEEP_JSON);
  return depth >= DEEP_JSON ? `the JSON nests ${depth === DEEP_JSON ? `${DEEP_JSON} or more` : depth} levels deep and overflowed the validator's stack; counted as invalid` : undefined;
}

/**
 * Runs a compiled validator on data the response gave: whether it is valid, or the fault the data
 * caused (`validationFault`) as `{ fault }`, which the JSON-checking kinds count as invalid, never
 * as an error. Any other error is thrown.
 */
export function validateData(validate: ValidateFunction, data: unknown): boolean | { fault: string } {
  try {
    return validate(data) as boolean;
  } catch (e) {
    const fault = validationFault(e, data);
    if (fault === undefined) throw e;
    return { fault };
  }
}

/** A validation's verdict (`validateData`'s) and ajv's errors from the same run. */
export interface Validation {
  valid: boolean | { fault: string };
  errors: ValidateFunction["errors"];
}

/**
 * `validateData` that never holds the caller for a `pattern` test the data made costly (the
 * backtracking engine's, or RE2 on a long text): such a test is awaited from a worker
 * (`withAwaitedPatternTests`), and the caller's event loop, a reward server's or a rollout's, goes
 * on meanwhile. At once when no test was costly. The errors are read in the same run as the
 * verdict, before another validation with the same validator can replace them. `budgets`: one
 * caller's several validations drawing on one budget (a rollout's tool calls), else the verdict's own.
 */
export function validateDataAwaited(validate: ValidateFunction, data: unknown, budgets?: VerdictBudgets): Validation | Promise<Validation> {
  return withAwaitedPatternTests(() => ({ valid: validateData(validate, data), errors: validate.errors }), budgets);
}

/** Nesting past which a validator's stack overflow is the data's doing: far beyond any schema's own recursion on real JSON. */
const DEEP_JSON = 1000;

/** Problems a reasoning lists; the rest are counted (ajv reports one per failing item, and a response picks how many items fail). */
const LISTED_ERRORS = 10;

/**
 * A readable one-line list of ajv's errors (a validator's `errors` after it ran): the first ten, and how many more.
 * @param root what an error at the data's root is named (default "/"; a tool call's problems name its "arguments")
 */
export function describeAjvErrors(found: ValidateFunction["errors"], root = "/"): string {
  const errors = found ?? [];
  const listed = errors.slice(0, LISTED_ERRORS).map((e) => `${e.instancePath || root} ${e.message ?? "is invalid"}`);
  return errors.length > LISTED_ERRORS ? `${listed.join("; ")}; and ${(errors.length - LISTED_ERRORS).toLocaleString("en-US")} more` : listed.join("; ");
}
