/**
 * The distillation report: the funnel (kept and dropped by reason, stage by stage), reward
 * distributions and per-criterion pass rates before and after, as data, markdown and HTML.
 */
import { htmlPage, paragraph, table, warning, type Column } from "../report/html.js";
import { markdownTable, mdHeading, mdJoin, mdList } from "../report/markdown.js";
import { groupedBarChart } from "../report/svg.js";
import { badLineWhere, type BadLines } from "../config/jsonl.js";
import type { Distiller } from "./pipeline.js";
import { meanReward, passRate, REWARD_BINS, type SideStats, type StageCounts } from "./stats.js";
import type { ExportFormat, FilterOptions } from "./types.js";

/** Everything a run reports. */
export interface DistillReport {
  format: ExportFormat;
  filters: FilterOptions;
  /** Input rows read. */
  rows: number;
  /** Units written (rows, or pairs for preference formats). */
  kept: number;
  unit: "rows" | "pairs";
  funnel: StageCounts[];
  /** Every drop reason summed over stages (units of each stage). */
  dropped: Record<string, number>;
  before: SideStats;
  after: SideStats;
  /** Error codes of rows dropped for a null reward. */
  errorCodes: Record<string, number>;
  tagCounts: Record<string, number>;
  warnings: string[];
  /** Groups (rows, without grouping) written by an earlier, interrupted run of the same job. */
  resumedGroups: number;
  interrupted: boolean;
  /** Input lines that were not JSON objects, skipped (the first few are named in `warnings`). */
  badLines: number;
}

/** The report of a run from its filter core. */
export function buildReport(d: Distiller, run: { format: ExportFormat; filters: FilterOptions; kept: number; rows: number; resumedGroups: number; interrupted: boolean; badLines?: BadLines }): DistillReport {
  const funnel = d.funnel.list();
  const dropped: Record<string, number> = {};
  for (const s of funnel) for (const [reason, n] of Object.entries(s.dropped)) dropped[reason] = (dropped[reason] ?? 0) + n;
  const warnings: string[] = [];
  for (const id of run.filters.require ?? []) {
    if (!d.before.criteria[id] && d.before.rows > 0) warnings.push(`--require ${id}: no row has a verdict for "${id}", so every row was dropped (a typo?)`);
  }
  const noResponse = funnel[0]?.dropped["no-response"] ?? 0;
  const unscored = funnel[0]?.dropped["reward-null"] ?? 0;
  if (Object.keys(d.errorCodes).length > 0) {
    const codes = Object.entries(d.errorCodes).map(([c, n]) => `${c} ×${n}`).join(", ");
    // "unknown": a row that came with a null reward and no errors (not scored here).
    const failed = Object.keys(d.errorCodes).some((c) => c !== "unknown");
    warnings.push(`${unscored} row(s) have no reward${failed ? " because scoring failed" : ""} (${codes}${d.firstError ? `; first: ${d.firstError}` : ""}); they were dropped, never counted as 0`);
  }
  if (run.badLines && run.badLines.count > 0) {
    const named = run.badLines.first.map((b) => `${badLineWhere(b)}: ${b.message}`).join("; ");
    const more = run.badLines.count > run.badLines.first.length ? `; and ${run.badLines.count - run.badLines.first.length} more` : "";
    warnings.push(`${run.badLines.count} input line(s) are not JSON objects and were skipped: ${named}${more}`);
  }
  const invalid = funnel[0]?.dropped["reward-invalid"] ?? 0;
  if (invalid > 0) warnings.push(`${invalid} row(s) had a reward that is not a number in [0, 1] (e.g. ${d.firstRewardProblem ?? "?"}); they were dropped`);
  if (noResponse > 0) warnings.push(`${noResponse} row(s) had no usable prompt and response (no \`messages\` ending in an assistant turn, and no response/prompt fields)`);
  return {
    format: run.format,
    filters: run.filters,
    rows: run.rows,
    kept: run.kept,
    unit: run.format === "dpo" || run.format === "openai-dpo" ? "pairs" : "rows",
    funnel,
    dropped,
    before: d.before,
    after: d.after,
    errorCodes: d.errorCodes,
    tagCounts: Object.fromEntries(d.tagCounts),
    warnings,
    resumedGroups: run.resumedGroups,
    interrupted: run.interrupted,
    badLines: run.badLines?.count ?? 0,
  };
}

const pct = (x: number | null) => (x === null ? "—" : `${(100 * x).toFixed(1)}%`);
const num = (x: number | null) => (x === null ? "—" : x.toFixed(3));

interface FunnelRow {
  stage: string;
  unit: string;
  in: number;
  out: number;
  dropped: string;
}
const funnelRows = (r: DistillReport): FunnelRow[] =>
  r.funnel.map((s) => ({ stage: s.stage, unit: s.unit, in: s.in, out: s.out, dropped: Object.entries(s.dropped).map(([k, n]) => `${k} ${n}`).join(", ") || "—" }));
const funnelColumns: Column<FunnelRow>[] = [
  { label: "stage", value: "stage" },
  { label: "unit", value: "unit" },
  { label: "in", value: "in", numeric: true },
  { label: "kept", value: "out", numeric: true },
  { label: "dropped (reason count)", value: "dropped" },
];

interface CriterionRow {
  id: string;
  kind: string;
  before: number | null;
  after: number | null;
  answered: string;
}
const criterionRows = (r: DistillReport): CriterionRow[] =>
  Object.entries(r.before.criteria).map(([id, c]) => ({
    id,
    kind: c.pitfall ? "pitfall" : "criterion",
    before: passRate(c),
    after: passRate(r.after.criteria[id]),
    answered: `${c.met + c.unmet} → ${(r.after.criteria[id]?.met ?? 0) + (r.after.criteria[id]?.unmet ?? 0)}`,
  }));
