/**
 * JSON that may not be JSON: what a server or a child process printed, read where a failure to
 * parse is an answer in itself (an error body, a CLI's output), not an error to raise.
 * @example parseJsonOrUndefined('{"a":1}') // { a: 1 }; parseJsonOrUndefined("<html>") // undefined
 */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** True for a JSON object (not an array, not null): what a parsed file's sections must be before their keys are read. */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A JSON text, or why it is not JSON and where it stops being JSON (a 1-based column, for a text of one line). */
export type JsonLineParse = { value: unknown } | { reason: string; col: number };

/**
 * Parses one line of JSON Lines; on failure says why and at which column, so a reader can name
 * file:line:col. The column counts characters as an editor shows them (code points: an emoji is
 * one, a byte order mark the caller stripped is none); the end of the line plus one when the line
 * ends too early ("Unexpected end of JSON input").
 * @example parseJsonLine('{"a": 1,}') // { reason: "Expected double-quoted property name", col: 9 }
 */
export function parseJsonLine(text: string): JsonLineParse {
  const parsed = parseJsonAt(text);
  return "reason" in parsed ? { reason: parsed.reason, col: parsed.col } : parsed;
}

/** A whole JSON document, or why it is not JSON and where it stops being JSON (1-based line and column). */
export type JsonTextParse = { value: unknown } | { reason: string; line: number; col: number };

/**
 * Parses a whole JSON document (a package.json, a saved state: a file of many lines); on failure
 * says why and at which line and column, so a reader can name file:line:col as it does for a line
 * of JSON Lines (`parseJsonLine`). A byte order mark opening the text is not part of it (an editor
 * does not show one; columns count from the character after it). Columns count code points; the
 * end of the text when it ends too early.
 * @example parseJsonText('{\n  "a": 1,\n}') // { reason: "Expected double-quoted property name", line: 3, col: 1 }
 */
