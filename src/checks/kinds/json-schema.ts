/**
 * `json_schema`: the text parses as JSON (a lone fenced block is unwrapped) and satisfies a JSON
 * Schema (ajv; `pattern` keywords run on the safe regex engine).
 *
 * rubric:  check: { json_schema: { type: object, required: [answer] } }
 */
import * as z from "zod";
import { compileJsonSchema, describeAjvErrors, validateData } from "../compile.js";
import { defineCheck } from "../kind.js";
import { schemaProblem } from "./problems.js";

export const JsonSchemaSpec = z.record(z.string(), z.unknown()).describe("A JSON Schema the response must parse as JSON and satisfy");
export type JsonSchemaSpec = z.infer<typeof JsonSchemaSpec>;

/** The JSON inside a response that is one fenced code block, else the text itself. */
function unfence(text: string): string {
  const fenced = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return fenced ? fenced[1] : text;
}

export const jsonSchema = defineCheck<JsonSchemaSpec>({
  key: "json_schema",
  spec: JsonSchemaSpec,
  summary: "the text is JSON that satisfies a JSON Schema",
  pure: true,
  validate: (spec) => schemaProblem(() => compileJsonSchema(spec), []),
  fix: (_spec, { criterionId }) => `Code check "${criterionId}" accepts any value of the right shape: constrain values (enum, pattern, const from {{variables}}) or add an equals/number check on the fields that carry the answer.`,
  run(spec, { text, fromClient }) {
    const validate = compileJsonSchema(spec, { linearOnly: fromClient });
    let data: unknown;
    const json = unfence(text);
    try {
      data = JSON.parse(json);
    } catch (e) {
      return { pass: false, reasoning: `not valid JSON: ${(e as Error).message}` };
    }
    const doubt = ambiguity(json);
    if (doubt !== undefined) return { pass: false, reasoning: `ambiguous JSON: ${doubt}` };
    const pass = validateData(validate, data);
    // JSON built to make a pattern backtrack or the validator's stack overflow is the response's no.
    if (typeof pass === "object") return { pass: false, reasoning: pass.fault, forfeit: true };
    return { pass, reasoning: pass ? "valid against the schema" : `schema violations: ${describeAjvErrors(validate)}` };
  },
});

/** The keys of an open object (the first one alone until there is a second), or undefined for an array. */
type Open = { first?: string; more?: Set<string> } | undefined;

/**
 * Why the value JSON.parse gives for a JSON text it accepted is not what the text says, or
 * undefined: a key twice in one object (JSON.parse keeps the last, so `{"answer": 1000, "answer":
 * 5}` would be checked as 5 while a reader, or the next parser, takes 1000), or a number past the
 * range of a double (`1e400` is Infinity, which `type: integer` and `minimum: 0` accept). One pass
 * over the text, which must be valid JSON.
 */
export function ambiguity(json: string): string | undefined {
  const open: Open[] = [];
  let keyNext = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === "{" || c === "[") {
      open.push(c === "{" ? {} : undefined);
      keyNext = c === "{";
    } else if (c === "}" || c === "]") {
      open.pop();
      keyNext = false;
    } else if (c === ",") {
      keyNext = open[open.length - 1] !== undefined;
    } else if (c === '"') {
      const end = stringEnd(json, i);
      if (keyNext) {
        const written = json.slice(i, end + 1);
        if (!addKey(open[open.length - 1]!, written)) return `the key ${JSON.stringify(shorten(JSON.parse(written) as string))} appears twice in one object`;
        keyNext = false;
      }
      i = end;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      const end = numberEnd(json, i);
      const written = json.slice(i, end);
      if (!Number.isFinite(Number(written))) return `the number ${shorten(written)} is too large for a number (it reads as Infinity)`;
      i = end - 1;
    }
  }
  return undefined;
}

/** Adds a key, written as a JSON string, to an object's keys: false when it was there already ("a" and "\u0061" alike). */
function addKey(keys: NonNullable<Open>, written: string): boolean {
  const key = written.includes("\\") ? (JSON.parse(written) as string) : written.slice(1, -1);
  if (keys.first === undefined) {
    keys.first = key;
    return true;
  }
  if (keys.first === key || keys.more?.has(key)) return false;
  (keys.more ??= new Set()).add(key);
  return true;
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(json: string, start: number): number {
  let i = start + 1;
  while (json.charCodeAt(i) !== 0x22) i += json.charCodeAt(i) === 0x5c /* \ */ ? 2 : 1;
  return i;
}

const NUMBER_PART = /[0-9+\-.eE]/;
/** The index after the number starting at `start`. */
function numberEnd(json: string, start: number): number {
  let i = start + 1;
  while (i < json.length && NUMBER_PART.test(json[i])) i++;
  return i;
}

/** A key or number short enough for a reason: its first 40 characters. */
const shorten = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);
