/**
 * Inline SVG charts as strings: pure functions, no DOM, all text escaped. Every bar is a
 * `<rect class="bar">` with `data-label`/`data-value` and its own `<title>` tooltip, and the root
 * `<svg>` carries `data-bars` = the number of bars drawn, so browser tests can count them.
 */
import { escapeHtml } from "./escape.js";
import {
  type ChartOptions,
  PALETTE,
  SLANT_EXTRA,
  categoryLabels,
  legend,
  makeFrame,
  niceTicks,
  slantLabels,
  noData,
  openSvg,
  px,
  xAxis,
  yAxis,
} from "./svg-frame.js";

export type { ChartOptions } from "./svg-frame.js";
export { PALETTE } from "./svg-frame.js";

/** One bar; `value: null` draws no bar and writes "n/a"; `lo`/`hi` draw an interval whisker. */
export interface Bar {
  label: string;
  value: number | null;
  lo?: number | null;
  hi?: number | null;
  color?: string;
}

const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

function barRect(
  x: number, w: number, y0: number, y1: number, color: string, label: string, value: number, tip: string, series?: string,
): string {
  const top = Math.min(y0, y1);
  const h = Math.max(Math.abs(y1 - y0), value === 0 ? 0 : 0.5);
  const s = series === undefined ? "" : ` data-series="${escapeHtml(series)}"`;
  return `<rect class="bar" data-label="${escapeHtml(label)}"${s} data-value="${value}" x="${px(x)}" y="${px(top)}" width="${px(w)}" height="${px(h)}" fill="${color}"><title>${escapeHtml(tip)}</title></rect>`;
}

function whisker(cx: number, yLo: number, yHi: number): string {
  return `<path class="error-bar" d="M${px(cx)} ${px(yLo)}V${px(yHi)}M${px(cx - 4)} ${px(yLo)}H${px(cx + 4)}M${px(cx - 4)} ${px(yHi)}H${px(cx + 4)}" stroke="#222" fill="none" aria-hidden="true"/>`;
}

/**
 * A bar chart, one bar per item, with optional interval whiskers.
 * @example barChart([{ label: "accuracy", value: 0.8, lo: 0.7, hi: 0.9 }], { title: "Agreement", yMax: 1 })
 */
export function barChart(bars: Bar[], opts: ChartOptions): string {
  const values = bars.flatMap((b) => [b.value, b.lo, b.hi]).filter(isNum);
  const labels = bars.map((b) => b.label);
  const slant = slantLabels(labels, ((opts.width ?? Math.max(640, 80 + bars.length * 28)) - 80) / Math.max(1, bars.length));
  const f = makeFrame(opts, values, 0, { minWidth: 80 + bars.length * 28, bottomExtra: slant ? SLANT_EXTRA : 0 });
  const drawn = bars.filter((b) => isNum(b.value)).length;
  const slot = (f.right - f.left) / Math.max(1, bars.length);
  const w = Math.min(48, slot * 0.7);
  const zero = f.y(Math.max(f.yMin, Math.min(0, f.yMax)));
  const parts = [openSvg(f, opts, "bar", drawn), yAxis(f, opts.yLabel)];
  if (bars.length === 0) parts.push(noData(f));
  bars.forEach((b, i) => {
    const cx = f.left + slot * (i + 0.5);
    if (!isNum(b.value)) {
      parts.push(`<text class="na" x="${px(cx)}" y="${px(zero - 4)}" text-anchor="middle" fill="#666">n/a</text>`);
      return;
    }
    const interval = isNum(b.lo) && isNum(b.hi) ? ` [${f.format(b.lo)}, ${f.format(b.hi)}]` : "";
    const tip = `${b.label}: ${f.format(b.value)}${interval}`;
    parts.push(barRect(cx - w / 2, w, zero, f.y(b.value), b.color ?? PALETTE[0], b.label, b.value, tip));
    if (isNum(b.lo) && isNum(b.hi)) parts.push(whisker(cx, f.y(b.lo), f.y(b.hi)));
  });
  parts.push(xAxis(f, opts.xLabel), categoryLabels(f, labels, (i) => f.left + slot * (i + 0.5), slant), "</svg>");
  return parts.join("");
}

/** Data for a grouped bar chart: for each series, one value per category (null = no bar). */
export interface GroupedBars {
  categories: string[];
  series: { name: string; values: (number | null)[]; lo?: (number | null)[]; hi?: (number | null)[] }[];
}

/**
 * Bars of several series side by side within each category, with a legend.
 * @example groupedBarChart({ categories: ["a", "b"], series: [{ name: "m1", values: [1, 2] }, { name: "m2", values: [2, 1] }] }, { title: "Pass rates" })
 */
