/** CSV reading for labels files, over csv-parse (RFC 4180: quoted fields, doubled quotes, CRLF or LF, embedded newlines). */
import { CsvError, type Info } from "csv-parse";
import { parse } from "csv-parse/sync";
import { RubricateError } from "../errors.js";

/** One CSV record and the line it ends on (1-based; a quoted field may span lines). */
interface CsvRow {
  fields: string[];
  line: number;
}

/** Mixed line ends are read as written: csv-parse would otherwise keep to the first one it meets. */
const RECORD_DELIMITERS = ["\r\n", "\n", "\r"];

function readRows(text: string, file?: string): CsvRow[] {
  try {
    // csv-parse's types do not model `info: true` (each record comes with where it ended).
    const rows = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, record_delimiter: RECORD_DELIMITERS, info: true }) as unknown as { record: string[]; info: Info }[];
    // A line holding only `""` is as empty as a blank one.
    return rows.filter((r) => !(r.record.length === 1 && r.record[0] === "")).map((r) => ({ fields: r.record, line: r.info.lines }));
  } catch (e) {
    if (!(e instanceof CsvError)) throw e;
    const line = (e as CsvError & { lines?: number }).lines;
    throw new RubricateError("BAD_INPUT", `not valid CSV: ${e.message}`, { location: { file, line } });
  }
}

/**
 * Parses CSV text into rows of fields. A leading BOM is dropped and blank lines ignored; a
 * malformed file (an unterminated quote, say) is a `BAD_INPUT` error naming the line.
 * @example parseCsv('id,label\n"a,1",yes\n') // [["id","label"],["a,1","yes"]]
 */
export function parseCsv(text: string, file?: string): string[][] {
  return readRows(text, file).map((r) => r.fields);
}

/**
 * CSV text as objects keyed by the header row; a row with a different number of fields is a
 * `BAD_INPUT` error naming its line.
 * @example csvRecords("id,label\na,yes\n") // [{ record: { id: "a", label: "yes" }, row: 2 }]
 */
export function csvRecords(text: string, file?: string): { record: Record<string, string>; row: number }[] {
  const rows = readRows(text, file);
  if (rows.length === 0) return [];
  const header = rows[0].fields.map((h) => h.trim());
  // Two columns of one name: the record would keep the last one's value without a word.
  const twice = header.find((h, i) => header.indexOf(h) !== i);
  if (twice !== undefined) throw new RubricateError("BAD_INPUT", `the CSV header names the column "${twice}" twice`, { location: { file, line: rows[0].line } });
  return rows.slice(1).map(({ fields, line }, i) => {
    if (fields.length !== header.length) {
      throw new RubricateError("BAD_INPUT", `CSV row ${i + 2} has ${fields.length} fields, the header has ${header.length}`, { location: { file, line } });
    }
    return { record: Object.fromEntries(header.map((h, j) => [h, fields[j]])), row: i + 2 };
  });
}
