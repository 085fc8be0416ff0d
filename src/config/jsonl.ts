/**
 * JSON Lines input, one object a line, located by line number. A bad line is reported, not
 * fatal: callers decide whether to stop at it (`readJsonl` without `onBadLine`) or to go on with
 * the good lines and report every bad one. A UTF-8 byte order mark is accepted; a line longer than
 * `maxLineBytes` is a bad line, skipped without ever being held whole in memory; so is a line that
 * is not UTF-8 text (named at its first invalid byte) and one whose `id` is a whole number too
 * large to read exactly.
 */
import { createReadStream, fstatSync } from "node:fs";
import { RubricateError, type ErrorCode } from "../errors.js";
import { parseJsonLine, parseJsonText } from "../text/json.js";
import { decodeUtf8, invalidUtf8Message } from "../text/utf8.js";

/** Lines longer than this are bad lines (V8 cannot hold a string much past 512 MB, and JSON.parse of one needs several times that). */
export const MAX_JSONL_LINE_BYTES = 64 * 1024 * 1024;

/** A line that is not a JSON object: where it is (the column where one is known: 1-based, in characters) and why. */
export interface BadLine {
  file: string;
  line: number;
  col?: number;
  message: string;
}

/** One line of a JSONL input: an object, or why it is not one. */
export type JsonlEntry = { line: number; value: Record<string, unknown> } | { line: number; bad: BadLine };

export interface JsonlReadOptions {
  /** Longest line accepted, in bytes (default `MAX_JSONL_LINE_BYTES`). */
  maxLineBytes?: number;
  /** The name used in messages (default the path; "<stdin>" for "-"). */
  name?: string;
}

const NEWLINE = 0x0a;

/** A raw line: its text; or, for a line over the limit, its length only; or where a line that is not UTF-8 text stops being it. */
type RawLine = { text: string } | { tooLong: number } | { notUtf8: { col: number; byte: number } };

/** Raw lines of a byte stream, split on "\n" (a trailing "\r" dropped). */
async function* splitLines(input: AsyncIterable<Buffer | string>, maxLineBytes: number): AsyncGenerator<RawLine> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  const take = (last: Buffer): RawLine => {
    const whole = pending.length ? Buffer.concat([...pending, last]) : last;
    pending = [];
    pendingBytes = 0;
    const end = whole.length > 0 && whole[whole.length - 1] === 0x0d ? whole.length - 1 : whole.length;
    const read = decodeUtf8(whole.subarray(0, end));
    return "bad" in read ? { notUtf8: read.bad } : read;
  };
  for await (const raw of input) {
    const chunk = typeof raw === "string" ? Buffer.from(raw) : raw;
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) {
        const rest = chunk.length - start;
        if (rest === 0) break;
        if (!skipping && pendingBytes + rest > maxLineBytes) {
          skipping = true;
          pending = [];
        }
        if (!skipping) pending.push(chunk.subarray(start, chunk.length));
        pendingBytes += rest;
        break;
      }
      const piece = chunk.subarray(start, nl);
      if (skipping || pendingBytes + piece.length > maxLineBytes) {
        yield { tooLong: pendingBytes + piece.length };
        pending = [];
        pendingBytes = 0;
        skipping = false;
      } else {
        yield take(piece);
      }
      start = nl + 1;
    }
  }
  if (skipping) yield { tooLong: pendingBytes };
  else if (pendingBytes > 0) yield take(Buffer.alloc(0));
}

/**
 * Every non-blank line of a JSONL file ("-" reads stdin) as an object or a bad line, in order.
 * A missing file is a FILE_NOT_FOUND error.
 * @example for await (const e of jsonlEntries("s.jsonl")) if ("bad" in e) console.error(e.bad.line)
 */
