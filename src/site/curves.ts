/**
 * Training curves: one model series' results pushed with a `step`, reward over steps for the
 * training environment and for held-out environments on one chart, and the overfitting rule.
 *
 * The rule: an environment **rises** when its reward interval at the last step lies wholly above
 * its interval at the first step, and **falls** when wholly below. The page warns when the
 * training environment rises while a held-out one falls. Comparing whole 95% intervals (not bare
 * means) keeps noise from two small evals from being called a trend.
 */
import { lineChart } from "../report/svg.js";
import type { StoredResult } from "./store.js";

/** One point: the reward of an environment at a step (the latest result pushed for that step). */
export interface CurvePoint {
  step: number;
  mean: number;
  low: number;
  high: number;
}

export interface Curve {
  env: string;
  role: "train" | "held-out";
  points: CurvePoint[];
  trend: "rises" | "falls" | "flat";
}

export interface Curves {
  series: string;
  curves: Curve[];
  /** Set when the training environment rises while a held-out one falls. */
  overfitting?: string;
}

/** The trend of a curve from its first and last points (see the module comment). */
export function trendOf(points: CurvePoint[]): Curve["trend"] {
  if (points.length < 2) return "flat";
  const first = points[0];
  const last = points[points.length - 1];
  if (last.low > first.high) return "rises";
  if (last.high < first.low) return "falls";
  return "flat";
}

/**
 * The curves of `series` for `train` and each of `heldOut` (environment names). A result counts
 * for its environment whatever version it measured, so a curve spans version bumps.
 */
export function curvesOf(series: string, results: StoredResult[], train: string, heldOut: string[]): Curves {
  const curves: Curve[] = [train, ...heldOut.filter((h) => h !== train)].map((env, i) => {
    const byStep = new Map<number, CurvePoint>();
    for (const { result } of results) {
      if (result.env.name !== env || result.step === undefined || !result.stats.reward) continue;
      const { mean, low, high } = result.stats.reward;
      byStep.set(result.step, { step: result.step, mean, low, high });
    }
    const points = [...byStep.values()].sort((a, b) => a.step - b.step);
    return { env, role: i === 0 ? "train" : "held-out", points, trend: trendOf(points) };
  });
  const trainCurve = curves[0];
  const falling = curves.slice(1).filter((c) => c.trend === "falls");
  const overfitting =
    trainCurve.trend === "rises" && falling.length > 0
      ? `Overfitting: reward on ${train} rose from step ${trainCurve.points[0].step} to ${trainCurve.points.at(-1)!.step} while ${falling.map((c) => c.env).join(", ")} fell (95% intervals of the first and last steps do not overlap).`
      : undefined;
  return { series, curves, ...(overfitting ? { overfitting } : {}) };
}

/** Environments a series has stepped results on, most results first (the likely training one first). */
export function seriesEnvs(results: StoredResult[]): string[] {
  const counts = new Map<string, number>();
  for (const { result } of results) counts.set(result.env.name, (counts.get(result.env.name) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([env]) => env);
}

/** The chart: one line per environment (mean reward by step), the training one first. */
export function curvesSvg(c: Curves): string {
  return lineChart(
    c.curves.map((curve) => ({ name: `${curve.env}${curve.role === "train" ? " (training)" : " (held-out)"}`, points: curve.points.map((p) => ({ x: p.step, y: p.mean })) })),
    { title: `Reward by step: ${c.series}`, xLabel: "step", yLabel: "mean reward", yMin: 0, yMax: 1, width: 720 },
  );
}
