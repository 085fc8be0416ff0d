/**
 * Metrics for verdicts that carry a probability of "yes" (logprobs or vote shares): calibration
 * error, Brier score, reliability bins, and thresholds that turn probabilities into verdicts.
 */
import { type Confusion, type MetricName, allMetrics } from "./metrics.js";

/** A predicted probability of "yes" beside the human label. */
export interface ProbabilityPair {
  probability: number;
  human: boolean;
}

/** One equal-width bin of predictions: [lo, hi) (the last bin includes 1). */
export interface ReliabilityBin {
  lo: number;
  hi: number;
  count: number;
  /** Mean predicted probability in the bin; null when empty. */
  meanPredicted: number | null;
  /** Share of the bin's items humans said yes to; null when empty. */
  observed: number | null;
}

/**
 * Sorts predictions into `bins` equal-width bins over [0, 1] (probabilities are clamped into it).
 * @example reliabilityBins([{ probability: 0.9, human: true }], 2)[1] // { lo: 0.5, hi: 1, count: 1, meanPredicted: 0.9, observed: 1 }
 */
export function reliabilityBins(pairs: readonly ProbabilityPair[], bins = 10): ReliabilityBin[] {
  const n = Math.max(1, Math.floor(bins));
  const acc = Array.from({ length: n }, () => ({ count: 0, sumP: 0, yes: 0 }));
  for (const { probability, human } of pairs) {
    const p = Math.min(1, Math.max(0, probability));
    const b = acc[Math.min(n - 1, Math.floor(p * n))];
    b.count++;
    b.sumP += p;
    if (human) b.yes++;
  }
  return acc.map((b, i) => ({
    lo: i / n,
    hi: (i + 1) / n,
    count: b.count,
    meanPredicted: b.count ? b.sumP / b.count : null,
    observed: b.count ? b.yes / b.count : null,
  }));
}

/**
 * Expected calibration error: Σ over bins of (bin size / n) · |observed − mean predicted|; null with no items.
 * @example expectedCalibrationError([{ probability: 0.8, human: true }, { probability: 0.8, human: false }], 10) // 0.3
 */
export function expectedCalibrationError(pairs: readonly ProbabilityPair[], bins = 10): number | null {
  if (pairs.length === 0) return null;
  let sum = 0;
  for (const b of reliabilityBins(pairs, bins)) {
    if (b.count) sum += (b.count / pairs.length) * Math.abs((b.observed as number) - (b.meanPredicted as number));
  }
  return sum;
}

/** Brier score: mean squared difference between probability and label (1 = yes); null with no items. */
export function brierScore(pairs: readonly ProbabilityPair[]): number | null {
  if (pairs.length === 0) return null;
  return pairs.reduce((s, { probability, human }) => s + (probability - (human ? 1 : 0)) ** 2, 0) / pairs.length;
}

/** The confusion counts when "yes" means probability ≥ threshold. */
export function confusionAtThreshold(pairs: readonly ProbabilityPair[], threshold: number): Confusion {
  const c: Confusion = { tp: 0, fp: 0, tn: 0, fn: 0 };
  for (const { probability, human } of pairs) {
    const yes = probability >= threshold;
    if (human) yes ? c.tp++ : c.fn++;
    else yes ? c.fp++ : c.tn++;
  }
  return c;
}

/** A suggested threshold ("yes" when probability ≥ threshold) and the metrics it gives. */
export interface ThresholdSuggestion {
  threshold: number;
  /** Youden's J = TPR + TNR − 1 at this threshold (null when a class is absent). */
  youdenJ: number | null;
  confusion: Confusion;
  metrics: Record<MetricName, number | null>;
}

function suggestion(c: Confusion, threshold: number): ThresholdSuggestion {
  const metrics = allMetrics(c);
  const youdenJ = metrics.tpr === null || metrics.tnr === null ? null : metrics.tpr + metrics.tnr - 1;
  return { threshold, youdenJ, confusion: c, metrics };
}

/**
 * Sweeps every distinct probability as a threshold (plus one above them all: nobody passes),
 * in one pass over the sorted items, and keeps the best by `score`; ties go to the threshold
 * nearest 0.5, then the higher one.
 */
function best(pairs: readonly ProbabilityPair[], score: (c: Confusion) => number | null): ThresholdSuggestion | null {
  const sorted = [...pairs].sort((a, b) => b.probability - a.probability);
  const pos = sorted.filter((p) => p.human).length;
  const neg = sorted.length - pos;
  let chosen: { c: Confusion; t: number } | null = null;
  let chosenScore = Number.NEGATIVE_INFINITY;
  const consider = (c: Confusion, t: number) => {
    const v = score(c);
    if (v === null) return;
    const closer = chosen !== null && Math.abs(t - 0.5) < Math.abs(chosen.t - 0.5);
    if (v > chosenScore + 1e-12 || (Math.abs(v - chosenScore) <= 1e-12 && closer)) {
      chosen = { c: { ...c }, t };
      chosenScore = v;
    }
  };
  const c: Confusion = { tp: 0, fp: 0, tn: neg, fn: pos };
  consider(c, Number.POSITIVE_INFINITY);
  for (let i = 0; i < sorted.length; ) {
    const t = sorted[i].probability;
    for (; i < sorted.length && sorted[i].probability === t; i++) {
      if (sorted[i].human) {
        c.tp++;
        c.fn--;
      } else {
        c.fp++;
        c.tn--;
      }
    }
    consider(c, t);
  }
  const found = chosen as { c: Confusion; t: number } | null;
  return found ? suggestion(found.c, found.t) : null;
}

const youdenOf = (c: Confusion): number | null => (c.tp + c.fn > 0 && c.tn + c.fp > 0 ? c.tp / (c.tp + c.fn) + c.tn / (c.tn + c.fp) - 1 : null);

/**
 * The threshold maximising Youden's J (TPR + TNR − 1); null without both classes among the labels.
 * @example youdenThreshold(pairs)?.threshold // e.g. 0.6
 */
export function youdenThreshold(pairs: readonly ProbabilityPair[]): ThresholdSuggestion | null {
  if (!pairs.some((p) => p.human) || !pairs.some((p) => !p.human)) return null;
  return best(pairs, youdenOf);
}

/**
 * The threshold whose judge pass rate is nearest the human prevalence (of these items, or `target`); null with no items.
 * @example prevalenceThreshold(pairs)?.metrics.passRate // ≈ share of human yes
 */
export function prevalenceThreshold(pairs: readonly ProbabilityPair[], target?: number): ThresholdSuggestion | null {
  if (pairs.length === 0) return null;
  const goal = target ?? pairs.filter((p) => p.human).length / pairs.length;
  return best(pairs, (c) => -Math.abs((c.tp + c.fp) / pairs.length - goal));
}
