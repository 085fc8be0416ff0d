/** The frame shared by every chart: size, scales, axes, title and legend. Internal to the report kit. */
import { escapeHtml } from "./escape.js";

/** Options every chart accepts. */
export interface ChartOptions {
  /** Shown above the chart and as the SVG's accessible `<title>`. */
  title: string;
  /** A longer accessible description (`<desc>`). */
  description?: string;
  xLabel?: string;
  yLabel?: string;
  /** Pixels; defaults 640 × 320. */
  width?: number;
  height?: number;
  /** The value axis range; defaults to 0 … the largest value (or the smallest, when negative). */
  yMin?: number;
  yMax?: number;
  /** How values are written in ticks and tooltips (default: up to 3 significant decimals). */
  format?: (value: number) => string;
}

/** Okabe–Ito colours: distinguishable with the common forms of colour blindness. */
export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"];

/** The plotting area and its scales. */
export interface Frame {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
  yMin: number;
  yMax: number;
  /** Value → pixel row. */
  y: (value: number) => number;
  format: (value: number) => string;
}

/** Default value formatting: integers as they are, others with at most 3 decimals. */
export function defaultFormat(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toFixed(3)));
}

/** About `count` round tick values (1, 2 or 5 × 10^k apart) covering [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step - 1e-9) * step; t <= max + step * 1e-9; t += step) ticks.push(Number(t.toFixed(12)));
  return ticks;
}

/** Builds the frame from the options and the finite values that will be drawn. */
export function makeFrame(opts: ChartOptions, values: number[], legendRows = 0, layout: { minWidth?: number; bottomExtra?: number } = {}): Frame {
  const width = opts.width ?? Math.max(640, Math.ceil(layout.minWidth ?? 0));
  const height = (opts.height ?? 320) + (layout.bottomExtra ?? 0);
  const finite = values.filter(Number.isFinite);
  const dataMax = finite.length ? Math.max(...finite) : 1;
  const dataMin = finite.length ? Math.min(...finite) : 0;
  const yMin = opts.yMin ?? Math.min(0, dataMin);
  let yMax = opts.yMax ?? Math.max(0, dataMax);
  if (!(yMax > yMin)) yMax = yMin + 1;
  const left = 64;
  const right = width - 16;
  const top = 40 + legendRows * 18;
  const bottom = height - 56;
  const y = (v: number) => bottom - ((clamp(v, yMin, yMax) - yMin) / (yMax - yMin)) * (bottom - top);
  return { width, height, left, right, top, bottom, yMin, yMax, y, format: opts.format ?? defaultFormat };
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

/** Rounds a pixel coordinate to 2 decimals, so the output is stable and compact. */
export function px(v: number): string {
  return String(Math.round(v * 100) / 100);
}

/** Opens an accessible `<svg>`: role img, `<title>`, optional `<desc>`, the visible title. */
export function openSvg(f: Frame, opts: ChartOptions, kind: string, bars: number): string {
  const desc = opts.description ? `<desc>${escapeHtml(opts.description)}</desc>` : "";
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart chart-${kind}" role="img" data-bars="${bars}" ` +
    `width="${f.width}" height="${f.height}" viewBox="0 0 ${f.width} ${f.height}" font-family="system-ui, sans-serif" font-size="12">` +
    `<title>${escapeHtml(opts.title)}</title>${desc}` +
    `<text x="${px(f.width / 2)}" y="20" text-anchor="middle" font-size="14" font-weight="600" aria-hidden="true">${escapeHtml(opts.title)}</text>`
  );
}

/** The value axis with its ticks, gridlines and label. */
export function yAxis(f: Frame, label?: string): string {
  const parts: string[] = [`<g class="axis axis-y" aria-hidden="true">`];
  for (const t of niceTicks(f.yMin, f.yMax)) {
    const y = px(f.y(t));
    parts.push(`<line x1="${f.left}" x2="${f.right}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${f.left - 6}" y="${y}" dy="0.32em" text-anchor="end">${escapeHtml(f.format(t))}</text>`);
  }
  parts.push(`<line x1="${f.left}" x2="${f.left}" y1="${f.top}" y2="${f.bottom}" stroke="#333"/>`);
  if (label) {
    const cy = px((f.top + f.bottom) / 2);
    parts.push(`<text class="axis-label" x="16" y="${cy}" transform="rotate(-90 16 ${cy})" text-anchor="middle">${escapeHtml(label)}</text>`);
  }
  parts.push(`</g>`);
  return parts.join("");
}

/** The category/x axis line at value 0 (or the bottom) and its label. */
export function xAxis(f: Frame, label?: string): string {
  const y0 = px(f.y(Math.max(f.yMin, Math.min(0, f.yMax))));
  const text = label
    ? `<text class="axis-label" x="${px((f.left + f.right) / 2)}" y="${f.height - 8}" text-anchor="middle">${escapeHtml(label)}</text>`
    : "";
  return `<g class="axis axis-x" aria-hidden="true"><line x1="${f.left}" x2="${f.right}" y1="${y0}" y2="${y0}" stroke="#333"/>${text}</g>`;
}

/** Whether category labels must be slanted to fit slots of this width (labels cut at 18 characters). */
export function slantLabels(labels: string[], slotWidth: number): boolean {
  const longest = Math.min(18, Math.max(0, ...labels.map((l) => l.length)));
  return longest * 6.5 > slotWidth;
}

/** Extra height slanted labels need below the plot. */
export const SLANT_EXTRA = 90;

/** Category labels under slots (slanted when crowded), shortened past 18 characters (full text in `<title>`). */
export function categoryLabels(f: Frame, labels: string[], centre: (i: number) => number, slant = false): string {
  return labels
    .map((label, i) => {
      const short = label.length > 18 ? `${label.slice(0, 17)}…` : label;
      const x = px(centre(i));
      const y = f.bottom + 16;
      const place = slant ? `text-anchor="end" transform="rotate(-40 ${x} ${y})"` : `text-anchor="middle"`;
      return `<text class="category" x="${x}" y="${y}" ${place}>${escapeHtml(short)}<title>${escapeHtml(label)}</title></text>`;
    })
    .join("");
}

/** A legend row of coloured keys under the title. */
export function legend(f: Frame, names: string[], colors: string[] = PALETTE): string {
  let x = f.left;
  const items = names.map((name, i) => {
    const item = `<rect x="${px(x)}" y="30" width="10" height="10" fill="${colors[i % colors.length]}"/><text x="${px(x + 14)}" y="39">${escapeHtml(name)}</text>`;
    x += 24 + Math.min(name.length, 30) * 7;
    return item;
  });
  return `<g class="legend">${items.join("")}</g>`;
}

/** A text shown in place of a chart's data when there is none. */
export function noData(f: Frame): string {
  return `<text class="no-data" x="${px((f.left + f.right) / 2)}" y="${px((f.top + f.bottom) / 2)}" text-anchor="middle" fill="#666">no data</text>`;
}