const criterionColumns: Column<CriterionRow>[] = [
  { label: "criterion", value: "id" },
  { label: "kind", value: "kind" },
  { label: "met before", value: "before", numeric: true, format: (v) => pct(v as number | null) },
  { label: "met after", value: "after", numeric: true, format: (v) => pct(v as number | null) },
  { label: "answered (before → after)", value: "answered", numeric: true },
];

interface RewardRow {
  side: string;
  n: number;
  mean: number | null;
  min: number | null;
  max: number | null;
}
const rewardRows = (r: DistillReport): RewardRow[] =>
  (["before", "after"] as const).map((side) => ({ side, n: r[side].reward.n, mean: meanReward(r[side]), min: r[side].reward.min, max: r[side].reward.max }));
const rewardColumns: Column<RewardRow>[] = [
  { label: "", value: "side" },
  { label: "rows with a reward", value: "n", numeric: true },
  { label: "mean", value: "mean", numeric: true, format: (v) => num(v as number | null) },
  { label: "min", value: "min", numeric: true, format: (v) => num(v as number | null) },
  { label: "max", value: "max", numeric: true, format: (v) => num(v as number | null) },
];

const binLabel = (i: number) => (i / REWARD_BINS).toFixed(2);

/** The headline: rows in, units kept. */
export function reportHeadline(r: DistillReport): string {
  return `${r.rows} input rows → ${r.kept} ${r.unit} kept (${r.format})${r.resumedGroups > 0 ? `, resumed after ${r.resumedGroups} written group(s)` : ""}${r.interrupted ? ", INTERRUPTED" : ""}`;
}

/**
 * The report as markdown (for a terminal, a PR, a CI log).
 * @example writeFileSync("distill.md", distillMarkdown(result.report))
 */
export function distillMarkdown(r: DistillReport): string {
  const bins = (side: SideStats) => side.reward.bins.map((n, i) => ({ bin: `${binLabel(i)}–${binLabel(i + 1)}`, n }));
  const before = bins(r.before);
  const after = bins(r.after);
  const dist = before.map((b, i) => ({ bin: b.bin, before: b.n, after: after[i].n })).filter((b) => b.before > 0 || b.after > 0);
  return mdJoin([
    mdHeading("Distillation report", 1),
    reportHeadline(r),
    r.warnings.length > 0 ? mdList(r.warnings.map((w) => `warning: ${w}`)) : null,
    mdHeading("Kept and dropped, stage by stage"),
    markdownTable(funnelRows(r), funnelColumns),
    Object.keys(r.errorCodes).length > 0 ? `Rows without a reward (errors, never counted as 0): ${Object.entries(r.errorCodes).map(([c, n]) => `${c} ×${n}`).join(", ")}` : null,
    mdHeading("Reward before and after"),
    markdownTable(rewardRows(r), rewardColumns),
    dist.length > 0 ? markdownTable(dist, [{ label: "reward", value: "bin" }, { label: "before", value: "before", numeric: true }, { label: "after", value: "after", numeric: true }]) : null,
    mdHeading("Criteria before and after"),
    Object.keys(r.before.criteria).length > 0 ? markdownTable(criterionRows(r), criterionColumns) : "No verdicts in the input.",
    Object.keys(r.tagCounts).length > 0 ? mdHeading("Kept per tag") : null,
    Object.keys(r.tagCounts).length > 0 ? markdownTable(Object.entries(r.tagCounts).map(([tag, n]) => ({ tag, n })), [{ label: "tag", value: "tag" }, { label: "kept", value: "n", numeric: true }]) : null,
  ]);
}

/**
 * The report as one self-contained HTML page with inline SVG charts.
 * @example writeFileSync("distill.html", distillHtml(result.report))
 */
export function distillHtml(r: DistillReport): string {
  const categories = r.before.reward.bins.map((_, i) => binLabel(i));
  const share = (side: SideStats) => side.reward.bins.map((n) => (side.reward.n > 0 ? n / side.reward.n : null));
  const crit = criterionRows(r);
  const sections = [
    { title: "Summary", html: paragraph(reportHeadline(r)) + r.warnings.map(warning).join("") },
    { title: "Kept and dropped", html: table(funnelRows(r), funnelColumns) + (Object.keys(r.errorCodes).length > 0 ? paragraph(`Rows without a reward (errors, never counted as 0): ${Object.entries(r.errorCodes).map(([c, n]) => `${c} ×${n}`).join(", ")}`) : "") },
    {
      title: "Reward distribution",
      html:
        table(rewardRows(r), rewardColumns) +
        groupedBarChart({ categories, series: [{ name: "before", values: share(r.before) }, { name: "after", values: share(r.after) }] }, { title: "Share of rows per reward bin", yLabel: "share", xLabel: "reward (bin start)", yMin: 0 }),
    },
    {
      title: "Criteria",
      html:
        crit.length === 0
          ? paragraph("No verdicts in the input.")
          : table(crit, criterionColumns) +
            groupedBarChart({ categories: crit.map((c) => c.id), series: [{ name: "before", values: crit.map((c) => c.before) }, { name: "after", values: crit.map((c) => c.after) }] }, { title: "Share met, before and after", yLabel: "met", yMin: 0, yMax: 1 }),
    },
  ];
  if (Object.keys(r.tagCounts).length > 0) sections.push({ title: "Kept per tag", html: table(Object.entries(r.tagCounts).map(([tag, n]) => ({ tag, n })), [{ label: "tag", value: "tag" }, { label: "kept", value: "n", numeric: true }]) });
  return htmlPage({ title: "Distillation report", subtitle: `format ${r.format}`, sections });
}
