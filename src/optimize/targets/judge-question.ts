import pLimit from "p-limit";
import { majority } from "../../calibrate/agreement.js";
import { labelledSamples } from "../../calibrate/judge.js";
import type { HumanLabel } from "../../calibrate/inputs.js";
import { scoreSample } from "../../score/score.js";
import { RubricateError, type ErrorCode } from "../../errors.js";
import type { Judge } from "../../judge/types.js";
import type { Rubric } from "../../rubric/schema.js";
import type { Sample } from "../../types.js";
import type { Candidate, Evaluate, ReflectiveRecord } from "../types.js";
import { questionProblems, questionReflectionPrompt, sampleText, type LabelledItem } from "./question-text.js";

export type { LabelledItem } from "./question-text.js";
import type { ReflectionPrompt } from "./reflect.js";
import { shuffled } from "./split.js";

/** Options of `judgeQuestionTarget`. */
export interface JudgeQuestionOptions {
  rubric: Rubric;
  /** Human labels carrying their samples (`readLabels`); several per item are reduced to their majority, ties dropped. */
  labels: readonly HumanLabel[];
  /** The judge whose agreement with the labels is optimised. */
  judge: Judge;
  /** The criteria whose questions evolve, one component each (default: every LLM criterion with labels). */
  criteria?: string[];
  /** Share of each label class kept for validation, per criterion (default 0.5); the valset has as many YES as NO items. */
  valFraction?: number;
  /** Seed of the split (default 0). */
  splitSeed?: number;
  /** Items judged at once (default 8); the judge's scheduler limits the calls themselves. */
  concurrency?: number;
  /** Score 1 − |P(yes) − label| when the judge gives a probability (default true), else 1 for agreement. */
  useProbability?: boolean;
}

/** Everything `optimize` needs to evolve judge questions against human labels, plus a reflection prompt. */
export interface JudgeQuestionTarget {
  seed: Candidate;
  evaluate: Evaluate<LabelledItem>;
  trainset: LabelledItem[];
  valset: LabelledItem[];
  instanceText: (item: LabelledItem) => string;
  makeReflectiveDataset: NonNullable<import("../types.js").OptimizeOptions<LabelledItem>["makeReflectiveDataset"]>;
  reflectionPrompt: ReflectionPrompt<LabelledItem>;
  validateProposal: (text: string, component: string, candidate: Candidate) => string | undefined;
  /** The rubric with a candidate's questions in place of the seed's. */
  rubricWith(candidate: Candidate): Rubric;
  /** Notes about the data (unbalanced classes, ties dropped, a trainset reused as valset). */
  warnings: string[];
}

const yesNo = (b: boolean) => (b ? "YES" : "NO");

/**
 * Target (b): the wording of rubric questions, scored by agreement with human labels. One
 * component per criterion (its question text); an instance is a labelled item, judged with a
 * one-criterion copy of the rubric holding the candidate's question (the judge cache keys on the
 * prompt text, so a revisited wording costs nothing). Feedback names each disagreement:
 * "humans: YES, judge: NO — <the judge's reasoning>". A judge error fails the evaluation.
 * @example
 * const target = judgeQuestionTarget({ rubric, labels: readLabels("labels.jsonl"), judge, criteria: ["cites-source"] });
 * const reflector = createReflector("judges/reflector.yaml", { engine: judge.engine, prompt: target.reflectionPrompt });
 * const result = await optimize({ ...target, reflect: reflector.reflect, budget: 200 });
 */
