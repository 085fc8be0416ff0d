/**
 * `rubricate draft`: a model drafts a rubric from an expert's notes, reference answer and labelled
 * responses. The draft is converted to our format (points from importance), validated with
 * `parseRubric` and linted; a bad draft goes back to the model once with every problem, then is
 * rejected with a clear message. The expert edits what comes out.
 */
import { stringify } from "yaml";
import * as z from "zod";
import { isRubricateError, RubricateError } from "../errors.js";
import type { ChatMessage, Provider } from "../providers/types.js";
import { addUsage, emptyUsage, type Usage } from "../types.js";
import { DRAFT_SYSTEM_PROMPT, draftUserPrompt, IMPORTANCE_POINTS, labelledResponses, repairPrompt, type DraftInput, type Importance } from "./prompt.js";
import { lintRubric, type LintFinding, type LintRule } from "../rubric/lint.js";
import { parseRubric } from "../rubric/load.js";
import { IdSchema, type Rubric } from "../rubric/schema.js";
import { parseYamlSource } from "../config/yaml-source.js";
import { issueLines } from "../config/issues.js";

export { IMPORTANCE_POINTS, type DraftInput, type DraftResponse, type Importance } from "./prompt.js";

/** Options of `draftRubric`. */
export interface DraftOptions {
  provider: Provider;
  model: string;
  temperature?: number;
  maxTokens?: number;
  /** Times a bad draft is sent back with its problems before it is rejected (default 1). */
  repairs?: number;
  /** "clean" (default): question warnings block a draft too; "errors": only lint errors do. */
  accept?: "clean" | "errors";
  /** The `$schema` path written in the header (default ../schema/rubric.schema.json). */
  schemaPath?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A draft that passed: its YAML text, the parsed rubric, the remaining (non-blocking) findings. */
export interface DraftResult {
  yaml: string;
  rubric: Rubric;
  findings: LintFinding[];
  /** Model calls made (1, or 2 after a repair). */
  attempts: number;
  usage: Usage;
}

/** The rules a drafted question must pass (their warnings block under `accept: "clean"`). */
export const BLOCKING_RULES: ReadonlySet<LintRule> = new Set(["not-yes-no", "multiple-asks", "vague-word", "double-negative", "pitfall-polarity", "reward-polarity", "near-duplicate", "conditional-question"]);

const AnswerSchema = z.union([z.boolean(), z.object({ answer: z.boolean(), reason: z.string().optional() })]);
/** One drafted criterion as the model writes it (importance, not points). */
export const DraftCriterionSchema = z.object({
  id: IdSchema,
  question: z.string().min(1),
  importance: z.enum(Object.keys(IMPORTANCE_POINTS) as [Importance, ...Importance[]]),
  required: z.boolean().optional(),
  when: IdSchema.optional(),
  answers: z.record(z.string(), AnswerSchema).optional(),
});
const DraftSchema = z.object({ id: IdSchema.optional(), description: z.string().optional(), criteria: z.array(DraftCriterionSchema).min(1) });
type DraftFile = z.infer<typeof DraftSchema>;

/**
 * Drafts a rubric with a model; repairs once, then rejects (`RubricateError` SCHEMA listing every problem).
 * @example
 * const { yaml } = await draftRubric({ task: "Explain a lab result", notes: "Must say when to see a doctor" }, { provider, model: "gpt-4.1" });
 */
export async function draftRubric(input: DraftInput, options: DraftOptions): Promise<DraftResult> {
  const repairs = options.repairs ?? 1;
  const usage = emptyUsage();
  const messages: ChatMessage[] = [{ role: "user", content: draftUserPrompt(input) }];
  let problems: string[] = [];
  for (let attempt = 1; attempt <= repairs + 1; attempt++) {
    const response = await options.provider.complete(
      { model: options.model, system: DRAFT_SYSTEM_PROMPT, messages, temperature: options.temperature ?? 0.2, maxTokens: options.maxTokens ?? 4096 },
      { signal: options.signal, timeoutMs: options.timeoutMs },
    );
    addUsage(usage, { calls: 1, inputTokens: response.usage.inputTokens, outputTokens: response.usage.outputTokens, cachedInputTokens: response.usage.cachedInputTokens });
    const outcome = response.refusal ? { problems: [`the model refused: ${response.refusal}`] } : evaluateDraft(response.text, input, options);
    if ("yaml" in outcome) return { ...outcome, attempts: attempt, usage };
    problems = outcome.problems;
    messages.push({ role: "assistant", content: response.text }, { role: "user", content: repairPrompt(problems) });
  }
  throw new RubricateError("SCHEMA", `the drafted rubric was rejected after ${repairs} repair attempt${repairs === 1 ? "" : "s"}:\n  - ${problems.join("\n  - ")}`, {
    issues: problems.map((message) => ({ message })),
  });
}

/**
 * Checks one model answer: YAML, draft shape, our schema (via `parseRubric`), then the linter.
 * @example evaluateDraft(modelText, input, {}) // { yaml, rubric, findings } or { problems: [...] }
 */
export function evaluateDraft(text: string, input: DraftInput, options: Partial<Pick<DraftOptions, "accept" | "schemaPath" | "model">> = {}): Omit<DraftResult, "attempts" | "usage"> | { problems: string[] } {
  let data: unknown;
  try {
    data = parseYamlSource(unfence(text), { filename: "draft" }).data;
  } catch (e) {
    return { problems: [`the answer is not valid YAML: ${isRubricateError(e) ? e.message : String(e)}`] };
  }
  const parsed = DraftSchema.safeParse(data);
  if (!parsed.success) return { problems: issueLines(parsed.error, { root: "the document" }) };
  const built = toRubricFile(parsed.data, input);
  if ("problems" in built) return built;
  const yaml = renderYaml(built.file, input, options);
  let rubric: Rubric;
  try {
    rubric = parseRubric(yaml, { filename: "draft.yaml" });
  } catch (e) {
    if (!isRubricateError(e)) throw e;
    return { problems: (e.issues ?? [{ message: e.message }]).map((i) => i.message) };
  }
  const findings = lintRubric(rubric);
  const blocking = findings.filter((f) => f.severity === "error" || (options.accept !== "errors" && f.severity === "warning" && BLOCKING_RULES.has(f.rule)));
  if (blocking.length > 0) return { problems: blocking.map((f) => `criterion "${f.criterion}": ${f.message}. Fix: ${f.suggestion}`) };
  return { yaml, rubric, findings };
}

function toRubricFile(draft: DraftFile, input: DraftInput): { file: Record<string, unknown> } | { problems: string[] } {
  const responses = new Map(labelledResponses(input));
  const problems: string[] = [];
  const criteria = draft.criteria.map((c) => {
    const examples = Object.entries(c.answers ?? {}).flatMap(([label, value]) => {
      const source = responses.get(label);
      if (!source) {
        // With no labelled responses at all there is nothing to attach; a stray answer is dropped.
        if (responses.size === 0) return [];
        problems.push(`criterion "${c.id}": answers names "${label}", which is not one of the labelled responses (${[...responses.keys()].join(", ") || "none were given"})`);
        return [];
      }
      const { answer, reason } = typeof value === "boolean" ? { answer: value, reason: undefined } : value;
      return [{ response: source.response, answer, ...(reason ? { reason } : {}) }];
    });
    if (c.required && c.importance !== "essential") problems.push(`criterion "${c.id}": only an essential criterion may be required (it is ${c.importance})`);
    return {
      id: c.id,
      question: c.question.trim(),
      points: IMPORTANCE_POINTS[c.importance],
      ...(c.required ? { required: true } : {}),
      ...(c.when ? { when: c.when } : {}),
      tags: [c.importance],
      ...(examples.length > 0 ? { examples } : {}),
    };
  });
  if (problems.length > 0) return { problems };
  const file = {
    id: input.id ?? draft.id ?? "drafted-rubric",
    version: 1,
    description: input.description ?? draft.description,
    inputs: input.inputs ?? ["prompt", "response"],
    scoring: { method: "points", pass_threshold: input.passThreshold ?? 0.7 },
    criteria,
  };
  if (file.description === undefined) delete (file as { description?: string }).description;
  return { file };
}

function renderYaml(file: Record<string, unknown>, input: DraftInput, options: Partial<Pick<DraftOptions, "schemaPath" | "model">>): string {
  const from = [input.notes && "notes", input.reference && "a reference answer", input.good?.length && `${input.good.length} good response(s)`, input.bad?.length && `${input.bad.length} bad response(s)`].filter(Boolean).join(", ");
  const header = [
    `# yaml-language-server: $schema=${options.schemaPath ?? "../schema/rubric.schema.json"}`,
    "#",
    `# Drafted with \`rubricate draft\`${options.model ? ` by ${options.model}` : ""} from ${from || "a task description"}.`,
    "# Sources: <the expert's sources>. Scope: <what this rubric grades, and what it does not>.",
    "# Points from importance (Rubrics as Rewards): essential 5, important 3, optional 1, pitfall -3,",
    "# severe pitfall -5, condition 0. Review every question and example, then calibrate against human labels",
    "# (docs/writing-rubrics.md) before trusting the scores.",
  ].join("\n");
  return `${header}\n${stringify(file, { lineWidth: 0 })}`;
}

/** The YAML inside a reply that wraps it in a code fence, else the reply itself. */
export function unfence(text: string): string {
  const fenced = /```(?:ya?ml)?[ \t]*\n([\s\S]*?)```/.exec(text);
  return (fenced ? fenced[1] : text).trim();
}
