/** Markdown summaries for terminals and CI logs. */
import { type Column, cellText, columnValue } from "./html.js";

export { formatInterval, formatNumber, formatPercent } from "./format.js";

/**
 * Escapes text for a markdown table cell: pipes, backslashes, newlines, emphasis/code/HTML marks, link brackets.
 * @example escapeMarkdownCell("a|b\nc") // "a\\|b c"
 */
export function escapeMarkdownCell(text: unknown): string {
  const s = String(text ?? "")
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/\r?\n|\r/g, " ")
    .replace(/([`*<>])/g, "\\$1")
    .replace(/(^|[^A-Za-z0-9])_|_(?=[^A-Za-z0-9]|$)/g, (m) => m.replace("_", "\\_"));
  return s.includes("](") ? s.replace(/([[\]])/g, "\\$1") : s;
}

/**
 * Escapes text for markdown prose: markup characters and leading `#`, `-`, `>`, digits-dot.
 * @example escapeMarkdown("*not bold*") // "\\*not bold\\*"
 */
export function escapeMarkdown(text: unknown): string {
  return String(text ?? "")
    .replace(/([\\`*_[\]<>|#])/g, "\\$1")
    .replace(/^(\s*)([-+>]|\d+\.)(\s)/gm, "$1\\$2$3");
}

/**
 * A GitHub-flavoured markdown table; numeric columns are right-aligned; every cell escaped.
 * @example markdownTable([{ id: "a", n: 3 }], [{ label: "id", value: "id" }, { label: "n", value: "n", numeric: true }])
 */
export function markdownTable<Row>(rows: Row[], columns: Column<Row>[]): string {
  const head = `| ${columns.map((c) => escapeMarkdownCell(c.label)).join(" | ")} |`;
  const rule = `| ${columns.map((c) => (c.numeric ? "---:" : "---")).join(" | ")} |`;
  const body = rows.map((row) => {
    const cells = columns.map((c) => {
      const v = columnValue(row, c);
      return escapeMarkdownCell(c.format ? c.format(v, row) : cellText(v));
    });
    return `| ${cells.join(" | ")} |`;
  });
  return [head, rule, ...body].join("\n");
}

/** A markdown heading of the given level (1–6), text escaped. */
export function mdHeading(text: string, level = 2): string {
  const l = Math.min(6, Math.max(1, Math.floor(level)));
  return `${"#".repeat(l)} ${escapeMarkdown(text)}`;
}

/** A bulleted list, items escaped. */
export function mdList(items: string[]): string {
  return items.map((i) => `- ${escapeMarkdown(i).replace(/\r?\n/g, " ")}`).join("\n");
}

/** Joins markdown blocks with blank lines, skipping empty ones. */
export function mdJoin(blocks: (string | undefined | null | false)[]): string {
  return `${blocks.filter((b): b is string => typeof b === "string" && b.length > 0).join("\n\n")}\n`;
}
