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
  // Most questions have no variable, and every sample renders every question.
  if (!text.includes("{{")) return text;
  return text.replace(VARIABLE, (_whole, name: string) => {
    const value = variableText(vars, name);
    if (value === undefined) throw new RubricateError("TEMPLATE_MISSING_VAR", `template variable {{${name}}} is not in the sample`);
    return value;
  });
}

/**
 * A reference answer rendered from the sample (`{{answer}}`): one that comes out blank is the
 * sample's missing data (`missingReference`), never a value an empty response matches or every
 * response fails.
 * @example renderReference("math", "{{answer}}", { answer: "42" }) // "42"
 */
export function renderReference(kind: string, template: string, vars: Record<string, unknown>): string {
  const reference = renderTemplate(template, vars);
  if (reference.trim() === "") throw missingReference(kind, template);
  return reference;
}

/** The MISSING_INPUT error of a check whose reference, rendered from the sample, is empty. */
export const missingReference = (kind: string, template: string): RubricateError =>
  new RubricateError("MISSING_INPUT", `${kind}: the reference answer ${JSON.stringify(template)} is empty for this sample`);

/**
 * The length `renderTemplate(text, vars)` would have, without building it: `length(name)` says how
 * long a variable renders (so a caller can measure each once). A reward server sizes a client's
 * `{{variable}}` checks with it before running them.
 * @example templateLength("{{a}}-{{a}}", () => 3) // 7
 */
export function templateLength(text: string, length: (name: string) => number): number {
  let total = text.length;
  for (const m of text.matchAll(VARIABLE)) total += length(m[1]) - m[0].length;
  return total;
}

/** What `{{name}}` renders from `vars`: the value's text, or its JSON; undefined when the variable is missing. */
export function variableText(vars: Record<string, unknown>, name: string): string | undefined {
  const value = lookup(vars, name);
  return value === undefined || value === null ? undefined : typeof value === "string" ? value : JSON.stringify(value);
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
