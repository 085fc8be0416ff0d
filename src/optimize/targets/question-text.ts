import { lintQuestion } from "../../rubric/lint.js";
import type { Rubric } from "../../rubric/schema.js";
import { templateVariables } from "../../text/template.js";
import { formatReflectiveDataset } from "../reflection.js";
import type { ReflectiveRecord } from "../types.js";
import type { Sample } from "../../types.js";

/** One labelled item: a sample, a criterion and the experts' (majority) answer to it. */
export interface LabelledItem {
  /** `<sample id>/<criterion id>`. */
  id: string;
  sampleId: string;
  criterion: string;
  label: boolean;
  sample: Sample;
}

const MAX_FIELD_CHARS = 2_000;
const MAX_QUESTION_CHARS = 500;

const asText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v, null, 2) ?? String(v));
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… [${s.length - n} more characters]` : s);

/** A sample as the reflection model sees it: one `### name` section per rubric input, long fields clipped. */
export function sampleText(sample: Record<string, unknown>, inputs: readonly string[]): string {
  return inputs.map((name) => `### ${name}\n${clip(asText(sample[name] ?? ""), MAX_FIELD_CHARS)}`).join("\n\n");
}

/**
 * What is wrong with a proposed judge question, if anything: not one line, not exactly one
 * question ending in "?", too long, a {{variable}} the rubric's samples do not provide, a lint
 * error (`lintQuestion`), or a lint warning the previous wording did not already have (a
 * rewrite may keep a known weakness but not add one, e.g. a new vague word).
 * @example questionProblems("Is the answer good?", { inputs: ["response"] }) // ['vague-word: …']
 */
export function questionProblems(text: string, context: { inputs: readonly string[]; previous?: string; points?: number }): string[] {
  const problems: string[] = [];
  const q = text.trim();
  if (/\n/.test(q)) problems.push("a question is one line");
  if (!q.endsWith("?")) problems.push('a question ends with "?"');
  if ((q.match(/\?/g) ?? []).length > 1) problems.push("one question, not several");
  if (q.length > MAX_QUESTION_CHARS) problems.push(`at most ${MAX_QUESTION_CHARS} characters (got ${q.length})`);
  const unknown = templateVariables(q).filter((v) => !context.inputs.includes(v.split(".")[0]));
  if (unknown.length > 0) problems.push(`${unknown.map((v) => `{{${v}}}`).join(", ")} is not a rubric input (${context.inputs.join(", ")})`);
  const lint = (question: string) => lintQuestion(question, { points: context.points ?? 1 });
  // The same rule with the same message (e.g. the same vague word) was there already; another one is new.
  const before = new Set(context.previous === undefined ? [] : lint(context.previous).map((f) => `${f.rule}: ${f.message}`));
  for (const f of lint(q)) {
    const what = `${f.rule}: ${f.message}`;
    if (f.severity === "error" || (f.severity === "warning" && !before.has(what))) problems.push(what);
  }
  return problems;
}

/** The reflection prompt of target (b): the current question, labelled samples with the judge's answers, the rules of a good question. */
export function questionReflectionPrompt(current: string, records: readonly ReflectiveRecord<LabelledItem>[], rubric: Pick<Rubric, "id" | "description" | "inputs">): string {
  const shown = records.map((r) => ({ ...r, input: `${sampleText(r.input.sample, rubric.inputs)}\n\n### Expert label\n${r.input.label ? "YES" : "NO"}` }));
  return [
    "An LLM judge answers the yes/no question below about samples (rubric " + `${rubric.id}${rubric.description ? ` — ${rubric.description}` : ""}).`,
    "Experts labelled each sample YES or NO for this question. The goal is a wording the judge answers the way the experts did.",
    "```",
    current,
    "```",
    "",
    "Here is how the judge answered on labelled samples: each example shows the sample with its expert label, the judge's answer and reasoning, the score (1 = agreement) and feedback.",
    "",
    formatReflectiveDataset(shown),
    "",
    "Rewrite this yes/no judge question so a judge agrees with the expert labels. Work out what the experts count as YES and as NO that the current wording leaves open, and say it precisely.",
    "Keep it binary (answerable with yes or no), one ask (do not join two checks with and/or), the same intent, and no vague words (good, appropriate, adequate, clear, relevant, helpful, reasonable, properly, sufficient).",
    `The question may refer to the sample's fields by name${rubric.inputs.length ? ` (${rubric.inputs.join(", ")})` : ""}. Do not quote or name the examples.`,
    "",
    "Give the new question alone, on one line, inside one ``` block, and nothing after it.",
  ].join("\n");
}