export async function* jsonlEntries(path: string, options: JsonlReadOptions = {}): AsyncGenerator<JsonlEntry> {
  const file = options.name ?? (path === "-" ? "<stdin>" : path);
  const maxLineBytes = options.maxLineBytes ?? MAX_JSONL_LINE_BYTES;
  // Node ends a stdin that is a folder (`- < dir`) as if it were empty: say what it is instead.
  if (path === "-" && stdinIsFolder()) throw new RubricateError("BAD_INPUT", "standard input is a folder, not a JSONL file");
  const input = path === "-" ? process.stdin : createReadStream(path);
  let line = 0;
  try {
    for await (const piece of splitLines(input as AsyncIterable<Buffer>, maxLineBytes)) {
      line++;
      if ("tooLong" in piece) {
        yield { line, bad: { file, line, message: `line is ${piece.tooLong} bytes, over the ${maxLineBytes}-byte limit` } };
        continue;
      }
      if ("notUtf8" in piece) {
        yield { line, bad: { file, line, col: piece.notUtf8.col, message: invalidUtf8Message(piece.notUtf8.byte) } };
        continue;
      }
      let text = piece.text;
      // An editor does not show the mark: columns count from the character after it.
      if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.trim() === "") continue;
      const parsed = parseJsonLine(text);
      if ("reason" in parsed) {
        yield { line, bad: { file, line, col: parsed.col, message: `invalid JSON: ${parsed.reason}` } };
        continue;
      }
      const value = parsed.value;
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        yield { line, bad: { file, line, col: text.search(/\S/) + 1, message: "each line must be a JSON object" } };
        continue;
      }
      const roundedId = roundedIdColumn(value as Record<string, unknown>, text);
      if (roundedId !== undefined) {
        yield { line, bad: { file, line, col: roundedId, message: `id ${JSON.stringify((value as Record<string, unknown>).id)} is a whole number past 2^53: JSON numbers that large are read rounded, so two samples could share an id; write it as a string` } };
        continue;
      }
      yield { line, value: value as Record<string, unknown> };
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new RubricateError("FILE_NOT_FOUND", `no such file: ${path}`);
    if ((e as NodeJS.ErrnoException).code === "EISDIR") throw new RubricateError("BAD_INPUT", `${path} is a folder, not a JSONL file`);
    throw e;
  } finally {
    if (path !== "-") (input as ReturnType<typeof createReadStream>).destroy();
  }
}

/**
 * The column of a line's `"id"` key when its id is a whole number past 2^53, else undefined.
 * JSON.parse reads 1234567890123456789 and …790 both as 1234567890123456800: results could no
 * longer be joined back to their samples. Other numbers are measurements, where the nearest
 * double is what JSON means.
 */
function roundedIdColumn(value: Record<string, unknown>, text: string): number | undefined {
  const id = value.id;
  if (typeof id !== "number" || !Number.isInteger(id) || Number.isSafeInteger(id)) return undefined;
  return Math.max(text.indexOf('"id"'), 0) + 1;
}

function stdinIsFolder(): boolean {
  try {
    return fstatSync(0).isDirectory();
  } catch {
    return false;
  }
}

/**
 * One line of a JSON Lines text that a reader splits itself: its JSON value, or the BAD_INPUT
 * error that names it file:line:col. A byte order mark opening line 1 is not part of it (as
 * `jsonlEntries` reads it).
 * @example text.split("\n").forEach((t, i) => t.trim() && rows.push(jsonLineValue(t, "tasks.jsonl", i + 1)))
 */
export function jsonLineValue(text: string, file: string | undefined, line: number): unknown {
  const parsed = parseJsonLine(line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if ("reason" in parsed) throw new RubricateError("BAD_INPUT", `invalid JSON: ${parsed.reason}`, { location: { file, line, col: parsed.col } });
  return parsed.value;
}

/**
 * A whole JSON file's text (a package.json, a saved state, an index): its value, or the error that
 * names it file:line:col in the words a bad JSONL line gets ("invalid JSON: …"), then `hint` in
 * parentheses (what the file is, what to do about it). BAD_INPUT unless the reader says otherwise (`code`).
 * @example const state = jsonFileValue(readFileSync(file, "utf8"), file, { hint: "an optimizer state: remove it to start over" })
 */
export function jsonFileValue(text: string, file: string, options: { code?: ErrorCode; hint?: string } = {}): unknown {
  const parsed = parseJsonText(text);
  if ("reason" in parsed) throw new RubricateError(options.code ?? "BAD_INPUT", `invalid JSON: ${parsed.reason}${options.hint ? ` (${options.hint})` : ""}`, { location: { file, line: parsed.line, col: parsed.col } });
  return parsed.value;
}

/** A bad line as the error it is when a reader stops at it. */
export function badLineError(bad: BadLine): RubricateError {
  return new RubricateError("BAD_INPUT", bad.message, { location: { file: bad.file, line: bad.line, col: bad.col } });
}

/** Where a bad line is, as messages name it: "file:line:col" ("file:line" when the column is not known). */
export const badLineWhere = (bad: BadLine): string => [bad.file, bad.line, bad.col].filter((p) => p !== undefined).join(":");

/**
 * Collects bad lines for a report: all of them counted, the first `keep` kept for printing.
 * @example const bad = new BadLines(); … bad.add(b); process.stderr.write(bad.describe())
 */
export class BadLines {
  readonly first: BadLine[] = [];
  count = 0;
  constructor(readonly keep = 20) {}

  add(bad: BadLine): void {
    this.count++;
    if (this.first.length < this.keep) this.first.push(bad);
  }

  /** One line per kept bad line, then how many more there were; "" when none. */
  describe(): string {
    if (this.count === 0) return "";
    const lines = this.first.map((b) => `${badLineWhere(b)}: ${b.message}`);
    if (this.count > this.first.length) lines.push(`… and ${this.count - this.first.length} more bad line(s)`);
    return `${lines.join("\n")}\n`;
  }
}