export function groupedBarChart(data: GroupedBars, opts: ChartOptions): string {
  const values = data.series.flatMap((s) => [...s.values, ...(s.lo ?? []), ...(s.hi ?? [])]).filter(isNum);
  const minWidth = 80 + data.categories.length * (Math.max(1, data.series.length) * 14 + 12);
  const slant = slantLabels(data.categories, ((opts.width ?? Math.max(640, minWidth)) - 80) / Math.max(1, data.categories.length));
  const f = makeFrame(opts, values, 1, { minWidth, bottomExtra: slant ? SLANT_EXTRA : 0 });
  const drawn = data.series.reduce((n, s) => n + s.values.slice(0, data.categories.length).filter(isNum).length, 0);
  const slot = (f.right - f.left) / Math.max(1, data.categories.length);
  const groupW = slot * 0.8;
  const w = groupW / Math.max(1, data.series.length);
  const zero = f.y(Math.max(f.yMin, Math.min(0, f.yMax)));
  const parts = [openSvg(f, opts, "grouped", drawn), legend(f, data.series.map((s) => s.name)), yAxis(f, opts.yLabel)];
  if (data.categories.length === 0 || data.series.length === 0) parts.push(noData(f));
  data.categories.forEach((cat, i) => {
    data.series.forEach((s, j) => {
      const v = s.values[i];
      if (!isNum(v)) return;
      const x = f.left + slot * i + (slot - groupW) / 2 + w * j;
      const lo = s.lo?.[i];
      const hi = s.hi?.[i];
      const interval = isNum(lo) && isNum(hi) ? ` [${f.format(lo)}, ${f.format(hi)}]` : "";
      parts.push(barRect(x + 1, Math.max(1, w - 2), zero, f.y(v), PALETTE[j % PALETTE.length], cat, v, `${s.name} · ${cat}: ${f.format(v)}${interval}`, s.name));
      if (isNum(lo) && isNum(hi)) parts.push(whisker(x + w / 2, f.y(lo), f.y(hi)));
    });
  });
  parts.push(xAxis(f, opts.xLabel), categoryLabels(f, data.categories, (i) => f.left + slot * (i + 0.5), slant), "</svg>");
  return parts.join("");
}

/** One histogram bin: [lo, hi) (the last bin includes hi) and how many values fell in it. */
export interface HistogramBin {
  lo: number;
  hi: number;
  count: number;
}

/**
 * Counts finite values into `bins` equal-width bins over [min, max] (defaults: the data's range).
 * @example histogramBins([0, 0.5, 1], 2, 0, 1) // [{lo:0,hi:0.5,count:1},{lo:0.5,hi:1,count:2}]
 */
export function histogramBins(values: number[], bins = 10, min?: number, max?: number): HistogramBin[] {
  const finite = values.filter(isNum);
  const lo = min ?? (finite.length ? Math.min(...finite) : 0);
  let hi = max ?? (finite.length ? Math.max(...finite) : 1);
  if (!(hi > lo)) hi = lo + 1;
  const n = Math.max(1, Math.floor(bins));
  const width = (hi - lo) / n;
  const out: HistogramBin[] = Array.from({ length: n }, (_, i) => ({ lo: lo + i * width, hi: i === n - 1 ? hi : lo + (i + 1) * width, count: 0 }));
  for (const v of finite) {
    if (v < lo || v > hi) continue;
    out[Math.min(n - 1, Math.floor((v - lo) / width))].count++;
  }
  return out;
}

/**
 * A histogram: one bar per bin (empty bins included, so `data-bars` = the number of bins).
 * @example histogram([0.1, 0.4, 0.45, 0.9], { title: "Rewards", bins: 5, min: 0, max: 1 })
 */
export function histogram(values: number[], opts: ChartOptions & { bins?: number; min?: number; max?: number }): string {
  const bins = histogramBins(values, opts.bins ?? 10, opts.min, opts.max);
  const f = makeFrame({ ...opts, format: undefined }, bins.map((b) => b.count));
  const fmt = opts.format ?? ((v: number) => String(Number(v.toPrecision(3))));
  const lo = bins[0].lo;
  const hi = bins[bins.length - 1].hi;
  const x = (v: number) => f.left + ((v - lo) / (hi - lo)) * (f.right - f.left);
  const parts = [openSvg(f, opts, "histogram", bins.length), yAxis(f, opts.yLabel ?? "count")];
  for (const b of bins) {
    const label = `${fmt(b.lo)}–${fmt(b.hi)}`;
    parts.push(barRect(x(b.lo) + 1, Math.max(1, x(b.hi) - x(b.lo) - 2), f.y(0), f.y(b.count), PALETTE[0], label, b.count, `${label}: ${b.count}`));
  }
  const ticks = niceTicks(lo, hi, 5).map(
    (t) => `<text class="tick" x="${px(x(t))}" y="${f.bottom + 16}" text-anchor="middle">${escapeHtml(fmt(t))}</text>`,
  );
  parts.push(xAxis(f, opts.xLabel), `<g aria-hidden="true">${ticks.join("")}</g>`, "</svg>");
  return parts.join("");
}

/** A line series: points in x order (non-finite y values break the line). */
export interface LineSeries {
  name: string;
  points: { x: number; y: number | null }[];
}

