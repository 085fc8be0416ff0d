import { barChart, groupedBarChart, histogram } from "../report/svg.js";
import { details, escapeHtml, htmlPage, paragraph, pre, table, type Column, type Section } from "../report/html.js";
import { formatInterval, formatNumber, formatPercent, formatUsd } from "../report/format.js";
import { markdownTable, mdHeading, mdJoin } from "../report/markdown.js";
import { renderTranscript } from "./sample.js";
import { compareModels, failedCriteria, MIN_PAIRED_TASKS, type CompareOptions, type EvalComparison, type ModelStats, type PairComparison } from "./stats.js";
import type { RolloutRecord } from "./types.js";

/** What a report is about. */
export interface ReportInfo {
  env: string;
  /** Shown under the title, e.g. the command line or the date. */
  subtitle?: string;
}

/** Longest transcript shown per rollout in the HTML report, in characters. */
const MAX_TRANSCRIPT = 20_000;
/** Bins of the reward histograms. */
export const REWARD_BINS = 10;

/**
 * Short chart labels for model ids: the bare model name when that is unambiguous, else without
 * the server URL, else the full id (tables always show the full id).
 */
export function shortModelNames(models: string[]): Map<string, string> {
  const candidates = [(m: string) => m.replace(/@.*$/, "").replace(/^[a-z-]+:/, ""), (m: string) => m.replace(/@.*$/, ""), (m: string) => m];
  for (const f of candidates) {
    const names = models.map(f);
    if (new Set(names).size === names.length) return new Map(models.map((m, i) => [m, names[i]]));
  }
  return new Map(models.map((m) => [m, m]));
}

const maxK = (m: ModelStats) => Math.max(0, ...Object.keys(m.passAtK).map(Number));

function comparisonColumns(cmp: EvalComparison, name: (model: string) => string = (m) => m): Column<ModelStats>[] {
  return [
    { label: "model", value: (m) => name(m.model) },
    { label: "tasks", value: "tasks", numeric: true },
    { label: "rollouts", value: "rollouts", numeric: true },
    { label: "errors", value: "errors", numeric: true },
    { label: "mean reward [95% CI]", value: (m) => m.reward, format: (_v, m) => formatInterval(m.reward?.mean, m.reward?.low, m.reward?.high), numeric: true },
    { label: `pass rate (≥ ${cmp.passThreshold})`, value: (m) => m.passRate, format: (v) => formatPercent(v as number | undefined), numeric: true },
    { label: "pass@1", value: (m) => m.passAtK[1], format: (v) => formatPercent(v as number | undefined), numeric: true },
    { label: "pass@k", value: (m) => m.passAtK[maxK(m)], format: (v, m) => (maxK(m) > 1 ? `${formatPercent(v as number)} (k=${maxK(m)})` : "—"), numeric: true },
    { label: "pass^k", value: (m) => m.passHatK[maxK(m)], format: (v, m) => (maxK(m) > 1 ? `${formatPercent(v as number)} (k=${maxK(m)})` : "—"), numeric: true },
    { label: "mean turns", value: "meanTurns", format: (v) => formatNumber(v as number, 1), numeric: true },
    { label: "policy tokens in/out", value: (m) => `${m.usage.policy.inputTokens} / ${m.usage.policy.outputTokens}`, numeric: true },
    { label: "judge tokens in/out", value: (m) => `${m.usage.judge.inputTokens} / ${m.usage.judge.outputTokens}`, numeric: true },
    { label: "cost", value: (m) => m.usage.costUsd, format: (v) => formatUsd(v as number), numeric: true },
  ];
}

function pairColumns(name: (model: string) => string = (m) => m): Column<PairComparison>[] {
  return [
    { label: "model A", value: (p) => name(p.a) },
    { label: "model B", value: (p) => name(p.b) },
    { label: "shared tasks", value: "tasks", numeric: true },
    { label: "A − B [95% CI]", value: "diff", format: (_v, p) => formatInterval(p.diff, p.low, p.high), numeric: true },
    { label: "p", value: "p", format: (v) => formatNumber(v as number, 3), numeric: true },
    {
      label: "significant",
      value: (p) => (p.tasks < MIN_PAIRED_TASKS ? `too few tasks to say (${p.tasks} < ${MIN_PAIRED_TASKS})` : p.significant ? (p.diff > 0 ? "yes: A better" : "yes: B better") : "no"),
    },
  ];
}

