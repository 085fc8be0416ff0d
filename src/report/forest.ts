/**
 * A forest plot in HTML and CSS (no SVG scaling, so names stay readable on a 390 px phone): one
 * row per item with its full name, a point and its 95% interval on a shared axis, sorted by the
 * point, and the figures as text. On narrow screens the name moves above its track.
 */
import { escapeHtml } from "./escape.js";
import { formatInterval } from "./format.js";

/** One row of a forest plot. */
export interface ForestRow {
  label: string;
  value: number | null;
  lo: number | null;
  hi: number | null;
  /** Anchor to the row's detail (an element id on the page), if any. */
  href?: string;
}

/** CSS of forest plots; pass it to `htmlPage({ css })`. */
export const FOREST_CSS = `
.forest { margin: 1rem 0; }
.forest-axis, .forest-row { display: grid; grid-template-columns: minmax(8rem, 22rem) 1fr 9rem; gap: .5rem; align-items: center; }
.forest-row { padding: .15rem 0; border-bottom: 1px solid #eee; }
.forest-name { overflow-wrap: anywhere; }
.forest-track { position: relative; height: 1rem; background: linear-gradient(#ccc, #ccc) no-repeat var(--zero, -10px) 0 / 1px 100%; }
.forest-ci { position: absolute; top: 45%; height: 2px; background: #3367d6; }
.forest-point { position: absolute; top: 20%; width: .6rem; height: .6rem; margin-left: -.3rem; border-radius: 50%; background: #1a3e8c; }
.forest-value { font-variant-numeric: tabular-nums; text-align: right; white-space: nowrap; }
.forest-axis { font-size: .8em; color: #555; }
.forest-axis .forest-ticks { display: flex; justify-content: space-between; }
@media (max-width: 480px) {
  .forest-axis, .forest-row { grid-template-columns: 1fr auto; }
  .forest-name { grid-column: 1 / -1; }
  .forest-axis > span:first-child { display: none; }
}
`;

/**
 * A forest plot of rows sorted by their point (highest first; rows without one last), on an axis
 * from `min` to `max` (default: 0 or the lowest interval end, to 1).
 * @example forestPlot([{ label: "gpt-4 (LLMBar natural)", value: 0.8, lo: 0.7, hi: 0.9 }], { title: "kappa" })
 */
export function forestPlot(rows: readonly ForestRow[], opts: { title: string; min?: number; max?: number }): string {
  const ends = rows.flatMap((r) => [r.lo, r.value, r.hi]).filter((x): x is number => x !== null && Number.isFinite(x));
  const min = opts.min ?? Math.min(0, ...ends);
  const max = opts.max ?? Math.max(1, ...ends);
  const pos = (x: number) => `${(100 * (Math.min(max, Math.max(min, x)) - min)) / (max - min || 1)}%`;
  const sorted = [...rows].sort((a, b) => (b.value ?? -Infinity) - (a.value ?? -Infinity));
  const zero = min < 0 && max > 0 ? ` style="--zero: ${pos(0)}"` : "";
  const row = (r: ForestRow) => {
    const name = r.href ? `<a href="#${escapeHtml(r.href)}">${escapeHtml(r.label)}</a>` : escapeHtml(r.label);
    const ci = r.lo !== null && r.hi !== null ? `<span class="forest-ci" style="left:${pos(r.lo)};width:calc(${pos(r.hi)} - ${pos(r.lo)})"></span>` : "";
    const point = r.value !== null ? `<span class="forest-point" style="left:${pos(r.value)}"></span>` : "";
    return `<div class="forest-row" role="row"><span class="forest-name" role="rowheader">${name}</span><span class="forest-track"${zero} aria-hidden="true">${ci}${point}</span><span class="forest-value" role="cell">${escapeHtml(formatInterval(r.value, r.lo, r.hi))}</span></div>`;
  };
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t) => min + t * (max - min)).map((t) => `<span>${escapeHtml(Number(t.toFixed(2)))}</span>`).join("");
  return [
    `<figure class="forest" role="table" aria-label="${escapeHtml(opts.title)}">`,
    `<figcaption>${escapeHtml(opts.title)}</figcaption>`,
    `<div class="forest-axis"><span></span><span class="forest-ticks">${ticks}</span><span></span></div>`,
    ...sorted.map(row),
    "</figure>",
  ].join("\n");
}
