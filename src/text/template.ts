import { RubricateError } from "../errors.js";

const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

/** The variable names a template uses, in order of first use. */
export function templateVariables(text: string): string[] {
  return [...new Set([...text.matchAll(VARIABLE)].map((m) => m[1]))];
}

/**
 * Fills `{{name}}` from `vars` without HTML escaping (judges read raw text). A missing variable
 * is an error, never an empty string: a question about a blank is a wrong question.
 * @example renderTemplate("Is {{answer}} right?", { answer: "42" }) // "Is 42 right?"
 */
export function renderTemplate(text: string, vars: Record<string, unknown>): string {
  return text.replace(VARIABLE, (_whole, name: string) => {
    const value = lookup(vars, name);
    if (value === undefined || value === null) {
      throw new RubricateError("TEMPLATE_MISSING_VAR", `template variable {{${name}}} is not in the sample`);
    }
    return typeof value === "string" ? value : JSON.stringify(value);
  });
}

function lookup(vars: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(vars, name)) return vars[name];
  let current: unknown = vars;
  for (const part of name.split(".")) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}
