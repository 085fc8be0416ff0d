import { isRubricateError } from "../errors.js";
import type { Check } from "./schema.js";
import { compileJsonSchema, compileRegex } from "./compile.js";

/** Compiles what a check definition contains (regexes, JSON Schemas) so a bad one fails at load, with its path. */
export function validateCheckDefinition(check: Check): { message: string; path: string[] } | undefined {
  try {
    if ("regex" in check) {
      const { pattern, flags } = typeof check.regex === "string" ? { pattern: check.regex, flags: "" } : check.regex;
      compileRegex(pattern, flags);
    }
    if ("json_schema" in check) compileJsonSchema(check.json_schema);
    if ("tool_calls" in check && check.tool_calls.arguments) compileJsonSchema(check.tool_calls.arguments.schema);
  } catch (e) {
    if (isRubricateError(e)) {
      if ("regex" in check) return { message: e.message, path: ["regex"] };
      if ("tool_calls" in check) return { message: e.message, path: ["tool_calls", "arguments", "schema", ...((e as { schemaPath?: string[] }).schemaPath ?? [])] };
      return { message: e.message, path: ["json_schema", ...((e as { schemaPath?: string[] }).schemaPath ?? [])] };
    }
    throw e;
  }
  return undefined;
}
