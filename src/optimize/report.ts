import { escapeHtml, htmlPage, table, warning, type Section } from "../report/html.js";
import { lineChart, type LineSeries } from "../report/svg.js";
import { formatNumber } from "../report/format.js";
import { markdownTable, mdHeading, mdJoin, mdList } from "../report/markdown.js";
import { lineDiff, formatDiff, type DiffLine } from "./diff.js";
import type { CandidateRecord, CurvePoint, OptimizeResult } from "./types.js";

/** Options of the GEPA reports. */
export interface ReportOptions {
  title?: string;
  /** Another run (e.g. `randomSearch`) whose curve is drawn next to this one. */
  baseline?: { name: string; result: OptimizeResult };
  /** This run's name in the chart legend (default "GEPA"). */
  name?: string;
}

/** Best-so-far as a step function: the score holds until the next improvement. */
function steps(curve: readonly CurvePoint[]): { x: number; y: number }[] {
  return curve.flatMap((p, i) => (i === 0 ? [{ x: p.metricCalls, y: p.bestScore }] : [{ x: p.metricCalls, y: curve[i - 1].bestScore }, { x: p.metricCalls, y: p.bestScore }]));
}

function describe(c: CandidateRecord, bestIndex: number): string {
  const origin = c.tag === "seed" ? "seed" : c.tag === "merge" ? `merge of #${c.parents.join(" and #")}` : `${c.tag} of ${c.component ?? "?"}`;
  const flags = c.flags.length > 0 ? ` [${c.flags.join(", ")}]` : "";
  return `#${c.index} ${origin}, mean ${formatNumber(c.meanScore)}${c.index === bestIndex ? " ← best" : ""}${flags}`;
}

/** Candidates as a tree under their first parent, one line each, indented by depth. */
export function lineageLines(result: OptimizeResult): { depth: number; text: string; record: CandidateRecord }[] {
  const children = new Map<number, number[]>();
  for (const c of result.candidates) if (c.parents.length > 0) children.set(c.parents[0], [...(children.get(c.parents[0]) ?? []), c.index]);
  const out: { depth: number; text: string; record: CandidateRecord }[] = [];
  const visit = (i: number, depth: number) => {
    const record = result.candidates[i];
    out.push({ depth, text: describe(record, result.best.index), record });
    for (const k of children.get(i) ?? []) visit(k, depth + 1);
  };
  visit(0, 0);
  return out;
}

/** The line diff of each component that changed between the seed and the best candidate. */
export function bestDiffs(result: OptimizeResult): { component: string; lines: DiffLine[] }[] {
  const seed = result.candidates[0].candidate;
  return Object.keys(seed)
    .filter((name) => seed[name] !== result.best.candidate[name])
    .map((name) => ({ component: name, lines: lineDiff(seed[name], result.best.candidate[name] ?? "") }));
}

function fence(text: string, info = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = "`".repeat(longest + 1);
  return `${f}${info}\n${text}\n${f}`;
}