export function parseJsonText(text: string): JsonTextParse {
  return parseJsonAt(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}

/** `JSON.parse`, or its reason and the line and column (code points) where the text stops being JSON. */
function parseJsonAt(body: string): JsonTextParse {
  try {
    return { value: JSON.parse(body) };
  } catch (e) {
    const message = (e as Error).message;
    const offset = jsonErrorOffset(body, message);
    const lineStart = body.lastIndexOf("\n", offset - 1) + 1;
    let line = 1;
    for (let i = body.indexOf("\n"); i !== -1 && i < lineStart; i = body.indexOf("\n", i + 1)) line++;
    return { reason: message.replace(POSITION_SUFFIX, ""), line, col: columnOf(body.slice(lineStart), offset - lineStart) };
  }
}

// V8's " in JSON at position 7" (" at position 7" after "…after JSON") and, in newer versions,
// " (line 1 column 8)" after it: the column says where, in the reader's terms.
const POSITION_SUFFIX = / (?:in JSON )?at position \d+(?: \(line \d+ column \d+\))?$/;

/**
 * The UTF-16 offset at which `text` stops being JSON, given JSON.parse's message for it: the
 * position the message states, else (V8 states none for "Unexpected token 'x', …" nor for an
 * early end) where a scan of the text finds the first character JSON cannot have there.
 */
export function jsonErrorOffset(text: string, message: string): number {
  const position = / at position (\d+)/.exec(message);
  if (position) return Number(position[1]);
  const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
  if (lineColumn && lineColumn[1] === "1") return Number(lineColumn[2]) - 1;
  return jsonSyntaxErrorOffset(text) ?? text.length;
}

/** 1-based column of a UTF-16 offset in a line, counted in code points (a surrogate pair is one character). */
function columnOf(text: string, offset: number): number {
  let col = 1;
  for (const _ of text.slice(0, offset)) col++;
  return col;
}

const isJsonSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\r";
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
const isHexDigit = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/**
 * Where a text stops being JSON (RFC 8259, as JSON.parse reads it): the offset of the first
 * character no JSON text could have there, `text.length` when it ends too early, undefined when
 * it is JSON. A loop with a stack of open containers, not recursion: a line may nest deeply.
 */
export function jsonSyntaxErrorOffset(text: string): number | undefined {
  let i = 0;
  const skipSpace = () => {
    while (isJsonSpace(text[i])) i++;
  };
  const string = (): boolean => {
    if (text[i] !== '"') return false;
    i++;
    for (;;) {
      const c = text[i];
      if (c === undefined || c < " ") return false;
      if (c === '"') {
        i++;
        return true;
      }
      if (c !== "\\") {
        i++;
        continue;
      }
      i++;
      if (text[i] === "u") {
        i++;
        for (let k = 0; k < 4; k++, i++) if (!isHexDigit(text[i])) return false;
      } else if (text[i] !== undefined && '"\\/bfnrt'.includes(text[i])) i++;
      else return false;
    }
  };
  const digits = (): boolean => {
    if (!isDigit(text[i])) return false;
    while (isDigit(text[i])) i++;
    return true;
  };
  const number = (): boolean => {
    if (text[i] === "-") i++;
    if (text[i] === "0") i++;
    else if (!digits()) return false;
    if (text[i] === ".") {
      i++;
      if (!digits()) return false;
    }
    if (text[i] === "e" || text[i] === "E") {
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      if (!digits()) return false;
    }
    return true;
  };
  const literal = (): boolean => {
    const word = ["true", "false", "null"].find((w) => w[0] === text[i]);
    if (!word) return false;
    for (const c of word) {
      if (text[i] !== c) return false;
      i++;
    }
    return true;
  };
  /** A member's key and colon, after `{` or `,`. */
  const key = (): boolean => {
    skipSpace();
    if (!string()) return false;
    skipSpace();
    if (text[i] !== ":") return false;
    i++;
    return true;
  };
  const open: ("{" | "[")[] = [];
  for (;;) {
    // A value is expected here.
    skipSpace();
    const c = text[i];
    if (c === "{" || c === "[") {
      i++;
      skipSpace();
      if (text[i] === (c === "{" ? "}" : "]")) i++;
      else {
        open.push(c);
        if (c === "{" && !key()) return i;
        continue;
      }
    } else if (!(c === '"' ? string() : c === "-" || isDigit(c) ? number() : literal())) return i;
    // A value ended: close what it ends, until a comma asks for the next value.
    for (;;) {
      skipSpace();
      const container = open[open.length - 1];
      if (container === undefined) return i === text.length ? undefined : i;
      if (text[i] === ",") {
        i++;
        if (container === "{" && !key()) return i;
        break;
      }
      if (text[i] !== (container === "{" ? "}" : "]")) return i;
      open.pop();
      i++;
    }
  }
}

/** The keys of an open object (the first one alone until there is a second), or undefined for an array. */
type Open = { first?: string; more?: Set<string> } | undefined;

/** Options of `ambiguity`. */
export interface AmbiguityOptions {
  /**
   * Filled with where each integer past Number.MAX_SAFE_INTEGER is written ([start, end) in the
   * text). JSON.parse rounds one with more digits than a double holds to another integer
   * (`readsAsAnother`: `18446744073709551615` reads as 2^64), and String() of any of them is not
   * its digits (2^64 prints as 18446744073709552000). Whether that matters is the reader's to tell.
   */
  unsafeIntegers?: [number, number][];
}

/** Whether JSON.parse reads this integer, as written, as another integer: it has more digits than a double holds. */
export const readsAsAnother = (written: string): boolean => BigInt(written) !== BigInt(Number(written));

/** A JSON number written as an integer: no fraction, no exponent. */
const INTEGER_LITERAL = /^-?\d+$/;

/**
 * Why the value JSON.parse gives for a JSON text it accepted is not what the text says, or
 * undefined: a key twice in one object (JSON.parse keeps the last, so `{"answer": 1000, "answer":
 * 5}` would be checked as 5 while a reader, or the next parser, takes 1000), or a number past the
 * range of a double (`1e400` is Infinity, which `type: integer` and `minimum: 0` accept). One pass
 * over the text, which must be valid JSON.
 */
export function ambiguity(json: string, options: AmbiguityOptions = {}): string | undefined {
  const open: Open[] = [];
  let keyNext = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === "{" || c === "[") {
      open.push(c === "{" ? {} : undefined);
      keyNext = c === "{";
    } else if (c === "}" || c === "]") {
      open.pop();
      keyNext = false;
    } else if (c === ",") {
      keyNext = open[open.length - 1] !== undefined;
    } else if (c === '"') {
      const end = stringEnd(json, i);
      if (keyNext) {
        const written = json.slice(i, end + 1);
        if (!addKey(open[open.length - 1]!, written)) return `the key ${JSON.stringify(shorten(JSON.parse(written) as string))} appears twice in one object`;
        keyNext = false;
      }
      i = end;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      const end = numberEnd(json, i);
      const written = json.slice(i, end);
      if (!Number.isFinite(Number(written))) return `the number ${shorten(written)} is too large for a number (it reads as Infinity)`;
      // 15 digits or fewer are always exact (2^53 has 16).
      if (options.unsafeIntegers && written.length > 15 && INTEGER_LITERAL.test(written) && !Number.isSafeInteger(Number(written))) options.unsafeIntegers.push([i, end]);
      i = end - 1;
    }
  }
  return undefined;
}

