/**
 * Helpers for writing a kind's known hacks (`CheckKind.hacks`, see kind.ts). A kind's hacks are a
 * list exported beside it (math/hacks.ts, code/hacks.ts, or inside the kind's own file) and set
 * as `hacks:` in its kinds/ file. Most hacks need the reference the wrong response is aimed at in
 * the input the rubric's template names: `referenceCases` turns plain cases into hacks that do.
 */
import { renderTemplate } from "../text/template.js";
import type { Sample } from "../types.js";
import type { CheckHack } from "./kind.js";

/** A hack as data: a response that deserves to fail against `reference` (omitted: the sample's own reference). */
export interface ReferenceCase {
  id: string;
  description: string;
  response: string | ((reference: string) => string);
  reference?: string;
}

/**
 * The input a settings template reads the reference from, with `value` in it: `{{answer}}` gives
 * `{ answer: value }`. Undefined when the template is not one variable (a literal reference).
 */
export function referenceInputs(template: unknown, value: string): Sample | undefined {
  const whole = typeof template === "string" ? /^\s*\{\{\s*([\w.-]+)\s*\}\}\s*$/.exec(template) : null;
  return whole ? { [whole[1]]: value } : undefined;
}

/**
 * Hacks from reference cases, for a kind whose settings name the reference with `referenceOf`
 * (`(spec) => spec.expected`). A case with its own reference applies only where the rubric reads
 * the reference from an input; one without uses the sample's (or the literal) reference.
 * @example referenceCases(MATH_TRAPS, (spec: MathSpec) => spec.expected)
 */
export function referenceCases<Spec>(cases: readonly ReferenceCase[], referenceOf: (spec: Spec) => unknown): CheckHack<Spec>[] {
  return cases.map((c) => ({
    id: c.id,
    description: c.description,
    build(spec: Spec, sample: Sample) {
      const template = referenceOf(spec);
      if (c.reference !== undefined) {
        const inputs = referenceInputs(template, c.reference);
        return inputs && { response: typeof c.response === "string" ? c.response : c.response(c.reference), inputs };
      }
      const reference = typeof template === "number" ? String(template) : typeof template === "string" ? safeRender(template, sample) : undefined;
      if (!reference?.trim()) return undefined;
      return { response: typeof c.response === "string" ? c.response : c.response(reference) };
    },
  }));
}

function safeRender(template: string, sample: Sample): string | undefined {
  try {
    return renderTemplate(template, sample);
  } catch {
    return undefined; // the sample lacks the variable: the hack does not apply to it
  }
}
