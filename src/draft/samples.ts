/**
 * `rubricate draft --per-sample`: an instance rubric per dataset row (HealthBench-style). Each
 * row gets its own drafted criteria in a `criteria` field, which the scorer merges with the base
 * rubric's (see src/score/score.ts).
 */
import type { Criterion } from "../rubric/schema.js";
import { draftRubric, type DraftOptions, type DraftResult } from "./draft.js";
import type { DraftInput, DraftResponse } from "./prompt.js";

/** Which row fields hold the prompt, reference and notes (first present wins). */
export interface SampleFields {
  prompt?: string[];
  reference?: string[];
  notes?: string[];
}

const DEFAULT_FIELDS: Required<SampleFields> = {
  prompt: ["prompt", "question", "input", "instruction"],
  reference: ["reference", "reference_answer", "ideal", "answer"],
  notes: ["notes", "rubric_notes"],
};

/** The draft input one row stands for; `good`/`bad` arrays on the row become labelled responses. */
export function sampleDraftInput(row: Record<string, unknown>, fields: SampleFields = {}, base: Partial<DraftInput> = {}): DraftInput {
  const pick = (names: string[]) => names.map((n) => row[n]).find((v): v is string => typeof v === "string" && v.trim() !== "");
  const responses = (v: unknown): DraftResponse[] | undefined =>
    Array.isArray(v) ? v.map((r) => (typeof r === "string" ? { response: r } : (r as DraftResponse))).filter((r) => typeof r?.response === "string") : undefined;
  return {
    ...base,
    task: pick(fields.prompt ?? DEFAULT_FIELDS.prompt),
    reference: pick(fields.reference ?? DEFAULT_FIELDS.reference),
    notes: [base.notes, pick(fields.notes ?? DEFAULT_FIELDS.notes)].filter(Boolean).join("\n\n") || undefined,
    good: responses(row.good),
    bad: responses(row.bad),
  };
}

/** One row's drafted criteria, ids made unique against `reservedIds` (the base rubric's), plus the draft details. */
export interface SampleDraft {
  criteria: Criterion[];
  draft: DraftResult;
}

/**
 * Drafts the instance criteria for one row.
 * @example const { criteria } = await draftSampleCriteria(row, { provider, model, reservedIds: base.criteria.map((c) => c.id) })
 */
export async function draftSampleCriteria(
  row: Record<string, unknown>,
  options: DraftOptions & { fields?: SampleFields; reservedIds?: Iterable<string>; base?: Partial<DraftInput> },
): Promise<SampleDraft> {
  const input = sampleDraftInput(row, options.fields, { inputs: ["prompt", "response"], ...options.base });
  const draft = await draftRubric(input, options);
  const criteria = uniqueCriterionIds(draft.rubric.criteria, options.reservedIds ?? []);
  return { criteria, draft };
}

/**
 * Criteria renamed where an id is already taken (`id-2`, `id-3`, …), their `when` references
 * following the renames: a task's criteria are merged with the rubric's, and ids must not clash.
 * @example uniqueCriterionIds(drafted, rubric.criteria.map((c) => c.id))
 */
export function uniqueCriterionIds(drafted: readonly Criterion[], reservedIds: Iterable<string>): Criterion[] {
  const taken = new Set(reservedIds);
  const renamed = new Map<string, string>();
  const criteria = drafted.map((c) => {
    let id = c.id;
    for (let n = 2; taken.has(id); n++) id = `${c.id}-${n}`;
    taken.add(id);
    if (id !== c.id) renamed.set(c.id, id);
    return { ...c, id };
  });
  for (const c of criteria) if (c.when !== undefined && renamed.has(c.when)) c.when = renamed.get(c.when);
  return criteria;
}
