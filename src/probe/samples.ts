/** Sample rows built from a rubric's own `inputs` and criterion `examples`, for probing without a dataset. */
import { canonicalJson } from "../text/canonical-json.js";
import type { Rubric } from "../rubric/schema.js";
import type { Sample } from "../types.js";

/**
 * One sample per distinct set of example `inputs` (the response taken from a "yes" example when
 * there is one); inputs no example provides get a placeholder naming the input. Never empty.
 * @example samplesFromExamples(loadRubricSync("rubrics/math-answer.yaml"))[0].problem
 */
export function samplesFromExamples(rubric: Rubric): Sample[] {
  const responseField = rubric.response_field ?? "response";
  const byInputs = new Map<string, { inputs: Record<string, string>; yes?: string; any?: string }>();
  for (const criterion of rubric.criteria) {
    for (const ex of criterion.examples ?? []) {
      const inputs = ex.inputs ?? {};
      const key = canonicalJson(inputs);
      const entry = byInputs.get(key) ?? { inputs };
      if (ex.answer && criterion.points > 0) entry.yes ??= ex.response;
      entry.any ??= ex.response;
      byInputs.set(key, entry);
    }
  }
  // Examples without inputs only make sense alongside a task; keep them only when nothing else exists.
  const withInputs = [...byInputs.values()].filter((e) => Object.keys(e.inputs).length > 0);
  const entries = withInputs.length ? withInputs : [...byInputs.values()].slice(0, 1);
  if (entries.length === 0) entries.push({ inputs: {} });
  return entries.map((e, i) => {
    const sample: Sample = { id: `${rubric.id}-${i + 1}` };
    for (const name of rubric.inputs) sample[name] = e.inputs[name] ?? (name === responseField ? (e.yes ?? e.any ?? "") : `(placeholder ${name} for ${rubric.id})`);
    return sample;
  });
}
