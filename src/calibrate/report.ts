/**
 * Calibration reports: a markdown summary for terminals and CI, and one self-contained HTML page
 * read at a glance: forest plots of the judges (full names, kappa and balanced F1 with 95%
 * intervals, sorted), then each judge's detail folded (metric bars, per-criterion comparison,
 * reliability diagram, disagreement review).
 */
import { formatInterval, formatNumber } from "../report/format.js";
import { type Column, type Section, details, htmlPage, paragraph, table, warning } from "../report/html.js";
import { escapeHtml as escapeText } from "../report/escape.js";
import { markdownTable, mdHeading, mdJoin, mdList } from "../report/markdown.js";
import { barChart, groupedBarChart, reliabilityDiagram } from "../report/svg.js";
import { FOREST_CSS, forestPlot } from "../report/forest.js";
import type { CalibrationResult, CriterionCalibration, Disagreement, GroupCalibration, MetricWithCI } from "./calibrate.js";
import { METRICS, type MetricName } from "./metrics.js";
import type { PairwiseSummary } from "./pairwise.js";
import { type JudgeRank, rankJudges } from "./rank.js";

/** Extra material for a report. */
export interface ReportExtras {
  title?: string;
  /** Pairwise summaries to show, by name (e.g. "gpt-4-vanilla on LLMBar natural"). */
  pairwise?: { name: string; summary: PairwiseSummary }[];
  /** Disagreements listed per criterion in markdown (default 5; HTML lists all). */
  markdownDisagreements?: number;
}

const ci = (m: MetricWithCI) => formatInterval(m.value, m.lo, m.hi);
const HEADLINE: MetricName[] = ["prevalence", "passRate", "accuracy", "kappa", "tpr", "tnr", "balancedF1"];
const labelOf = (name: MetricName) => METRICS.find((m) => m.name === name)?.label ?? name;

type CritRow = { name: string; g: GroupCalibration };
const criterionColumns: Column<CritRow>[] = [
  { label: "criterion", value: (r) => r.name },
  { label: "n", value: (r) => r.g.n, numeric: true },
  ...HEADLINE.map((m): Column<CritRow> => ({ label: labelOf(m), value: (r) => ci(r.g.metrics[m]), numeric: true })),
  { label: "corrected pass rate", value: (r) => (r.g.corrected.warning && r.g.corrected.value === null ? "n/a (TPR+TNR ≤ 1)" : formatInterval(r.g.corrected.value, r.g.corrected.lo, r.g.corrected.hi)), numeric: true },
];

const rows = (r: CalibrationResult): CritRow[] => [...r.criteria.map((c) => ({ name: c.criterion, g: c as GroupCalibration })), { name: "overall", g: r.overall }];

const rankColumns: Column<JudgeRank>[] = [
  { label: "rank", value: "rankByF1", numeric: true },
  { label: "judge", value: "judge" },
  { label: "n", value: "n", numeric: true },
  { label: "balanced F1", value: (r) => ci(r.balancedF1), numeric: true },
  { label: "kappa", value: (r) => ci(r.kappa), numeric: true },
  { label: "accuracy", value: (r) => ci(r.accuracy), numeric: true },
  { label: "cost (USD)", value: (r) => (r.costUsd === undefined ? "—" : r.costUsd.toFixed(4)), numeric: true },
  { label: "cost rank", value: (r) => r.rankByCost ?? "—", numeric: true },
  { label: "Pareto", value: (r) => (r.pareto ? "yes" : "") },
];

type AgreeRow = { who: string; n: number; kappa: number | null; agreement: number | null };
const agreeColumns: Column<AgreeRow>[] = [
  { label: "annotators", value: "who" },
  { label: "n", value: "n", numeric: true },
  { label: "kappa", value: (r) => formatNumber(r.kappa), numeric: true },
  { label: "agreement", value: (r) => formatNumber(r.agreement), numeric: true },
];
function agreementRows(g: GroupCalibration): AgreeRow[] {
  const h = g.humanAgreement;
  if (!h) return [];
  return [
    ...h.pairwise.map((p) => ({ who: `${p.a} vs ${p.b}`, n: p.n, kappa: p.value, agreement: p.agreement })),
    ...h.vsMajority.map((v) => ({ who: `${v.annotator} vs others' majority`, n: v.n, kappa: v.value, agreement: v.agreement })),
  ];
}

