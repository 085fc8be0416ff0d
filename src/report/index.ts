/**
 * The report kit for a report of your own: a self-contained HTML page of sections, tables, inline
 * SVG charts, markdown tables and number formatting. The string plumbing the built-in reports share
 * (slugs, markdown joining, HTML fragments, the palette, the CSP) stays internal: import it from the
 * files under src/report/ inside this package.
 */
export { barChart, groupedBarChart, histogram, lineChart, reliabilityDiagram } from "./svg.js";
export type { Bar, ChartOptions, GroupedBars, HistogramBin, LineSeries, ReliabilityBinInput } from "./svg.js";
export { htmlPage, table, escapeHtml } from "./html.js";
export type { Column, PageOptions, Section } from "./html.js";
export { markdownTable, escapeMarkdown } from "./markdown.js";
export { formatNumber, formatPercent, formatInterval } from "./format.js";
export { forestPlot, FOREST_CSS } from "./forest.js";
