/** The overfitting rule: the training environment's interval rises clear of its start while a held-out one falls clear of its own. */
import { describe, expect, it } from "vitest";
import { curvesOf, curvesSvg, trendOf } from "../../src/site/curves.js";
import type { StoredResult } from "../../src/site/store.js";
import { hubResult, tasks } from "./fixtures.js";

/** A stepped result on `env` whose 20 task rewards average about `level`. */
const at = (env: string, step: number, level: number, id: number): StoredResult => ({
  id,
  receivedAt: "2026-12-01T00:00:00.000Z",
  submittedBy: "alice",
  result: hubResult({ name: env, version: "1.0.0", model: "policy-run", series: "run-7", step, perTask: tasks(20, (i) => (i / 20 < level ? 1 : 0)) }),
});

const series = (env: string, levels: number[], from: number) => levels.map((level, i) => at(env, i * 100, level, from + i));

describe("training curves", () => {
  it("says overfitting when training rises while a held-out environment falls", () => {
    const results = [...series("train-env", [0.2, 0.5, 0.9], 0), ...series("gsm-like", [0.8, 0.6, 0.2], 10), ...series("steady", [0.5, 0.5, 0.5], 20)];
    const c = curvesOf("run-7", results, "train-env", ["gsm-like", "steady"]);
    expect(c.curves.map((x) => [x.env, x.role, x.trend])).toEqual([
      ["train-env", "train", "rises"],
      ["gsm-like", "held-out", "falls"],
      ["steady", "held-out", "flat"],
    ]);
    expect(c.overfitting).toMatch(/^Overfitting: reward on train-env rose from step 0 to 200 while gsm-like fell/);
    const svg = curvesSvg(c);
    expect(svg).toContain('data-points="9"');
    expect(svg).toContain("train-env (training)");
  });

  it("says nothing when held-out environments rise with training, or only wobble within their intervals", () => {
    const together = [...series("train-env", [0.2, 0.5, 0.9], 0), ...series("gsm-like", [0.3, 0.5, 0.8], 10)];
    expect(curvesOf("run-7", together, "train-env", ["gsm-like"]).overfitting).toBeUndefined();
    // 0.55 → 0.45 over 20 tasks: the two intervals overlap, so it is not called a fall.
    const wobble = [...series("train-env", [0.2, 0.9], 0), ...series("gsm-like", [0.55, 0.45], 10)];
    const c = curvesOf("run-7", wobble, "train-env", ["gsm-like"]);
    expect(c.curves[1].trend).toBe("flat");
    expect(c.overfitting).toBeUndefined();
  });

  it("a single point is no trend; the latest result of a step counts", () => {
    expect(trendOf([{ step: 0, mean: 0.5, low: 0.4, high: 0.6 }])).toBe("flat");
    const redo = [at("train-env", 0, 0.2, 1), at("train-env", 100, 0.3, 2), at("train-env", 100, 0.95, 3)];
    const c = curvesOf("run-7", redo, "train-env", []);
    expect(c.curves[0].points.map((p) => p.step)).toEqual([0, 100]);
    expect(c.curves[0].points[1].mean).toBeCloseTo(0.95);
    expect(c.curves[0].trend).toBe("rises");
  });
});