/** Adds a key, written as a JSON string, to an object's keys: false when it was there already ("a" and "\u0061" alike). */
function addKey(keys: NonNullable<Open>, written: string): boolean {
  const key = written.includes("\\") ? (JSON.parse(written) as string) : written.slice(1, -1);
  if (keys.first === undefined) {
    keys.first = key;
    return true;
  }
  if (keys.first === key || keys.more?.has(key)) return false;
  (keys.more ??= new Set()).add(key);
  return true;
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(json: string, start: number): number {
  let i = start + 1;
  while (json.charCodeAt(i) !== 0x22) i += json.charCodeAt(i) === 0x5c /* \ */ ? 2 : 1;
  return i;
}

const NUMBER_PART = /[0-9+\-.eE]/;
/** The index after the number starting at `start`. */
function numberEnd(json: string, start: number): number {
  let i = start + 1;
  while (i < json.length && NUMBER_PART.test(json[i])) i++;
  return i;
}

/** The text with each of its [start, end) spans (in order, apart) written as `replace` gives it; undefined keeps a span as it is. */
export function replaceSpans(text: string, spans: readonly (readonly [number, number])[], replace: (written: string, index: number) => string | undefined): string {
  let out = "";
  let from = 0;
  spans.forEach(([start, end], index) => {
    const written = replace(text.slice(start, end), index);
    if (written === undefined) return;
    out += text.slice(from, start) + written;
    from = end;
  });
  return out + text.slice(from);
}

/**
 * The text with integers JSON.parse rounds (`rounded`: spans of integers that `readsAsAnother`)
 * written as the doubles beside the one JSON.parse reads them as: each of the first `each` alone
 * one step up and one step down, then, past those, all up and all down (a response of 100,000 big
 * ids costs 2 × `each` + 2 readings, not 200,000). A verdict that differs on any of them turns on
 * digits the parsed value does not have.
 */
export function roundedVariants(json: string, rounded: readonly [number, number][], each = 8): string[] {
  const neighbours = rounded.map(([start, end]) => {
    const read = BigInt(Number(json.slice(start, end)));
    const magnitude = read < 0n ? -read : read;
    // A double past 2^53 steps by 2^(its exponent − 52) (below a power of two by half that, so this
    // step down lands two doubles below it: another number all the same).
    const step = 1n << BigInt(Math.max(0, magnitude.toString(2).length - 53));
    return { up: String(BigInt(Number(read + step))), down: String(BigInt(Number(read - step))) };
  });
  const alone = neighbours.slice(0, each).flatMap((_, i) => [
    replaceSpans(json, rounded, (_w, j) => (j === i ? neighbours[j].up : undefined)),
    replaceSpans(json, rounded, (_w, j) => (j === i ? neighbours[j].down : undefined)),
  ]);
  if (neighbours.length <= each) return alone;
  return [...alone, replaceSpans(json, rounded, (_w, j) => neighbours[j].up), replaceSpans(json, rounded, (_w, j) => neighbours[j].down)];
}

/** A key or number short enough for a reason: its first 40 characters. */
const shorten = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

/**
 * How deeply arrays and objects nest in a JSON value, counted by a loop, not recursion (a client's
 * or a response's value may be 100,000 levels deep, past any stack), and only up to `cap`: `cap`
 * means that deep or deeper.
 */
export function nestingDepth(value: unknown, cap: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth + 1 >= cap) return cap;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}
