/**
 * Markdown summaries as a terminal shows them: tables as aligned columns, headings as plain
 * lines, and no markdown escapes ("0 \< 5" reads "0 < 5"). Files keep the markdown.
 */

const ESCAPED = /\\([\\`*_[\]<>|#+\-.!()])/g;
const RULE = /^\|(\s*:?-{3,}:?\s*\|)+\s*$/;

/** Removes markdown backslash escapes. */
export function unescapeMarkdown(text: string): string {
  return text.replace(ESCAPED, "$1");
}

/** A table row's cells: split on pipes that are not escaped, outer pipes dropped. */
function cellsOf(row: string): string[] {
  const cells = row.trim().replace(/^\|/, "").replace(/(?<!\\)\|$/, "").split(/(?<!\\)\|/);
  return cells.map((c) => unescapeMarkdown(c.trim()));
}

/** A markdown table block (header, rule, rows) as aligned columns; right-aligned where the rule says `---:`. */
function plainTable(block: string[]): string[] {
  const right = cellsOf(block[1]).map((c) => c.endsWith(":"));
  const rows = [block[0], ...block.slice(2)].map(cellsOf);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => widths.map((w, i) => (right[i] ? (r[i] ?? "").padStart(w) : (r[i] ?? "").padEnd(w))).join("  ").trimEnd();
  return [line(rows[0]), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)];
}

/**
 * Markdown (from the report builders) as plain terminal text.
 * @example terminalText("| a | n |\n| --- | ---: |\n| 0 \\< 5 | 3 |") // "a      n\n-----  -\n0 < 5  3"
 */
export function terminalText(markdown: string): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith("|") && RULE.test(lines[i + 1] ?? "")) {
      let end = i + 2;
      while (end < lines.length && lines[end].startsWith("|")) end++;
      out.push(...plainTable(lines.slice(i, end)));
      i = end - 1;
      continue;
    }
    const heading = /^#{1,6} (.*)$/.exec(line);
    out.push(unescapeMarkdown(heading ? heading[1] : line));
  }
  return out.join("\n");
}