type CriterionRow = { id: string; rates: (number | null)[] };

function criterionRows(cmp: EvalComparison): CriterionRow[] {
  return cmp.criteria.map((id) => ({ id, rates: cmp.models.map((m) => m.criteria.find((c) => c.id === id)?.rate ?? null) }));
}

function criterionColumns(cmp: EvalComparison, name: (model: string) => string = (m) => m): Column<CriterionRow>[] {
  return [{ label: "criterion", value: "id" }, ...cmp.models.map((m, i): Column<CriterionRow> => ({ label: name(m.model), value: (r) => r.rates[i], format: (v) => formatPercent(v as number | null), numeric: true }))];
}

const FILTER_SCRIPT = `(function(){
var c=document.getElementById('filter-criterion'),m=document.getElementById('filter-model'),n=document.getElementById('shown-count');
function apply(){var cv=c.value,mv=m.value,shown=0;
document.querySelectorAll('tr.rollout').forEach(function(tr){
var ok=(cv===''||(' '+tr.getAttribute('data-failed')+' ').indexOf(' '+cv+' ')>=0)&&(mv===''||tr.getAttribute('data-model')===mv);
tr.hidden=!ok;if(ok)shown++;});
n.textContent=String(shown);}
c.addEventListener('change',apply);m.addEventListener('change',apply);apply();})();`;

function rolloutDetails(r: RolloutRecord): string {
  const transcript = renderTranscript(r.messages);
  const shown = transcript.length > MAX_TRANSCRIPT ? `${transcript.slice(0, MAX_TRANSCRIPT)}\n[… cut]` : transcript;
  const verdicts = table(r.verdicts, [
    { label: "criterion", value: "id" },
    { label: "status", value: "status" },
    { label: "points", value: "earned", format: (_v, v) => `${v.earned} / ${v.points}`, numeric: true },
    { label: "source", value: "source" },
    { label: "reason", value: (v) => v.reasoning ?? v.error?.message ?? "" },
  ]);
  const errors = r.errors.length ? pre(r.errors.map((e) => `${e.criterion}: ${e.code}: ${e.message}`).join("\n")) : "";
  return details("transcript and verdicts", `${verdicts}${errors}${pre(shown)}`);
}

function rolloutsSection(records: RolloutRecord[], cmp: EvalComparison, name: (model: string) => string): string {
  const failures = new Map<string, number>();
  for (const r of records) for (const id of failedCriteria(r)) failures.set(id, (failures.get(id) ?? 0) + 1);
  const options = cmp.criteria.filter((id) => failures.has(id)).map((id) => `<option value="${escapeHtml(id)}">${escapeHtml(id)} (${failures.get(id)})</option>`).join("");
  const models = cmp.models.map((m) => `<option value="${escapeHtml(m.model)}">${escapeHtml(name(m.model))}</option>`).join("");
  const controls =
    `<p><label>Failed criterion <select id="filter-criterion"><option value="">any</option>${options}</select></label> ` +
    `<label>Model <select id="filter-model"><option value="">all</option>${models}</select></label> ` +
    `<span class="muted"><span id="shown-count">${records.length}</span> of ${records.length} rollouts shown</span></p>`;
  const rows = table(
    records,
    [
      { label: "model", value: (r) => name(r.model) },
      { label: "task", value: "task" },
      { label: "#", value: "rollout", numeric: true },
      { label: "reward", value: "reward", format: (v) => formatNumber(v as number | null), numeric: true },
      { label: "turns", value: "turns", numeric: true },
      { label: "stop", value: "stopReason" },
      { label: "failed criteria", value: (r) => failedCriteria(r).join(", ") || (r.errors.length ? `errors: ${r.errors.map((e) => e.code).join(", ")}` : "—") },
      { label: "details", value: (r) => rolloutDetails(r), html: true },
    ],
    { className: "rollouts", rowAttrs: (r) => ({ class: "rollout", "data-model": r.model, "data-failed": failedCriteria(r).join(" ") }) },
  );
  return controls + rows;
}

/** The full id behind each short label, once, so tables can use the short one. */
function modelLegend(cmp: EvalComparison, name: (model: string) => string): string {
  const items = cmp.models.filter((m) => name(m.model) !== m.model).map((m) => `<li><b>${escapeHtml(name(m.model))}</b>: <code>${escapeHtml(m.model)}</code></li>`);
  return items.length ? `<p class="muted">Models:</p><ul class="models">${items.join("")}</ul>` : "";
}

