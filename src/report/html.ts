/**
 * Self-contained HTML reports: one file, inline CSS (and optional inline script), no CDN, and a
 * Content-Security-Policy that forbids every external request.
 */
import { escapeHtml } from "./escape.js";

export { escapeHtml } from "./escape.js";

/** A section of a page: a heading and HTML built with this kit (charts, tables), trusted as is. */
export interface Section {
  title: string;
  /** The anchor id (default: derived from the title). */
  id?: string;
  /** HTML produced by `table`, the SVG functions, `paragraph`, …; not escaped again. */
  html: string;
}

/** What a page holds. */
export interface PageOptions {
  title: string;
  /** A line under the title, as text (escaped). */
  subtitle?: string;
  sections: Section[];
  /** Extra CSS appended to the built-in style. */
  css?: string;
  /** An inline script (e.g. filtering); runs after the page is parsed. */
  script?: string;
  /** Adds a table of contents when there are several sections (default true). */
  toc?: boolean;
}

const STYLE = `
:root{color-scheme:light;--fg:#1b1b1b;--muted:#666;--line:#ddd;--accent:#0072B2}
*{box-sizing:border-box}
body{font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);margin:0 auto;padding:24px;max-width:1100px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
.subtitle{color:var(--muted);margin:0 0 16px}
nav.toc ul{padding-left:20px;margin:4px 0 16px}
table{border-collapse:collapse;margin:8px 0;width:auto;max-width:100%}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f6f6;font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tr:nth-child(even) td{background:#fbfbfb}
.table-wrap{overflow-x:auto}
svg.chart{max-width:100%;height:auto;display:block;margin:8px 0}
details{margin:4px 0}summary{cursor:pointer}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:8px;border-radius:4px}
.warning{background:#fff4e5;border-left:4px solid #E69F00;padding:6px 10px;margin:8px 0}
.muted{color:var(--muted)}
`;

/** The page's Content-Security-Policy: nothing may be fetched; inline style and script only. */
export const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** A slug for anchors: lower case, non-alphanumerics to "-". */
export function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "section";
}

/**
 * One complete HTML document with every section in order.
 * @example writeFileSync("r.html", htmlPage({ title: "Calibration", sections: [{ title: "Metrics", html: table(rows, cols) }] }))
 */
export function htmlPage(opts: PageOptions): string {
  const used = new Map<string, number>();
  const ids = opts.sections.map((s) => {
    const base = s.id ?? slug(s.title);
    const n = used.get(base) ?? 0;
    used.set(base, n + 1);
    return n === 0 ? base : `${base}-${n + 1}`;
  });
  const toc =
    (opts.toc ?? true) && opts.sections.length > 1
      ? `<nav class="toc" aria-label="Contents"><ul>${opts.sections.map((s, i) => `<li><a href="#${escapeHtml(ids[i])}">${escapeHtml(s.title)}</a></li>`).join("")}</ul></nav>`
      : "";
  const body = opts.sections
    .map((s, i) => `<section id="${escapeHtml(ids[i])}"><h2>${escapeHtml(s.title)}</h2>${s.html}</section>`)
    .join("\n");
  const script = opts.script ? `<script>${opts.script.replace(/<\/(script)/gi, "<\\/$1")}</script>` : "";
  const css = (opts.css ?? "").replace(/<\/(style)/gi, "<\\/$1");
  return [
    "<!DOCTYPE html>",
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${escapeHtml(opts.title)}</title><style>${STYLE}${css}</style></head>`,
    `<body><header><h1>${escapeHtml(opts.title)}</h1>${opts.subtitle ? `<p class="subtitle">${escapeHtml(opts.subtitle)}</p>` : ""}</header>`,
    `${toc}<main>${body}</main>${script}</body></html>`,
    "",
  ].join("\n");
}

/** How a table column reads its cell from a row. */
export interface Column<Row> {
  /** The header text. */
  label: string;
  /** A property name, or a function of the row. */
  value: keyof Row | ((row: Row) => unknown);
  /** Right-aligned, tabular figures. */
  numeric?: boolean;
  /** Formats the cell value as text (escaped afterwards). */
  format?: (value: unknown, row: Row) => string;
  /** The cell is HTML built with this kit (e.g. a `details`), inserted unescaped. */
  html?: boolean;
}

/** A cell's value as text: null/undefined → "—", numbers up to 3 decimals, objects as JSON. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "number") return Number.isFinite(v) ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : "—";
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

/** Reads a column's raw value from a row. */
export function columnValue<Row>(row: Row, col: Column<Row>): unknown {
  return typeof col.value === "function" ? col.value(row) : row[col.value];
}

/**
 * An HTML table; every cell is escaped unless its column says `html: true`.
 * @example table([{ id: "a", n: 3 }], [{ label: "id", value: "id" }, { label: "n", value: "n", numeric: true }])
 */
export function table<Row>(rows: Row[], columns: Column<Row>[], opts: { caption?: string; className?: string; rowAttrs?: (row: Row) => Record<string, string> } = {}): string {
  const head = columns.map((c) => `<th scope="col"${c.numeric ? ' class="num"' : ""}>${escapeHtml(c.label)}</th>`).join("");
  const body = rows
    .map((row) => {
      const attrs = Object.entries(opts.rowAttrs?.(row) ?? {})
        .map(([k, v]) => ` ${k.replace(/[^a-zA-Z0-9_-]/g, "")}="${escapeHtml(v)}"`)
        .join("");
      const cells = columns.map((c) => {
        const v = columnValue(row, c);
        const text = c.format ? c.format(v, row) : cellText(v);
        return `<td${c.numeric ? ' class="num"' : ""}>${c.html ? text : escapeHtml(text)}</td>`;
      });
      return `<tr${attrs}>${cells.join("")}</tr>`;
    })
    .join("");
  const caption = opts.caption ? `<caption>${escapeHtml(opts.caption)}</caption>` : "";
  const cls = opts.className ? ` class="${escapeHtml(opts.className)}"` : "";
  return `<div class="table-wrap"><table${cls}>${caption}<thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/** A paragraph of escaped text. */
export function paragraph(text: string, className?: string): string {
  return `<p${className ? ` class="${escapeHtml(className)}"` : ""}>${escapeHtml(text)}</p>`;
}

/** A warning box with escaped text. */
export function warning(text: string): string {
  return `<div class="warning" role="note">${escapeHtml(text)}</div>`;
}

/** A collapsible block: escaped summary, trusted HTML body. */
export function details(summary: string, bodyHtml: string, open = false): string {
  return `<details${open ? " open" : ""}><summary>${escapeHtml(summary)}</summary>${bodyHtml}</details>`;
}

/** Preformatted escaped text (judge reasoning, model output). */
export function pre(text: string): string {
  return `<pre>${escapeHtml(text)}</pre>`;
}
