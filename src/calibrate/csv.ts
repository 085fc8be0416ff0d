/** A small RFC 4180 CSV reader: quoted fields, doubled quotes, CRLF or LF, embedded newlines. */
import { RubricateError } from "../errors.js";

/**
 * Parses CSV text into rows of fields. A leading BOM is dropped and a final empty line ignored;
 * an unterminated quote is a `BAD_INPUT` error naming the line it opened on.
 * @example parseCsv('id,label\n"a,1",yes\n') // [["id","label"],["a,1","yes"]]
 */
export function parseCsv(text: string, file?: string): string[][] {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let quoteLine = 0;
  let line = 1;
  let i = 0;
  let fieldStarted = false;
  while (i < src.length) {
    const ch = src[i];
    if (quoted) {
      if (ch === '"') {
        if (src[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      if (ch === "\n") line++;
      field += ch;
      i++;
      continue;
    }
    if (ch === '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
      quoteLine = line;
      i++;
    } else if (ch === ",") {
      row.push(field);
      field = "";
      fieldStarted = false;
      i++;
    } else if (ch === "\r" || ch === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      fieldStarted = false;
      i += ch === "\r" && src[i + 1] === "\n" ? 2 : 1;
      line++;
    } else {
      field += ch;
      fieldStarted = true;
      i++;
    }
  }
  if (quoted) throw new RubricateError("BAD_INPUT", "unterminated quoted CSV field", { location: { file, line: quoteLine } });
  if (fieldStarted || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ""));
}

/**
 * CSV text as objects keyed by the header row; a row with a different number of fields is a `BAD_INPUT` error.
 * @example csvRecords("id,label\na,yes\n") // [{ id: "a", label: "yes" }]
 */
export function csvRecords(text: string, file?: string): { record: Record<string, string>; row: number }[] {
  const rows = parseCsv(text, file);
  if (rows.length === 0) return [];
  const header = rows[0].map((h) => h.trim());
  return rows.slice(1).map((r, i) => {
    if (r.length !== header.length) {
      throw new RubricateError("BAD_INPUT", `CSV row ${i + 2} has ${r.length} fields, the header has ${header.length}`, { location: { file } });
    }
    return { record: Object.fromEntries(header.map((h, j) => [h, r[j]])), row: i + 2 };
  });
}
