/**
 * The Rogan–Gladen bias-corrected pass rate: what share of unlabelled items truly meet the
 * criterion, given the share the judge passed and the judge's TPR/TNR measured on labelled items.
 * Rogan & Gladen (1978), "Estimating prevalence from the results of a screening test".
 */
import { type BootstrapOptions, percentileInterval, resampleStatistics } from "../stats/bootstrap.js";
import { type LabelPair, confusion, tnr as tnrOf, tpr as tprOf } from "./metrics.js";

/** A corrected estimate; `value` is null when the correction is meaningless (see `warning`). */
export interface RoganGladen {
  value: number | null;
  /** Before clipping to [0, 1]. */
  raw: number | null;
  clipped: boolean;
  warning?: string;
}

/** The warning given when TPR + TNR ≤ 1. */
export const USELESS_JUDGE_WARNING =
  "TPR + TNR ≤ 1: the judge does no better than chance on the labelled items, so its pass rate cannot be corrected";

/**
 * θ = (observed + TNR − 1) / (TPR + TNR − 1), clipped to [0, 1]; null with a warning when TPR + TNR ≤ 1.
 * @example roganGladen({ observed: 0.3, tpr: 0.9, tnr: 0.95 }).value // 0.25 / 0.85 ≈ 0.2941
 */
export function roganGladen(args: { observed: number | null; tpr: number | null; tnr: number | null }): RoganGladen {
  const { observed, tpr, tnr } = args;
  if (observed === null || tpr === null || tnr === null) {
    return { value: null, raw: null, clipped: false, warning: "TPR, TNR or the observed pass rate is undefined" };
  }
  const j = tpr + tnr - 1;
  if (j <= 1e-12) return { value: null, raw: null, clipped: false, warning: USELESS_JUDGE_WARNING };
  const raw = (observed + tnr - 1) / j;
  const value = Math.min(1, Math.max(0, raw));
  return { value, raw, clipped: value !== raw };
}

/** A corrected pass rate with its bootstrap interval. */
export interface CorrectedPassRate extends RoganGladen {
  lo: number | null;
  hi: number | null;
  /** The judge's pass rate on the items being corrected. */
  observed: number | null;
  tpr: number | null;
  tnr: number | null;
  /** Items the correction was applied to, and where they came from. */
  n: number;
  source: "unlabelled" | "labelled";
  /** Resamples where TPR + TNR ≤ 1 or a rate was undefined, left out of the interval. */
  undefinedResamples: number;
}

/**
 * Corrects the judge's pass rate on `unlabelled` verdicts (default: the labelled items' own
 * verdicts) with TPR/TNR from `labelled`; the interval resamples both sets independently.
 * @example correctedPassRate({ labelled: pairs, unlabelled: [true, false, true] }, { seed: 1 })
 */
export function correctedPassRate(
  data: { labelled: readonly LabelPair[]; unlabelled?: readonly boolean[] },
  opts: BootstrapOptions = {},
): CorrectedPassRate {
  const labelled = data.labelled;
  const source = data.unlabelled && data.unlabelled.length > 0 ? "unlabelled" : "labelled";
  const target = source === "unlabelled" ? (data.unlabelled as readonly boolean[]) : labelled.map((p) => p.judge);
  const rateOf = (xs: readonly boolean[]) => (xs.length ? xs.filter(Boolean).length / xs.length : null);
  const c = confusion(labelled);
  const point = { observed: rateOf(target), tpr: tprOf(c), tnr: tnrOf(c) };
  const estimate = roganGladen(point);

  const resamples = opts.resamples ?? 1000;
  const { draws, undefinedResamples } = resampleStatistics(
    [labelled, target] as const,
    {
      corrected: ([l, t]) => {
        const rc = confusion(l);
        return roganGladen({ observed: rateOf(t), tpr: tprOf(rc), tnr: tnrOf(rc) }).value;
      },
    },
    { seed: opts.seed, resamples },
  ).corrected;
  const level = opts.level ?? 0.95;
  let warning = estimate.warning;
  if (!warning && undefinedResamples > 0) {
    warning = `TPR + TNR ≤ 1 (or a rate undefined) in ${undefinedResamples} of ${resamples} resamples: the interval is unreliable`;
  }
  return {
    ...estimate,
    ...(warning ? { warning } : {}),
    ...percentileInterval(draws, level),
    ...point,
    n: target.length,
    source,
    undefinedResamples,
  };
}