export function judgeQuestionTarget(options: JudgeQuestionOptions): JudgeQuestionTarget {
  const { rubric, judge } = options;
  const byId = new Map(rubric.criteria.map((c) => [c.id, c]));
  const labelledIds = [...new Set(options.labels.map((l) => l.criterion))];
  const ids = options.criteria ?? labelledIds.filter((id) => byId.get(id)?.question !== undefined);
  if (ids.length === 0) throw new RubricateError("BAD_INPUT", `no criterion to optimise: none of the labelled criteria (${labelledIds.join(", ") || "none"}) is an LLM question of rubric ${rubric.id}`);
  for (const id of ids) {
    const c = byId.get(id);
    if (!c) throw new RubricateError("BAD_INPUT", `rubric ${rubric.id} has no criterion "${id}" (it has ${[...byId.keys()].join(", ")})`);
    if (c.question === undefined) throw new RubricateError("BAD_INPUT", `criterion "${id}" is a code check, not a question; only questions can be reworded`);
  }
  const warnings: string[] = [];
  const items = labelledItems(options.labels, ids, warnings);
  const { trainset, valset } = balancedSplit(items, ids, options.valFraction ?? 0.5, options.splitSeed ?? 0, warnings);
  const seed: Candidate = Object.fromEntries(ids.map((id) => [id, byId.get(id)!.question!]));

  const rubricFor = (criterion: string, question: string): Rubric => {
    const c = byId.get(criterion)!;
    // One criterion alone: no `when` to satisfy, no gate, positive points, so only its verdict matters.
    return { ...rubric, criteria: [{ ...c, question, when: undefined, required: false, points: 1 }] };
  };
  const limit = pLimit(options.concurrency ?? 8);
  const useProbability = options.useProbability ?? true;

  const evaluate: Evaluate<LabelledItem> = async (candidate, batch, { captureTraces, signal }) => {
    const results = await Promise.all(
      batch.map((item) =>
        limit(async () => {
          const res = await scoreSample(rubricFor(item.criterion, candidate[item.criterion]), { ...item.sample, id: item.sampleId }, { judge, signal });
          const v = res.verdicts[0];
          if (!v || v.status === "error" || v.status === "skipped") {
            const err = v?.error ?? res.errors[0] ?? { code: "INTERNAL", message: res.feedback };
            throw new RubricateError(err.code as ErrorCode, `item ${item.id}: the judge gave no verdict (${err.message}); GEPA stops rather than count a failure as disagreement`);
          }
          const met = v.status === "met";
          const p = v.probability;
          const score = useProbability && p !== undefined ? 1 - Math.abs(p - (item.label ? 1 : 0)) : met === item.label ? 1 : 0;
          const answer = `${yesNo(met)}${p !== undefined && p > 0 && p < 1 ? ` (P(yes) ${p.toFixed(2)})` : ""}${v.reasoning ? ` — ${v.reasoning}` : ""}`;
          const feedback = met === item.label ? `agrees with the experts: humans ${yesNo(item.label)}, judge ${yesNo(met)}` : `humans: ${yesNo(item.label)}, judge: ${answer}`;
          return { score, feedback, trace: `judge: ${answer}` };
        }),
      ),
    );
    return { scores: results.map((r) => r.score), feedback: results.map((r) => r.feedback), ...(captureTraces ? { traces: results.map((r) => r.trace) } : {}) };
  };

  const makeReflectiveDataset: JudgeQuestionTarget["makeReflectiveDataset"] = ({ component, instances, result }) => {
    const all = instances.map((input, n): ReflectiveRecord<LabelledItem> => ({ input, output: result.traces?.[n], score: result.scores[n], feedback: result.feedback?.[n] ?? "" }));
    // Only this question's items: rewording question A from labels meant for question B is always rejected.
    return all.filter((r) => r.input.criterion === component);
  };

  const validateProposal = (text: string, component: string, candidate: Candidate): string | undefined => {
    const problems = questionProblems(text, { inputs: rubric.inputs, previous: candidate[component], points: byId.get(component)?.points });
    return problems.length > 0 ? problems.join("; ") : undefined;
  };

  return {
    seed,
    evaluate,
    trainset,
    valset,
    instanceText: (item) => sampleText(item.sample, rubric.inputs),
    makeReflectiveDataset,
    reflectionPrompt: ({ candidate, component, reflectiveDataset }) => questionReflectionPrompt(candidate[component], reflectiveDataset, rubric),
    validateProposal,
    rubricWith: (candidate) => ({ ...rubric, criteria: rubric.criteria.map((c) => (candidate[c.id] !== undefined && c.question !== undefined ? { ...c, question: candidate[c.id] } : c)) }),
    warnings,
  };
}

/** Labelled items of the chosen criteria: one per (sample, criterion), the majority label, ties dropped. */
function labelledItems(labels: readonly HumanLabel[], ids: string[], warnings: string[]): LabelledItem[] {
  const wanted = new Set(ids);
  const chosen = labels.filter((l) => wanted.has(l.criterion));
  const samples = new Map(labelledSamples(chosen).map((s) => [String(s.id), s]));
  const groups = new Map<string, HumanLabel[]>();
  for (const l of chosen) groups.set(`${l.sampleId}/${l.criterion}`, [...(groups.get(`${l.sampleId}/${l.criterion}`) ?? []), l]);
  const items: LabelledItem[] = [];
  let ties = 0;
  for (const [id, group] of groups) {
    const label = majority(group.map((l) => l.label));
    if (label === null) {
      ties++;
      continue;
    }
    const sample = { ...samples.get(group[0].sampleId)! };
    delete sample.id;
    items.push({ id, sampleId: group[0].sampleId, criterion: group[0].criterion, label, sample });
  }
  if (ties > 0) warnings.push(`${ties} item(s) left out: their annotators are split evenly`);
  return items;
}

/** Per criterion: the valset takes the same number of YES and NO items; the rest train. */
function balancedSplit(items: LabelledItem[], ids: string[], fraction: number, seed: number, warnings: string[]): { trainset: LabelledItem[]; valset: LabelledItem[] } {
  if (!(fraction > 0 && fraction < 1)) throw new RubricateError("BAD_INPUT", `the validation fraction must be in (0, 1), got ${fraction}`);
  const trainset: LabelledItem[] = [];
  const valset: LabelledItem[] = [];
  for (const id of ids) {
    const mine = shuffled(items.filter((i) => i.criterion === id), seed);
    const yes = mine.filter((i) => i.label);
    const no = mine.filter((i) => !i.label);
    if (mine.length === 0) throw new RubricateError("BAD_INPUT", `criterion "${id}" has no labelled items`);
    const fewer = Math.min(yes.length, no.length);
    if (fewer === 0) {
      warnings.push(`criterion "${id}": every label is ${yes.length > 0 ? "YES" : "NO"}; the valset cannot be balanced, and a question that always says ${yes.length > 0 ? "yes" : "no"} scores perfectly`);
      const k = Math.max(1, Math.round(mine.length * fraction));
      valset.push(...mine.slice(0, k));
      trainset.push(...mine.slice(k));
      continue;
    }
    const k = fewer === 1 ? 1 : Math.max(1, Math.round(fewer * fraction));
    valset.push(...yes.slice(0, k), ...no.slice(0, k));
    trainset.push(...yes.slice(k), ...no.slice(k));
  }
  if (trainset.length === 0) {
    warnings.push("too few labelled items to hold some out: the trainset is the valset (the final score is optimistic)");
    return { trainset: [...valset], valset };
  }
  return { trainset: shuffled(trainset, seed + 1), valset };
}
