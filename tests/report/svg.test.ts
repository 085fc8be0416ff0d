import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { barChart, groupedBarChart, histogram, histogramBins, lineChart, reliabilityDiagram } from "../../src/report/svg.js";
import { assertBalanced } from "./xml-check.js";

const count = (s: string, re: RegExp) => (s.match(re) ?? []).length;
const bars = (s: string) => count(s, /<rect class="bar"/g);
const attr = (s: string, name: string) => s.match(new RegExp(`${name}="([^"]*)"`))?.[1];

describe("barChart", () => {
  it("draws one bar per finite value, with titles, labels and data-bars", () => {
    const svg = barChart(
      [{ label: "accuracy", value: 0.8, lo: 0.7, hi: 0.9 }, { label: "kappa", value: null }, { label: "tpr", value: 0.5 }],
      { title: "Agreement", xLabel: "metric", yLabel: "value", yMax: 1 },
    );
    assertBalanced(svg);
    expect(bars(svg)).toBe(2);
    expect(attr(svg, "data-bars")).toBe("2");
    expect(svg).toContain('role="img"');
    expect(svg).toMatch(/^<svg[^>]*><title>Agreement<\/title>/);
    expect(svg).toContain(">metric</text>");
    expect(svg).toContain(">value</text>");
    expect(svg).toContain("n/a");
    expect(count(svg, /class="error-bar"/g)).toBe(1);
    expect(svg).toContain("<title>accuracy: 0.8 [0.7, 0.9]</title>");
  });

  it("bar heights are proportional to values", () => {
    const svg = barChart([{ label: "a", value: 1 }, { label: "b", value: 2 }], { title: "t", height: 300 });
    const heights = [...svg.matchAll(/class="bar"[^>]*height="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(heights[1]).toBeCloseTo(heights[0] * 2, 1);
  });

  it("handles negative values (kappa below zero) and empty data", () => {
    const svg = barChart([{ label: "k", value: -0.2 }, { label: "j", value: 0.4 }], { title: "kappa" });
    assertBalanced(svg);
    expect(bars(svg)).toBe(2);
    const empty = barChart([], { title: "nothing" });
    assertBalanced(empty);
    expect(bars(empty)).toBe(0);
    expect(empty).toContain("no data");
  });

  it("escapes every text, including hostile labels and titles", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (label, title) => {
        const svg = barChart([{ label, value: 1 }], { title, xLabel: label, description: title });
        assertBalanced(svg);
        expect(svg).not.toContain("<script");
      }),
    );
    const svg = barChart([{ label: '<script>alert("x")</script>&', value: 1 }], { title: "<b>t</b>" });
    expect(svg).toContain("&lt;script&gt;");
    expect(svg).toContain("<title>&lt;b&gt;t&lt;/b&gt;</title>");
  });
});

describe("groupedBarChart", () => {
  it("draws series side by side with a legend and per-series data attributes", () => {
    const svg = groupedBarChart(
      { categories: ["c1", "c2", "c3"], series: [{ name: "gpt", values: [0.1, 0.2, null] }, { name: "claude", values: [0.3, 0.4, 0.5] }] },
      { title: "Pass rate per criterion", yMax: 1 },
    );
    assertBalanced(svg);
    expect(bars(svg)).toBe(5);
    expect(attr(svg, "data-bars")).toBe("5");
    expect(count(svg, /data-series="claude"/g)).toBe(3);
    expect(svg).toContain('class="legend"');
    // side by side: the two bars of c1 have different x and the same width
    const c1 = [...svg.matchAll(/<rect class="bar" data-label="c1"[^>]*x="([\d.]+)"[^>]*width="([\d.]+)"/g)];
    expect(c1).toHaveLength(2);
    expect(Number(c1[0][1])).toBeLessThan(Number(c1[1][1]));
    expect(c1[0][2]).toBe(c1[1][2]);
  });
});

describe("histogram", () => {
  it("bins values, counting the maximum into the last bin", () => {
    expect(histogramBins([0, 0.5, 1], 2, 0, 1).map((b) => b.count)).toEqual([1, 2]);
    expect(histogramBins([0.05, 0.15, 0.15, 0.95, 2, -1, NaN], 10, 0, 1).map((b) => b.count)).toEqual([1, 2, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(histogramBins([], 3).every((b) => b.count === 0)).toBe(true);
  });

  it("draws one bar per bin, empty bins included", () => {
    const svg = histogram([0.1, 0.2, 0.9], { title: "Rewards", bins: 5, min: 0, max: 1 });
    assertBalanced(svg);
    expect(bars(svg)).toBe(5);
    expect(attr(svg, "data-bars")).toBe("5");
    expect(svg).toContain(">count</text>");
  });

  it("counts sum to the number of in-range values (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true })), fc.integer({ min: 1, max: 20 }), (vs, n) => {
        const total = histogramBins(vs, n, 0, 1).reduce((s, b) => s + b.count, 0);
        expect(total).toBe(vs.length);
      }),
    );
  });
});

describe("lineChart", () => {
  it("draws a path per series and a point per finite value", () => {
    const svg = lineChart(
      [
        { name: "a", points: [{ x: 0, y: 1 }, { x: 1, y: 2 }, { x: 2, y: null }] },
        { name: "b", points: [{ x: 0, y: 0 }, { x: 2, y: 3 }] },
      ],
      { title: "Reward by step", xLabel: "step", yLabel: "reward" },
    );
    assertBalanced(svg);
    expect(count(svg, /<path class="line"/g)).toBe(2);
    expect(count(svg, /<circle class="point"/g)).toBe(4);
    expect(attr(svg, "data-points")).toBe("4");
  });
});

describe("reliabilityDiagram", () => {
  it("draws a bar per non-empty bin and the diagonal", () => {
    const svg = reliabilityDiagram(
      [
        { lo: 0, hi: 0.5, count: 3, meanPredicted: 0.2, observed: 0.33 },
        { lo: 0.5, hi: 1, count: 0, meanPredicted: null, observed: null },
      ],
      { title: "Calibration" },
    );
    assertBalanced(svg);
    expect(bars(svg)).toBe(1);
    expect(svg).toContain('class="diagonal"');
    expect(svg).toContain(">predicted probability</text>");
    expect(svg).toContain(">observed frequency</text>");
  });
});

describe("crowded categories", () => {
  it("widen the chart and slant the labels, keeping every bar", () => {
    const categories = Array.from({ length: 30 }, (_, i) => `a rather long judge name ${i}`);
    const svg = groupedBarChart({ categories, series: [{ name: "f1", values: categories.map(() => 0.5) }, { name: "kappa", values: categories.map(() => 0.2) }] }, { title: "many" });
    assertBalanced(svg);
    expect(bars(svg)).toBe(60);
    expect(Number(attr(svg, "width"))).toBeGreaterThan(640);
    expect(count(svg, /class="category"[^>]*rotate\(-40/g)).toBe(30);
    const few = barChart([{ label: "a", value: 1 }], { title: "few" });
    expect(few).not.toContain("rotate(-40");
    expect(attr(few, "width")).toBe("640");
  });
});
