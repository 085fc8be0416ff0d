import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { RubricateError } from "../errors.js";

// ajv-formats ships CJS with a default export; under NodeNext the callable lives on `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
const validators = new Map<string, ValidateFunction>();
const regexes = new Map<string, RegExp>();

/** The compiled validator for a JSON Schema, compiled once per distinct schema and reused. */
export function compileJsonSchema(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    try {
      validate = compileWith(ajv, schema);
    } catch (e) {
      throw new RubricateError("SCHEMA", `invalid JSON Schema: ${(e as Error).message}`, { cause: e });
    }
    validators.set(key, validate);
  }
  return validate;
}

/** Compiles on the shared instance; a schema whose `$id` another (different) schema already took gets an instance of its own. */
function compileWith(shared: Ajv, schema: Record<string, unknown>): ValidateFunction {
  try {
    return shared.compile(schema);
  } catch (e) {
    if (!/already exists/.test((e as Error).message)) throw e;
    return addFormats(new Ajv({ allErrors: true, strict: false })).compile(schema);
  }
}

/** A compiled regular expression, cached; the `g` and `y` flags are dropped so `test` has no state. */
export function compileRegex(pattern: string, flags = ""): RegExp {
  const key = `${flags}/${pattern}`;
  let regex = regexes.get(key);
  if (!regex) {
    try {
      regex = new RegExp(pattern, flags.replace(/[gy]/g, ""));
    } catch (e) {
      throw new RubricateError("SCHEMA", `invalid regular expression /${pattern}/: ${(e as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "")}`, { cause: e });
    }
    regexes.set(key, regex);
  }
  return regex;
}

/** A readable one-line list of ajv's errors. */
export function describeAjvErrors(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}`).join("; ");
}
