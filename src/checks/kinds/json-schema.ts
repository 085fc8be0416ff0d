/**
 * `json_schema`: the text parses as JSON (a lone fenced block is unwrapped) and satisfies a JSON
 * Schema (ajv; `pattern` keywords run on the safe regex engine, a costly test awaited from a worker).
 *
 * rubric:  check: { json_schema: { type: object, required: [answer] } }
 */
import type { ValidateFunction } from "ajv";
import * as z from "zod";
import { compileJsonSchema, describeAjvErrors, validateData } from "../compile.js";
import { ambiguity, readsAsAnother, roundedVariants } from "../../text/json.js";
import { defineCheck, type CheckResult } from "../kind.js";
import { withAwaitedPatternTests } from "../regex.js";
import { schemaProblem } from "./problems.js";

export const JsonSchemaSpec = z.record(z.string(), z.unknown()).describe("A JSON Schema the response must parse as JSON and satisfy");
export type JsonSchemaSpec = z.infer<typeof JsonSchemaSpec>;

/** The JSON inside a response that is one fenced code block, else the text itself. */
function unfence(text: string): string {
  const fenced = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return fenced ? fenced[1] : text;
}

/**
 * Whether the verdict would differ were a rounded integer read as a neighbouring double: then it
 * rests on digits the parsed value lost (`18446744073709551615` meets a `const` of 2^64), and
 * the response's number cannot be told from the schema's. An integer no constraint looks at (an
 * id beside the answer) leaves the verdict as it is.
 */
function turnsOnRounding(validate: ValidateFunction, json: string, rounded: [number, number][], pass: boolean): boolean {
  return roundedVariants(json, rounded).some((variant) => validateData(validate, JSON.parse(variant)) !== pass);
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
    const unsafe: [number, number][] = [];
    const doubt = ambiguity(json, { unsafeIntegers: unsafe });
    if (doubt !== undefined) return { pass: false, reasoning: `ambiguous JSON: ${doubt}` };
    const rounded = unsafe.filter(([start, end]) => readsAsAnother(json.slice(start, end)));
    // A pattern test the response made costly (lookaround, a long text) is awaited, not waited for.
    return withAwaitedPatternTests(() => verdict(validate, data, json, rounded));
  },
});

/** The check's verdict on parsed, unambiguous JSON; `rounded` are the spans of its integers a double cannot hold. */
function verdict(validate: ValidateFunction, data: unknown, json: string, rounded: [number, number][]): CheckResult {
  const pass = validateData(validate, data);
  // JSON built to make a pattern backtrack or the validator's stack overflow is the response's no.
  if (typeof pass === "object") return { pass: false, reasoning: pass.fault, forfeit: true };
  const reasoning = pass ? "valid against the schema" : `schema violations: ${describeAjvErrors(validate.errors)}`;
  if (rounded.length > 0 && turnsOnRounding(validate, json, rounded, pass)) {
    const [start, end] = rounded[0];
    return { pass: false, reasoning: `ambiguous JSON: the verdict turns on digits JSON numbers do not hold (${json.slice(start, end)} reads as ${BigInt(Number(json.slice(start, end)))}); an integer past 2^53 is compared exactly only as a string` };
  }
  return { pass, reasoning };
}
