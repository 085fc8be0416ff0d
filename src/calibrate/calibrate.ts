/**
 * `calibrate`: a judge's verdicts against human labels, per criterion and overall — every metric
 * with a bootstrap interval, the bias-corrected pass rate, probability calibration when verdicts
 * carry probabilities, human agreement when there are several annotators, and the disagreements.
 */
import { RubricateError } from "../errors.js";
import { type AnnotatorAgreement, annotatorAgreement, majority } from "./agreement.js";
import { bootstrapMany } from "../stats/bootstrap.js";
import { type CorrectedPassRate, correctedPassRate } from "./corrected.js";
import type { HumanLabel, JudgeVerdict, VerdictSet } from "./inputs.js";
import { type Confusion, type LabelPair, METRICS, type MetricName, confusion } from "./metrics.js";
import {
  type ReliabilityBin,
  type ThresholdSuggestion,
  brierScore,
  expectedCalibrationError,
  prevalenceThreshold,
  reliabilityBins,
  youdenThreshold,
} from "./probability.js";

/** What `calibrate` takes. */
export interface CalibrateInput {
  labels: readonly HumanLabel[];
  /** One judge's verdicts; verdicts on samples without labels are used as the unlabelled set for the corrected pass rate. */
  verdicts: readonly JudgeVerdict[] | VerdictSet;
  /** The judge's name (default: the verdict set's, else "judge"). */
  judge?: string;
  /** What producing the verdicts cost (default: the verdict set's). */
  costUsd?: number;
  /** Bootstrap seed (default 0), resamples (default 1000), level (default 0.95). */
  seed?: number;
  resamples?: number;
  level?: number;
  /** Reliability bins for ECE (default 10). */
  bins?: number;
}

/** A metric's value with its interval, and why it is undefined when it is. */
export interface MetricWithCI {
  value: number | null;
  lo: number | null;
  hi: number | null;
  reason?: string;
}

/** A labelled item where the judge and the human reference disagree. */
export interface Disagreement {
  sampleId: string;
  criterion: string;
  human: boolean;
  judge: boolean;
  probability?: number;
  reasoning?: string;
}

/** Calibration metrics for verdicts with probabilities. */
export interface ProbabilityCalibration {
  /** Items with a probability. */
  n: number;
  ece: number | null;
  brier: number | null;
  bins: ReliabilityBin[];
  youden: ThresholdSuggestion | null;
  prevalenceMatch: ThresholdSuggestion | null;
}

/** Everything measured on one group of items (one criterion, or all pooled). */
export interface GroupCalibration {
  /** Paired items (a human reference and a met/unmet verdict). */
  n: number;
  /** Labelled items the judge gave no verdict for. */
  missingVerdicts: number;
  /** Labelled items the judge skipped (`when`) or could not answer. */
  skipped: number;
  errors: number;
  /** Labelled items left out because the annotators tied. */
  humanTies: number;
  confusion: Confusion;
  metrics: Record<MetricName, MetricWithCI>;
  corrected: CorrectedPassRate;
  probability?: ProbabilityCalibration;
  /** Present with two or more named annotators. */
  humanAgreement?: AnnotatorAgreement;
}

/** One criterion's calibration, with the disagreeing items for review. */
export interface CriterionCalibration extends GroupCalibration {
  criterion: string;
  disagreements: Disagreement[];
}

/** The result of `calibrate`: plain data, JSON-serialisable. */
export interface CalibrationResult {
  judge: string;
  costUsd?: number;
  seed: number;
  resamples: number;
  level: number;
  bins: number;
  criteria: CriterionCalibration[];
  overall: GroupCalibration;
  /** Verdicts on samples without labels (used as the unlabelled set of the corrected rate). */
  unlabelledVerdicts: number;
  warnings: string[];
}

interface Item extends LabelPair {
  sampleId: string;
  criterion: string;
  probability?: number;
  reasoning?: string;
}

interface Group {
  items: Item[];
  unlabelled: boolean[];
  missing: number;
  skipped: number;
  errors: number;
  ties: number;
  annotated: { id: string; labels: Record<string, boolean> }[];
}

const key = (sampleId: string, criterion: string) => `${sampleId}\u0000${criterion}`;
const emptyGroup = (): Group => ({ items: [], unlabelled: [], missing: 0, skipped: 0, errors: 0, ties: 0, annotated: [] });

function summarise(g: Group, opts: { seed: number; resamples: number; level: number; bins: number }): GroupCalibration {
  const boot = { seed: opts.seed, resamples: opts.resamples, level: opts.level };
  const stats = Object.fromEntries(METRICS.map((m) => [m.name, (s: readonly Item[]) => m.fn(confusion(s))])) as Record<MetricName, (s: readonly Item[]) => number | null>;
  const ci = bootstrapMany(g.items, stats, boot);
  const metrics = Object.fromEntries(
    METRICS.map((m) => {
      const { value, lo, hi } = ci[m.name];
      const out: MetricWithCI = { value, lo, hi };
      if (value === null) out.reason = m.undefinedWhen;
      return [m.name, out];
    }),
  ) as Record<MetricName, MetricWithCI>;
  const result: GroupCalibration = {
    n: g.items.length,
    missingVerdicts: g.missing,
    skipped: g.skipped,
    errors: g.errors,
    humanTies: g.ties,
    confusion: confusion(g.items),
    metrics,
    corrected: correctedPassRate({ labelled: g.items, unlabelled: g.unlabelled }, boot),
  };
  const withP = g.items.filter((i): i is Item & { probability: number } => i.probability !== undefined);
  if (withP.length > 0) {
    result.probability = {
      n: withP.length,
      ece: expectedCalibrationError(withP, opts.bins),
      brier: brierScore(withP),
      bins: reliabilityBins(withP, opts.bins),
      youden: youdenThreshold(withP),
      prevalenceMatch: prevalenceThreshold(withP),
    };
  }
  const named = new Set(g.annotated.flatMap((a) => Object.keys(a.labels)));
  if (named.size >= 2) result.humanAgreement = annotatorAgreement(g.annotated);
  return result;
}

