/** The report kit: inline SVG charts, self-contained HTML pages, markdown summaries. */
export { barChart, groupedBarChart, histogram, histogramBins, lineChart, reliabilityDiagram, PALETTE } from "./svg.js";
export type { Bar, ChartOptions, GroupedBars, HistogramBin, LineSeries, ReliabilityBinInput } from "./svg.js";
export { htmlPage, table, escapeHtml, paragraph, warning, details, pre, slug, cellText, REPORT_CSP } from "./html.js";
export type { Column, PageOptions, Section } from "./html.js";
export { markdownTable, escapeMarkdown, escapeMarkdownCell, mdHeading, mdList, mdJoin } from "./markdown.js";
export { formatNumber, formatPercent, formatInterval } from "./format.js";
export { forestPlot, FOREST_CSS } from "./forest.js";
