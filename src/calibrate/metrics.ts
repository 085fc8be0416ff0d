/**
 * Agreement metrics between a judge's binary verdicts and human labels. "Positive" is a met
 * criterion (the answer "yes"); the human label is the reference. Every metric is a function of
 * the confusion counts and returns `null` where it is undefined (a zero denominator), never NaN.
 */

/** Confusion counts: tp = human yes & judge yes, fp = human no & judge yes, tn, fn likewise. */
export interface Confusion {
  tp: number;
  fp: number;
  tn: number;
  fn: number;
}

/** A human label beside a judge verdict for one item. */
export interface LabelPair {
  human: boolean;
  judge: boolean;
}

/**
 * Counts the confusion matrix of paired labels.
 * @example confusion([{ human: true, judge: true }, { human: false, judge: true }]) // { tp: 1, fp: 1, tn: 0, fn: 0 }
 */
export function confusion(pairs: Iterable<LabelPair>): Confusion {
  const c: Confusion = { tp: 0, fp: 0, tn: 0, fn: 0 };
  for (const { human, judge } of pairs) {
    if (human) judge ? c.tp++ : c.fn++;
    else judge ? c.fp++ : c.tn++;
  }
  return c;
}

/** Confusion counts from two parallel arrays (human labels, judge verdicts), as scikit-learn's `confusion_matrix(y_true, y_pred)`. */
export function confusionFrom(human: boolean[], judge: boolean[]): Confusion {
  if (human.length !== judge.length) throw new RangeError(`length mismatch: ${human.length} labels, ${judge.length} verdicts`);
  return confusion(human.map((h, i) => ({ human: h, judge: judge[i] })));
}

const ratio = (num: number, den: number): number | null => (den > 0 ? num / den : null);

/** Number of paired items. */
export const count = (c: Confusion): number => c.tp + c.fp + c.tn + c.fn;

/** Accuracy: share of items where judge and human agree; null with no items. */
export const accuracy = (c: Confusion): number | null => ratio(c.tp + c.tn, count(c));

/** Expected chance agreement of Cohen's kappa, from each rater's own marginal rates; null with no items. */
export function expectedAgreement(c: Confusion): number | null {
  const n = count(c);
  if (n === 0) return null;
  const humanYes = (c.tp + c.fn) / n;
  const judgeYes = (c.tp + c.fp) / n;
  return humanYes * judgeYes + (1 - humanYes) * (1 - judgeYes);
}

/**
 * Cohen's kappa (po − pe) / (1 − pe); null when there are no items or pe = 1 (both raters used one and the same class).
 * @example cohensKappa({ tp: 20, fp: 5, tn: 15, fn: 10 }) // 0.4
 */
export function cohensKappa(c: Confusion): number | null {
  const po = accuracy(c);
  const pe = expectedAgreement(c);
  if (po === null || pe === null || Math.abs(1 - pe) < 1e-12) return null;
  return (po - pe) / (1 - pe);
}

/** True positive rate (sensitivity, recall of "yes"): tp / (tp + fn); null with no human yes. */
export const tpr = (c: Confusion): number | null => ratio(c.tp, c.tp + c.fn);

/** True negative rate (specificity, recall of "no"): tn / (tn + fp); null with no human no. */
export const tnr = (c: Confusion): number | null => ratio(c.tn, c.tn + c.fp);

/** Precision of "yes": tp / (tp + fp); null when the judge never said yes. */
export const precision = (c: Confusion): number | null => ratio(c.tp, c.tp + c.fp);

/** Negative predictive value (precision of "no"): tn / (tn + fn); null when the judge never said no. */
export const npv = (c: Confusion): number | null => ratio(c.tn, c.tn + c.fn);

/** Harmonic mean as HealthBench computes it: null if either is undefined, 0 if both are 0. */
function harmonic(p: number | null, r: number | null): number | null {
  if (p === null || r === null) return null;
  if (p === 0 && r === 0) return 0;
  return (2 * p * r) / (p + r);
}

/** F1 of the "yes" class (HealthBench convention): null when its precision or recall is undefined. */
export const f1Positive = (c: Confusion): number | null => harmonic(precision(c), tpr(c));

/** F1 of the "no" class (HealthBench convention): null when its precision or recall is undefined. */
export const f1Negative = (c: Confusion): number | null => harmonic(npv(c), tnr(c));

/**
 * Balanced (macro) F1 as HealthBench reports it: the mean of both classes' F1; null when either is undefined.
 * @example balancedF1({ tp: 2, fp: 2, tn: 1, fn: 1 }) // (4/7 + 2/5) / 2
 */
export function balancedF1(c: Confusion): number | null {
  const pos = f1Positive(c);
  const neg = f1Negative(c);
  return pos === null || neg === null ? null : (pos + neg) / 2;
}

/** Human prevalence: share of items humans said yes to; null with no items. */
export const prevalence = (c: Confusion): number | null => ratio(c.tp + c.fn, count(c));

/** Judge pass rate: share of items the judge said yes to; null with no items. */
export const passRate = (c: Confusion): number | null => ratio(c.tp + c.fp, count(c));

/** The name of each metric reported with an interval. */
export type MetricName =
  | "prevalence"
  | "passRate"
  | "accuracy"
  | "kappa"
  | "tpr"
  | "tnr"
  | "precision"
  | "npv"
  | "f1Positive"
  | "f1Negative"
  | "balancedF1";

/** A metric's function, its label and why it can be undefined. */
export interface MetricDef {
  name: MetricName;
  label: string;
  fn: (c: Confusion) => number | null;
  /** Said when the value is null. */
  undefinedWhen: string;
}

/** Every metric, in report order. */
export const METRICS: readonly MetricDef[] = [
  { name: "prevalence", label: "human prevalence", fn: prevalence, undefinedWhen: "no items" },
  { name: "passRate", label: "judge pass rate", fn: passRate, undefinedWhen: "no items" },
  { name: "accuracy", label: "accuracy", fn: accuracy, undefinedWhen: "no items" },
  { name: "kappa", label: "Cohen's kappa", fn: cohensKappa, undefinedWhen: "expected agreement is 1: human and judge each gave one and the same class (or no items)" },
  { name: "tpr", label: "TPR", fn: tpr, undefinedWhen: "no item humans said yes to" },
  { name: "tnr", label: "TNR", fn: tnr, undefinedWhen: "no item humans said no to" },
  { name: "precision", label: "precision", fn: precision, undefinedWhen: "the judge never said yes" },
  { name: "npv", label: "NPV", fn: npv, undefinedWhen: "the judge never said no" },
  { name: "f1Positive", label: "F1 (yes)", fn: f1Positive, undefinedWhen: "precision or recall of yes is undefined" },
  { name: "f1Negative", label: "F1 (no)", fn: f1Negative, undefinedWhen: "precision or recall of no is undefined" },
  { name: "balancedF1", label: "balanced F1", fn: balancedF1, undefinedWhen: "the F1 of one class is undefined" },
];

/** Every metric's value for a confusion matrix. */
export function allMetrics(c: Confusion): Record<MetricName, number | null> {
  return Object.fromEntries(METRICS.map((m) => [m.name, m.fn(c)])) as Record<MetricName, number | null>;
}