type PairRow = { name: string; s: PairwiseSummary };
const pairColumns: Column<PairRow>[] = [
  { label: "judge / data", value: "name" },
  { label: "n", value: (r) => r.s.n, numeric: true },
  { label: "agreement", value: (r) => formatInterval(r.s.agreement.value, r.s.agreement.lo, r.s.agreement.hi), numeric: true },
  { label: "position consistency", value: (r) => formatInterval(r.s.positionConsistency.value, r.s.positionConsistency.lo, r.s.positionConsistency.hi), numeric: true },
  { label: "accuracy when consistent", value: (r) => formatInterval(r.s.accuracyOnConsistent.value, r.s.accuracyOnConsistent.lo, r.s.accuracyOnConsistent.hi), numeric: true },
  { label: "macro F1 (1/2/tie)", value: (r) => formatNumber(r.s.macro.f1), numeric: true },
  { label: "human ties", value: (r) => r.s.humanTies, numeric: true },
  { label: "judge ties", value: (r) => r.s.judgeTies, numeric: true },
  { label: "unreadable", value: (r) => r.s.unparseable, numeric: true },
];

const yesNo = (b: boolean) => (b ? "yes" : "no");
const disagreementColumns: Column<Disagreement>[] = [
  { label: "sample", value: "sampleId" },
  { label: "human", value: (d) => yesNo(d.human) },
  { label: "judge", value: (d) => yesNo(d.judge) },
  { label: "P(yes)", value: (d) => d.probability, numeric: true },
  { label: "judge's reason", value: (d) => d.reasoning ?? "" },
];

/**
 * A markdown summary of one or more judges' calibration.
 * @example console.log(calibrationMarkdown([result]))
 */
export function calibrationMarkdown(results: readonly CalibrationResult[], extras: ReportExtras = {}): string {
  const blocks: (string | null)[] = [mdHeading(extras.title ?? "Judge calibration", 1)];
  if (results.length > 1) blocks.push(mdHeading("Ranking", 2), markdownTable(rankJudges(results), rankColumns));
  if (extras.pairwise?.length) blocks.push(mdHeading("Pairwise agreement", 2), markdownTable(extras.pairwise.map((p) => ({ name: p.name, s: p.summary })), pairColumns));
  const limit = extras.markdownDisagreements ?? 5;
  for (const r of results) {
    blocks.push(mdHeading(`Judge: ${r.judge}`, 2), `95% bootstrap intervals, ${r.resamples} resamples, seed ${r.seed}.`);
    blocks.push(markdownTable(rows(r), criterionColumns));
    const agree = agreementRows(r.overall);
    if (agree.length) blocks.push(mdHeading("Human agreement (the ceiling)", 3), markdownTable(agree, agreeColumns));
    const p = r.overall.probability;
    if (p) {
      const t = (s: typeof p.youden) => (s ? `threshold ${formatNumber(s.threshold)} (J = ${formatNumber(s.youdenJ)}) → accuracy ${formatNumber(s.metrics.accuracy)}, balanced F1 ${formatNumber(s.metrics.balancedF1)}` : "n/a");
      blocks.push(mdHeading("Probabilities", 3), mdList([`n = ${p.n}, ECE ${formatNumber(p.ece)}, Brier ${formatNumber(p.brier)}`, `Youden's J: ${t(p.youden)}`, `matching human prevalence: ${t(p.prevalenceMatch)}`]));
    }
    if (r.warnings.length) blocks.push(mdHeading("Warnings", 3), mdList(r.warnings));
    for (const c of r.criteria) {
      if (c.disagreements.length === 0 || limit <= 0) continue;
      blocks.push(mdHeading(`Disagreements on ${c.criterion} (${c.disagreements.length}; first ${Math.min(limit, c.disagreements.length)})`, 3));
      blocks.push(markdownTable(c.disagreements.slice(0, limit), disagreementColumns));
    }
  }
  return mdJoin(blocks);
}

function metricBars(g: GroupCalibration, title: string): string {
  return barChart(
    HEADLINE.map((m) => ({ label: labelOf(m), value: g.metrics[m].value, lo: g.metrics[m].lo, hi: g.metrics[m].hi })),
    { title, yLabel: "value (95% CI)", yMax: 1, yMin: Math.min(0, g.metrics.kappa.lo ?? 0) },
  );
}

