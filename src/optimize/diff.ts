/** One line of a line diff: kept, added or removed. */
export interface DiffLine {
  op: "same" | "add" | "del";
  text: string;
}

/**
 * A line diff of `before` → `after` from their longest common subsequence of lines
 * (O(n·m); meant for prompts, not large files).
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split("\n");
  const b = after.split("\n");
  const n = a.length;
  const m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: "same", text: a[i] });
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) out.push({ op: "del", text: a[i++] });
    else out.push({ op: "add", text: b[j++] });
  }
  while (i < n) out.push({ op: "del", text: a[i++] });
  while (j < m) out.push({ op: "add", text: b[j++] });
  return out;
}

/** The diff in unified style: `  ` kept, `+ ` added, `- ` removed. */
export function formatDiff(lines: readonly DiffLine[]): string {
  return lines.map((l) => `${l.op === "same" ? " " : l.op === "add" ? "+" : "-"} ${l.text}`).join("\n");
}
