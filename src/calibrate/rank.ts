/** Ranking several judges calibrated on the same labels: by balanced F1, and by cost. */
import type { CalibrationResult, MetricWithCI } from "./calibrate.js";

/** One judge's place in the ranking. */
export interface JudgeRank {
  judge: string;
  /** Overall balanced F1 with its interval. */
  balancedF1: MetricWithCI;
  kappa: MetricWithCI;
  accuracy: MetricWithCI;
  n: number;
  costUsd?: number;
  /** Cost per paired item, when the cost is known. */
  costPerItem?: number;
  /** 1 = best balanced F1 (undefined F1s rank last). */
  rankByF1: number;
  /** 1 = cheapest; absent when the cost is unknown. */
  rankByCost?: number;
  /** No other judge is at least as good on F1 and as cheap, and strictly better on one (judges without a cost are compared on F1 only). */
  pareto: boolean;
}

const f1Of = (r: CalibrationResult) => r.overall.metrics.balancedF1.value;

/**
 * Ranks judges by overall balanced F1 (best first), with their cost rank and whether they are on the F1/cost Pareto front.
 * @example rankJudges([calibrate({ labels, verdicts: a }), calibrate({ labels, verdicts: b })])[0].judge
 */
export function rankJudges(results: readonly CalibrationResult[]): JudgeRank[] {
  const byF1 = [...results].sort((a, b) => (f1Of(b) ?? -Infinity) - (f1Of(a) ?? -Infinity) || a.judge.localeCompare(b.judge));
  const costed = results.filter((r) => r.costUsd !== undefined).sort((a, b) => (a.costUsd as number) - (b.costUsd as number));
  const dominated = (r: CalibrationResult) =>
    results.some((o) => {
      if (o === r) return false;
      const fo = f1Of(o) ?? -Infinity;
      const fr = f1Of(r) ?? -Infinity;
      if (r.costUsd === undefined || o.costUsd === undefined) return fo > fr;
      return fo >= fr && o.costUsd <= r.costUsd && (fo > fr || o.costUsd < r.costUsd);
    });
  return byF1.map((r, i) => {
    const rank: JudgeRank = {
      judge: r.judge,
      balancedF1: r.overall.metrics.balancedF1,
      kappa: r.overall.metrics.kappa,
      accuracy: r.overall.metrics.accuracy,
      n: r.overall.n,
      rankByF1: i + 1,
      pareto: !dominated(r),
    };
    if (r.costUsd !== undefined) {
      rank.costUsd = r.costUsd;
      if (r.overall.n > 0) rank.costPerItem = r.costUsd / r.overall.n;
      rank.rankByCost = costed.indexOf(r) + 1;
    }
    return rank;
  });
}