/**
 * Several series as lines with point markers (`class="point"`), over a numeric x axis.
 * @example lineChart([{ name: "train", points: [{ x: 0, y: 0.2 }, { x: 1, y: 0.5 }] }], { title: "Reward by step", xLabel: "step" })
 */
export function lineChart(series: LineSeries[], opts: ChartOptions & { xMin?: number; xMax?: number }): string {
  const ys = series.flatMap((s) => s.points.map((p) => p.y)).filter(isNum);
  const xs = series.flatMap((s) => s.points.map((p) => p.x)).filter(isNum);
  const f = makeFrame(opts, ys, 1);
  const xMin = opts.xMin ?? (xs.length ? Math.min(...xs) : 0);
  let xMax = opts.xMax ?? (xs.length ? Math.max(...xs) : 1);
  if (!(xMax > xMin)) xMax = xMin + 1;
  const x = (v: number) => f.left + ((v - xMin) / (xMax - xMin)) * (f.right - f.left);
  const points = series.reduce((n, s) => n + s.points.filter((p) => isNum(p.y) && isNum(p.x)).length, 0);
  const parts = [openSvg(f, opts, "line", 0).replace(/data-bars="0"/, `data-bars="0" data-points="${points}"`)];
  parts.push(legend(f, series.map((s) => s.name)), yAxis(f, opts.yLabel));
  if (points === 0) parts.push(noData(f));
  series.forEach((s, j) => {
    const color = PALETTE[j % PALETTE.length];
    let d = "";
    let pen = "M";
    for (const p of s.points) {
      if (!isNum(p.y) || !isNum(p.x)) { pen = "M"; continue; }
      d += `${pen}${px(x(p.x))} ${px(f.y(p.y))}`;
      pen = "L";
    }
    parts.push(`<path class="line" data-series="${escapeHtml(s.name)}" d="${d}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const p of s.points) {
      if (!isNum(p.y) || !isNum(p.x)) continue;
      parts.push(`<circle class="point" data-series="${escapeHtml(s.name)}" cx="${px(x(p.x))}" cy="${px(f.y(p.y))}" r="3" fill="${color}"><title>${escapeHtml(`${s.name}: (${f.format(p.x)}, ${f.format(p.y)})`)}</title></circle>`);
    }
  });
  const ticks = niceTicks(xMin, xMax, 6).map(
    (t) => `<text class="tick" x="${px(x(t))}" y="${f.bottom + 16}" text-anchor="middle">${escapeHtml(f.format(t))}</text>`,
  );
  parts.push(xAxis(f, opts.xLabel), `<g aria-hidden="true">${ticks.join("")}</g>`, "</svg>");
  return parts.join("");
}

/** One reliability bin: predictions in [lo, hi), their mean, and the observed positive rate. */
export interface ReliabilityBinInput {
  lo: number;
  hi: number;
  count: number;
  meanPredicted: number | null;
  observed: number | null;
}

/**
 * A reliability diagram: observed positive rate per probability bin (bars spanning the bin),
 * the mean prediction in each bin (points), and the diagonal of perfect calibration.
 * @example reliabilityDiagram(bins, { title: "Judge calibration" })
 */
export function reliabilityDiagram(bins: ReliabilityBinInput[], opts: ChartOptions): string {
  const f = makeFrame({ ...opts, yMin: 0, yMax: 1 }, []);
  const x = (v: number) => f.left + v * (f.right - f.left);
  const filled = bins.filter((b) => b.count > 0 && isNum(b.observed));
  const parts = [openSvg(f, opts, "reliability", filled.length), yAxis(f, opts.yLabel ?? "observed frequency")];
  parts.push(`<line class="diagonal" x1="${px(x(0))}" y1="${px(f.y(0))}" x2="${px(x(1))}" y2="${px(f.y(1))}" stroke="#999" stroke-dasharray="4 3" aria-hidden="true"/>`);
  if (filled.length === 0) parts.push(noData(f));
  for (const b of filled) {
    const obs = b.observed as number;
    const label = `${f.format(b.lo)}–${f.format(b.hi)}`;
    const mean = isNum(b.meanPredicted) ? `, mean predicted ${f.format(b.meanPredicted)}` : "";
    parts.push(barRect(x(b.lo) + 1, Math.max(1, x(b.hi) - x(b.lo) - 2), f.y(0), f.y(obs), PALETTE[5], label, obs, `${label}: observed ${f.format(obs)}${mean}, n = ${b.count}`));
    if (isNum(b.meanPredicted)) {
      parts.push(`<circle class="point" cx="${px(x(b.meanPredicted))}" cy="${px(f.y(obs))}" r="3" fill="${PALETTE[3]}" aria-hidden="true"/>`);
    }
  }
  const ticks = niceTicks(0, 1, 5).map(
    (t) => `<text class="tick" x="${px(x(t))}" y="${f.bottom + 16}" text-anchor="middle">${escapeHtml(f.format(t))}</text>`,
  );
  parts.push(xAxis(f, opts.xLabel ?? "predicted probability"), `<g aria-hidden="true">${ticks.join("")}</g>`, "</svg>");
  return parts.join("");
}