/**
 * Calibrates one judge against human labels (joined on sample id + criterion id). Several
 * labels for one item are reduced to their majority (ties left out and counted).
 * @example
 * const result = calibrate({ labels: readLabels("labels.jsonl"), verdicts: readVerdicts("results.jsonl"), seed: 1 });
 * result.criteria[0].metrics.kappa // { value: 0.62, lo: 0.48, hi: 0.74 }
 */
export function calibrate(input: CalibrateInput): CalibrationResult {
  const set = Array.isArray(input.verdicts) ? undefined : (input.verdicts as VerdictSet);
  const verdicts: readonly JudgeVerdict[] = set ? set.verdicts : (input.verdicts as readonly JudgeVerdict[]);
  const opts = { seed: input.seed ?? 0, resamples: input.resamples ?? 1000, level: input.level ?? 0.95, bins: input.bins ?? 10 };

  const labelled = new Map<string, { sampleId: string; criterion: string; labels: HumanLabel[] }>();
  for (const l of input.labels) {
    const k = key(l.sampleId, l.criterion);
    const entry = labelled.get(k) ?? { sampleId: l.sampleId, criterion: l.criterion, labels: [] };
    if (l.annotator !== undefined && entry.labels.some((o) => o.annotator === l.annotator)) {
      throw new RubricateError("BAD_INPUT", `annotator "${l.annotator}" labelled sample ${l.sampleId}, criterion ${l.criterion} twice`);
    }
    entry.labels.push(l);
    labelled.set(k, entry);
  }
  const byKey = new Map<string, JudgeVerdict>();
  for (const v of verdicts) {
    const k = key(v.sampleId, v.criterion);
    if (byKey.has(k)) throw new RubricateError("BAD_INPUT", `two verdicts for sample ${v.sampleId}, criterion ${v.criterion}`);
    byKey.set(k, v);
  }

  const groups = new Map<string, Group>();
  const group = (c: string) => groups.get(c) ?? (groups.set(c, emptyGroup()), groups.get(c) as Group);
  for (const [k, entry] of labelled) {
    const g = group(entry.criterion);
    const named = entry.labels.filter((l) => l.annotator !== undefined);
    if (named.length) g.annotated.push({ id: k, labels: Object.fromEntries(named.map((l) => [l.annotator as string, l.label])) });
    const v = byKey.get(k);
    if (!v) {
      g.missing++;
      continue;
    }
    if (v.status === "skipped" || v.status === "error") {
      v.status === "skipped" ? g.skipped++ : g.errors++;
      continue;
    }
    const human = majority(entry.labels.map((l) => l.label));
    if (human === null) {
      g.ties++;
      continue;
    }
    const item: Item = { sampleId: entry.sampleId, criterion: entry.criterion, human, judge: v.status === "met" };
    if (v.probability !== undefined) item.probability = v.probability;
    if (v.reasoning !== undefined) item.reasoning = v.reasoning;
    g.items.push(item);
  }
  let unlabelledVerdicts = 0;
  for (const [k, v] of byKey) {
    if (labelled.has(k)) continue;
    unlabelledVerdicts++;
    if (v.status === "met" || v.status === "unmet") group(v.criterion).unlabelled.push(v.status === "met");
  }

  const criteria: CriterionCalibration[] = [...groups.keys()].sort().map((criterion) => {
    const g = groups.get(criterion) as Group;
    const disagreements: Disagreement[] = g.items
      .filter((i) => i.human !== i.judge)
      .map(({ sampleId, criterion: c, human, judge, probability, reasoning }) => ({ sampleId, criterion: c, human, judge, probability, reasoning }));
    return { criterion, ...summarise(g, opts), disagreements };
  });
  const all = [...groups.values()];
  const pooled: Group = {
    items: all.flatMap((g) => g.items),
    unlabelled: all.flatMap((g) => g.unlabelled),
    missing: all.reduce((s, g) => s + g.missing, 0),
    skipped: all.reduce((s, g) => s + g.skipped, 0),
    errors: all.reduce((s, g) => s + g.errors, 0),
    ties: all.reduce((s, g) => s + g.ties, 0),
    annotated: all.flatMap((g) => g.annotated),
  };
  const overall = summarise(pooled, opts);
  const warnings: string[] = [];
  for (const c of criteria) {
    if (c.n === 0) warnings.push(`${c.criterion}: no labelled item has a met/unmet verdict`);
    if (c.corrected.warning) warnings.push(`${c.criterion}: ${c.corrected.warning}`);
    if (c.errors + c.skipped + c.missingVerdicts > 0) {
      warnings.push(`${c.criterion}: ${c.errors} errors, ${c.skipped} skipped, ${c.missingVerdicts} without a verdict — left out of the metrics`);
    }
  }
  const costUsd = input.costUsd ?? set?.costUsd;
  return {
    judge: input.judge ?? set?.judge ?? "judge",
    ...(costUsd !== undefined ? { costUsd } : {}),
    ...opts,
    criteria,
    overall,
    unlabelledVerdicts,
    warnings,
  };
}