function criterionSection(c: CriterionCalibration): string {
  const parts = [metricBars(c, `${c.criterion}: metrics with 95% intervals`)];
  if (c.corrected.warning) parts.push(warning(c.corrected.warning));
  if (c.probability) parts.push(reliabilityDiagram(c.probability.bins, { title: `${c.criterion}: reliability (ECE ${formatNumber(c.probability.ece)})` }));
  parts.push(
    details(
      `${c.disagreements.length} disagreements to review`,
      table(c.disagreements, disagreementColumns, { rowAttrs: (d) => ({ "data-criterion": d.criterion, "data-human": yesNo(d.human) }) }),
      c.disagreements.length > 0 && c.disagreements.length <= 20,
    ),
  );
  return parts.join("\n");
}

/**
 * One self-contained HTML page for one or more judges.
 * @example writeFileSync("cal.html", calibrationHtml([result]))
 */
export function calibrationHtml(results: readonly CalibrationResult[], extras: ReportExtras = {}): string {
  const sections: Section[] = [];
  const many = results.length > 1;
  const anchor = (i: number) => `judge-${i + 1}`;
  if (many) {
    const ranks = rankJudges(results);
    const at = (judge: string) => anchor(results.findIndex((r) => r.judge === judge));
    const forest = (title: string, pick: (r: JudgeRank) => MetricWithCI) => forestPlot(ranks.map((r) => ({ label: r.judge, href: at(r.judge), ...pick(r) })), { title });
    sections.push({
      title: "Judges at a glance",
      html: [
        forest("Cohen's kappa with the human labels (95% CI), highest first", (r) => r.kappa),
        forest("Balanced F1 (95% CI), highest first", (r) => r.balancedF1),
        details("Ranking table (balanced F1, kappa, accuracy, cost)", table(ranks, rankColumns)),
      ].join("\n"),
    });
  }
  if (extras.pairwise?.length) {
    sections.push({ title: "Pairwise agreement", html: table(extras.pairwise.map((p) => ({ name: p.name, s: p.summary })), pairColumns) });
  }
  results.forEach((r, i) => {
    const parts = [paragraph(`95% percentile bootstrap intervals, ${r.resamples} resamples, seed ${r.seed}. ${r.overall.n} paired items.`)];
    parts.push(table(rows(r), criterionColumns));
    if (r.criteria.length > 1) {
      parts.push(
        groupedBarChart(
          { categories: r.criteria.map((c) => c.criterion), series: (["accuracy", "kappa", "balancedF1"] as MetricName[]).map((m) => ({ name: labelOf(m), values: r.criteria.map((c) => c.metrics[m].value) })) },
          { title: `${r.judge}: per criterion`, yMax: 1 },
        ),
      );
    }
    parts.push(metricBars(r.overall, `${r.judge}: overall metrics with 95% intervals`));
    const agree = agreementRows(r.overall);
    if (agree.length) parts.push("<h3>Human agreement (the ceiling a judge can be held to)</h3>", table(agree, agreeColumns));
    const p = r.overall.probability;
    if (p) {
      parts.push(reliabilityDiagram(p.bins, { title: `${r.judge}: reliability (ECE ${formatNumber(p.ece)}, Brier ${formatNumber(p.brier)})` }));
      const th = [
        { rule: "Youden's J", s: p.youden },
        { rule: "match human prevalence", s: p.prevalenceMatch },
      ];
      parts.push(
        table(th, [
          { label: "threshold rule", value: "rule" },
          { label: "threshold", value: (t) => t.s?.threshold, numeric: true },
          { label: "accuracy", value: (t) => t.s?.metrics.accuracy, numeric: true },
          { label: "kappa", value: (t) => t.s?.metrics.kappa, numeric: true },
          { label: "balanced F1", value: (t) => t.s?.metrics.balancedF1, numeric: true },
          { label: "pass rate", value: (t) => t.s?.metrics.passRate, numeric: true },
        ]),
      );
    }
    for (const w of r.warnings) parts.push(warning(w));
    for (const c of r.criteria) parts.push(`<h3>${escapeText(c.criterion)}</h3>`, criterionSection(c));
    // With several judges the page opens on the forest plots; each judge's detail is one click away.
    const headline = `kappa ${ci(r.overall.metrics.kappa)}, balanced F1 ${ci(r.overall.metrics.balancedF1)}, n ${r.overall.n}`;
    sections.push({ id: anchor(i), title: `Judge: ${r.judge}`, html: many ? paragraph(headline) + details(`Detail for ${r.judge}`, parts.join("\n")) : parts.join("\n") });
  });
  return htmlPage({ title: extras.title ?? "Judge calibration", subtitle: `${results.length} judge(s)`, sections, css: FOREST_CSS });
}