/**
 * The eval report: one self-contained HTML page (inline CSS, SVG and script; no request leaves
 * it) with the comparison, reward charts, per-criterion pass rates and every rollout, filterable
 * by failed criterion and model.
 * @example writeFileSync("report.html", evalReportHtml(records, { env: env.id }, { passThreshold: 0.6 }))
 */
export function evalReportHtml(records: RolloutRecord[], info: ReportInfo, options: CompareOptions = {}): string {
  const cmp = compareModels(records, options);
  const short = shortModelNames(cmp.models.map((m) => m.model));
  const name = (model: string) => short.get(model) ?? model;
  const sections: Section[] = [
    {
      title: "Comparison",
      id: "comparison",
      html:
        table(cmp.models, comparisonColumns(cmp, name), { className: "comparison" }) +
        paragraph("Intervals: 95% bootstrap over tasks. pass@k: at least one of k rollouts passes (Chen et al. 2021); pass^k: all k pass (τ-bench).", "muted") +
        modelLegend(cmp, name),
    },
    {
      title: "Mean reward",
      id: "mean-reward",
      html: barChart(
        cmp.models.map((m) => ({ label: name(m.model), value: m.reward?.mean ?? null, lo: m.reward?.low, hi: m.reward?.high })),
        { title: "Mean reward per model (95% CI)", yMin: 0, yMax: 1, yLabel: "reward" },
      ),
    },
    {
      title: "Reward distribution",
      id: "reward-distribution",
      html: cmp.models
        .map((m) => histogram(records.filter((r) => r.model === m.model && r.reward !== null).map((r) => r.reward!), { title: `Rewards: ${name(m.model)}`, bins: REWARD_BINS, min: 0, max: 1, xLabel: "reward", height: 220 }))
        .join(""),
    },
    {
      title: "Criteria",
      id: "criteria",
      html:
        groupedBarChart(
          { categories: cmp.criteria, series: cmp.models.map((m) => ({ name: name(m.model), values: cmp.criteria.map((id) => m.criteria.find((c) => c.id === id)?.rate ?? null) })) },
          { title: "Share of rollouts that got each criterion right", yMin: 0, yMax: 1, yLabel: "pass rate", width: Math.max(640, 90 * cmp.criteria.length) },
        ) + table(criterionRows(cmp), criterionColumns(cmp, name)),
    },
  ];
  if (cmp.pairs.length) {
    const note = `Paired bootstrap over the tasks both models ran: per-task mean rewards, 2000 resamples; no claim either way with fewer than ${MIN_PAIRED_TASKS} shared tasks.`;
    sections.push({ title: "Paired comparisons", id: "pairs", html: table(cmp.pairs, pairColumns(name)) + paragraph(note, "muted") });
  }
  sections.push({ title: "Rollouts", id: "rollouts", html: rolloutsSection(records, cmp, name) });
  const css =
    "tr.rollout[hidden]{display:none}table.rollouts td:first-child{max-width:200px;word-break:break-all}table.rollouts td:last-child{min-width:520px}" +
    "table.comparison{font-size:13px}table.comparison td,table.comparison th{padding:3px 6px}table.comparison td.num{white-space:nowrap}table.comparison td:first-child{max-width:160px;overflow-wrap:anywhere}" +
    "ul.models code{overflow-wrap:anywhere}";
  return htmlPage({ title: `Eval: ${info.env}`, subtitle: info.subtitle, sections, script: FILTER_SCRIPT, css });
}

/**
 * A markdown summary of an eval for terminals and CI logs: comparison, criteria, paired tests.
 * @example process.stdout.write(evalMarkdown(records, { env: env.id }))
 */
export function evalMarkdown(records: RolloutRecord[], info: ReportInfo, options: CompareOptions = {}): string {
  const cmp = compareModels(records, options);
  return mdJoin([
    mdHeading(`Eval: ${info.env}`, 2),
    info.subtitle,
    markdownTable(cmp.models, comparisonColumns(cmp)),
    mdHeading("Criteria (share right)", 3),
    markdownTable(criterionRows(cmp), criterionColumns(cmp)),
    cmp.pairs.length ? mdHeading("Paired comparisons", 3) : undefined,
    cmp.pairs.length ? markdownTable(cmp.pairs, pairColumns()) : undefined,
  ]);
}