function summaryRows(r: OptimizeResult): [string, string][] {
  const failed = new Map<string, number>();
  for (const f of r.failedProposals) failed.set(f.reason, (failed.get(f.reason) ?? 0) + 1);
  return [
    ["best candidate", `#${r.best.index} (lineage ${r.best.lineage.map((i) => `#${i}`).join(" → ")})`],
    ["mean valset score", `${formatNumber(r.candidates[0].meanScore)} (seed) → ${formatNumber(r.best.meanScore)} (best)`],
    ["metric calls", `${r.budget.metricCalls} of ${r.budget.maxMetricCalls} (${r.budget.cacheHits} cache hits, not charged)`],
    ["reflection calls", String(r.budget.reflectionCalls)],
    ["iterations", `${r.iterations} (stopped: ${r.stopReason})`],
    ["candidates", String(r.candidates.length)],
    ["failed proposals", failed.size === 0 ? "0" : [...failed].map(([k, n]) => `${n} ${k}`).join(", ")],
  ];
}

/** A markdown summary of a GEPA run: figures, score curve, lineage tree and the best text's diff against the seed. */
export function reportMarkdown(result: OptimizeResult, opts: ReportOptions = {}): string {
  const rows = summaryRows(result).map(([k, v]) => ({ k, v }));
  const curve = [...result.curve.map((p) => ({ ...p, run: opts.name ?? "GEPA" })), ...(opts.baseline?.result.curve.map((p) => ({ ...p, run: opts.baseline!.name })) ?? [])];
  return mdJoin([
    mdHeading(opts.title ?? "GEPA run", 1),
    markdownTable(rows, [{ label: "measure", value: "k" }, { label: "value", value: "v" }]),
    result.warnings.length > 0 && `${mdHeading("Warnings")}\n\n${mdList(result.warnings)}`,
    mdHeading("Best valset score by metric calls"),
    markdownTable(curve, [{ label: "run", value: "run" }, { label: "metric calls", value: "metricCalls", numeric: true }, { label: "best mean score", value: "bestScore", numeric: true, format: (v) => formatNumber(v as number) }]),
    mdHeading("Lineage"),
    fence(lineageLines(result).map((l) => `${"  ".repeat(l.depth)}${l.text}`).join("\n")),
    mdHeading("Best text against the seed"),
    ...bestDiffs(result).map((d) => `${mdHeading(d.component, 3)}\n\n${fence(formatDiff(d.lines), "diff")}`),
    bestDiffs(result).length === 0 && "The best candidate is the seed.",
  ]);
}

const CSS = `
.diff{font:13px/1.4 ui-monospace,monospace;background:#f6f6f6;padding:8px;border-radius:4px;white-space:pre-wrap}
.diff .add{background:#e6ffec;display:block}.diff .del{background:#ffebe9;display:block}.diff .same{display:block}
ul.lineage{list-style:none;padding-left:18px;margin:2px 0}ul.lineage li.best>span{font-weight:600}
`;

function lineageHtml(result: OptimizeResult): string {
  const lines = lineageLines(result);
  let html = "";
  let depth = -1;
  for (const l of lines) {
    if (l.depth > depth) html += '<ul class="lineage">'.repeat(l.depth - depth);
    else html += "</li>" + "</ul></li>".repeat(depth - l.depth);
    depth = l.depth;
    html += `<li${l.record.index === result.best.index ? ' class="best"' : ""} data-index="${l.record.index}"><span>${escapeHtml(l.text)}</span>`;
  }
  return html + "</li>" + "</ul></li>".repeat(depth) + "</ul>";
}

function diffHtml(lines: DiffLine[]): string {
  const sign = { same: " ", add: "+", del: "-" } as const;
  return `<div class="diff">${lines.map((l) => `<span class="${l.op}">${sign[l.op]} ${escapeHtml(l.text) || "&nbsp;"}</span>`).join("")}</div>`;
}

/** A self-contained HTML page of a GEPA run: summary, score curve, lineage tree, best text's diff, all candidates. */
export function reportHtml(result: OptimizeResult, opts: ReportOptions = {}): string {
  const series: LineSeries[] = [{ name: opts.name ?? "GEPA", points: steps(result.curve) }];
  if (opts.baseline) series.push({ name: opts.baseline.name, points: steps(opts.baseline.result.curve) });
  const diffs = bestDiffs(result);
  const sections: Section[] = [
    { title: "Summary", html: table(summaryRows(result), [{ label: "measure", value: (r) => r[0] }, { label: "value", value: (r) => r[1] }]) + result.warnings.map((w) => warning(w)).join("") },
    { title: "Score curve", html: lineChart(series, { title: "Best mean valset score by metric calls", xLabel: "metric calls", yLabel: "best mean score", yMin: 0 }) },
    { title: "Lineage", html: lineageHtml(result) },
    { title: "Best text against the seed", html: diffs.length === 0 ? "<p>The best candidate is the seed.</p>" : diffs.map((d) => `<h3>${escapeHtml(d.component)}</h3>${diffHtml(d.lines)}`).join("") },
    {
      title: "Candidates",
      html: table(result.candidates, [
        { label: "#", value: "index", numeric: true },
        { label: "origin", value: (c) => (c.tag === "seed" ? "seed" : `${c.tag} of #${c.parents.join(" + #")}`) },
        { label: "component", value: (c) => c.component ?? "" },
        { label: "mean", value: "meanScore", numeric: true, format: (v) => formatNumber(v as number) },
        { label: "found at calls", value: "discoveredAtCalls", numeric: true },
        { label: "flags", value: (c) => c.flags.join(", ") },
      ]),
    },
  ];
  return htmlPage({ title: opts.title ?? "GEPA run", subtitle: `${result.iterations} iterations, ${result.budget.metricCalls} metric calls`, sections, css: CSS });
}
