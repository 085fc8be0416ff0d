/**
 * Model families, for the self-preference warning: judges favour their own family's outputs
 * (MT-Bench's self-enhancement bias; later work finds they recognise their own text), so a judge
 * of the same family as the policy it grades, or the teacher whose rollouts it filters, is a
 * measurement risk worth saying out loud.
 */
import { providerSpec } from "../providers/registry.js";

const FAMILIES: [family: string, pattern: RegExp][] = [
  ["OpenAI", /\b(gpt|chatgpt|davinci|o[1-9](-mini|-pro)?)\b|openai/i],
  ["Anthropic", /claude|anthropic/i],
  ["Google", /gemini|gemma|palm|bison/i],
  ["Meta", /llama/i],
  ["Qwen", /qwen|qwq/i],
  ["Mistral", /mistral|mixtral|ministral|codestral|magistral|pixtral/i],
  ["DeepSeek", /deepseek/i],
  ["xAI", /grok/i],
  ["Microsoft", /\bphi-?\d/i],
  ["Cohere", /command-r|cohere|\baya\b/i],
];

/**
 * The family of a model from its name (and, for first-party APIs, its provider); undefined when
 * it cannot tell (a local model with an opaque name).
 * @example modelFamily("Qwen/Qwen2.5-7B-Instruct") // "Qwen"
 * @example modelFamily("gpt-4.1-mini", "openai") // "OpenAI"
 */
export function modelFamily(model: string, provider?: string): string | undefined {
  const name = model.replace(/@https?:\/\/.*$/, "");
  for (const [family, pattern] of FAMILIES) if (pattern.test(name)) return family;
  return provider === undefined ? undefined : providerSpec(provider)?.family;
}

/**
 * `sameFamilyWarning` for a judge that may be a panel: a panel warns when most of its members
 * (who decide the verdicts) share the graded model's family.
 */
export function judgeFamilyWarning(judge: { config: ModelRef; members?: readonly { config: ModelRef }[] }, graded: ModelRef, role: "policy" | "teacher" | "trainee"): string | undefined {
  if (!judge.members) return sameFamilyWarning(judge.config, graded, role);
  const same = judge.members.filter((m) => sameFamilyWarning(m.config, graded, role) !== undefined);
  if (same.length * 2 <= judge.members.length) return undefined;
  return `${same.length} of the ${judge.members.length} panel judges (${same.map((m) => m.config.model).join(", ")}) are of the ${role}'s family (${graded.model}): judges tend to favour their own family's outputs; mix families so no family holds the majority`;
}

/** A model as the warning needs it. */
export interface ModelRef {
  model: string;
  provider?: string;
}

/**
 * The warning to print when the judge belongs to the same family as the model whose outputs it
 * grades (the policy in eval and optimize, the teacher in distill, the trainee behind serve);
 * undefined when the families differ or one is unknown.
 * @example sameFamilyWarning({ model: "gpt-4.1-mini", provider: "openai" }, { model: "gpt-4.1", provider: "openai" }, "policy")
 */
export function sameFamilyWarning(judge: ModelRef, graded: ModelRef, role: "policy" | "teacher" | "trainee"): string | undefined {
  const a = modelFamily(judge.model, judge.provider);
  const b = modelFamily(graded.model, graded.provider);
  if (a === undefined || a !== b) return undefined;
  return (
    `the judge (${judge.model}) and the ${role} (${graded.model}) are both ${a} models: judges tend to favour their own family's outputs, ` +
    `so rewards may be inflated; prefer a judge from another family, or a panel, and check it with \`rubricate calibrate\``
  );
}
