/**
 * Reads the structure of a written answer before anything is split: a list of solutions
 * ("1, 2 and 3", "x = 1 or x = 2", "-12; -11"), a system ("a = 1, b = 2", "x_1 = …, \quad x_2 = …"),
 * a chain ("x = 5 + 6 = 11"), sets, tuples, intervals, inequalities, matrices and equations. Each
 * leaf is one formula, translated to mathjs syntax by latex.ts.
 *
 * The order of the splits is the point: an answer is split into its parts (";", "or", "\quad",
 * then ",", "and") before any part is read as an equation, so "x = 1, x = 2" is two values of x,
 * never "x = (1, x = 2)" nor its last value.
 */
import { closesAtEnd, normalise, normaliseText, stripUnits, toMathjs } from "./latex.js";

/** A leaf: a mathjs expression, or text when it is not a formula. */
export interface MathExpr {
  kind: "expr";
  /** mathjs syntax; undefined when the answer could not be read as a formula. */
  expr?: string;
  /** The answer normalised as text, compared when no formula could be read. */
  text: string;
  /** Written with a percent sign. */
  percent: boolean;
}

export type MathValue =
  | MathExpr
  | { kind: "tuple"; items: MathValue[] }
  | { kind: "set"; items: MathValue[] }
  | { kind: "interval"; open: [boolean, boolean]; lo: MathValue; hi: MathValue }
  /** An equation or inequality in normal form: `lhs op rhs`, with ">" and ">=" turned round. */
  | { kind: "relation"; op: "<" | "<=" | "!=" | "="; lhs: MathValue; rhs: MathValue }
  /** "x = 3", "f(2) = 5", "(p, q) = (1, 2)": a value and the name it is given. */
  | { kind: "named"; name: string; value: MathValue }
  /** "a = 1, b = 2": values of distinct names, compared name by name. */
  | { kind: "system"; items: { name: string; value: MathValue }[] };

/** Longest answer read, in characters; longer answers are compared as text only (bounded work). */
export const MAX_ANSWER_CHARS = 2000;
const MAX_DEPTH = 20;

/** Reads one written answer. */
export function readAnswer(raw: string): MathValue {
  const text = normalise(raw);
  if (text.length > MAX_ANSWER_CHARS) return leafText(text);
  return readList(joinThousands(text), 0);
}

// ---------------------------------------------------------------------------------------------
// Lists and systems.

/** Between the solutions of a list: ";", "or", a `\quad` gap. */
const OUTER_SEPARATOR = /;|\\quad(?![A-Za-z])|\\text\{\s*or\s*\}|(?<![A-Za-z])or(?![a-z])/y;
/** Between the items of one solution: ",", "and". */
const INNER_SEPARATOR = /,|\\text\{\s*,?\s*and\s*\}|(?<![A-Za-z])and(?![A-Za-z])/y;

function readList(text: string, depth: number): MathValue {
  // "{W(n) = 1 and W(n) = -1}": braces that only group the whole answer.
  if (text.startsWith("{") && text.endsWith("}") && closesAtEnd(text) && splitTop(text.slice(1, -1), /[,;]/y).length === 1) return readList(text.slice(1, -1).trim(), depth + 1);
  const outer = splitTop(text, OUTER_SEPARATOR).filter((p) => !isConnective(p));
  if (outer.length > 1) return listOf(outer.map((p) => readInner(p, depth + 1)));
  return readInner(outer[0] ?? text, depth);
}

function readInner(text: string, depth: number): MathValue {
  const parts = splitTop(text, INNER_SEPARATOR).filter((p) => !isConnective(p));
  if (parts.length > 1) return listOf(parts.map((p) => readPart(p, depth + 1)));
  return readPart(parts[0] ?? text, depth);
}

/** A part that is only a connective ("and", "\text{and}", "\text{ for part (a) and }") is not a value. */
function isConnective(part: string): boolean {
  const words = part.replace(/\\text\{([^{}]*)\}/g, " $1 ").replace(/[(),.]/g, " ").trim().toLowerCase().split(/\s+/);
  // A letter is a connective only as a part's label ("for part (a) and"), never alone: "A, B" is two choices.
  const labelled = words.includes("part") || words.includes("parts");
  return words.every((w) => w === "" || /^(?:and|or|for|part|parts|respectively|also|both)$/.test(w) || (labelled && /^[a-d]$/.test(w)));
}

/**
 * The value of several parts: a system when each names a different variable ("a = 1, b = 2"), a
 * set otherwise ("1, 2", "x = 1, x = 2", "n = 1, 2, 3" — the one name dropped). Sets inside a set
 * are merged ("21, 16 or 11"); systems inside a set stay whole ("p = 5, q = 2; p = 7, q = 2").
 */
function listOf(items: MathValue[]): MathValue {
  const names = items.filter((i): i is Extract<MathValue, { kind: "named" }> => i.kind === "named").map((i) => i.name);
  if (names.length === items.length && new Set(names).size === names.length) {
    return { kind: "system", items: items.map((i) => ({ name: (i as { name: string }).name, value: (i as { value: MathValue }).value })) };
  }
  // One name for all ("x = 1, x = 2", "a = 4, -8, -10"): a set of its values.
  const values = new Set(names).size <= 1 ? items.map((i) => (i.kind === "named" ? i.value : i)) : items;
  return { kind: "set", items: values.flatMap((v) => (v.kind === "set" ? v.items : [v])) };
}

// ---------------------------------------------------------------------------------------------
// One part: membership, relations and chains, unions, brackets, matrices, ±, leaves.

function readPart(text: string, depth: number): MathValue {
  text = text.trim().replace(/^[,;]+|[,;]+$/g, "").trim();
  if (depth > MAX_DEPTH) return leafText(text);
  if (text === "") return leafText(text);

  // "x \in [2, 5]" names the answer set.
  const member = splitTop(text, /\\in(?![A-Za-z])/y);
  if (member.length === 2 && isName(member[0])) return readPart(member[1], depth + 1);

  const relation = readRelation(text, depth);
  if (relation) return relation;

  const union = splitTop(text, /\\cup(?![A-Za-z])/y);
  if (union.length > 1) return { kind: "set", items: union.map((p) => readPart(p, depth + 1)).flatMap((v) => (v.kind === "set" ? v.items : [v])) };

  // "(\begin{pmatrix}…\end{pmatrix})": parentheses around a matrix add nothing.
  const wrapped = /^\(\s*(\\begin\{([pbvB]?matrix)\}[\s\S]*\\end\{\2\})\s*\)$/.exec(text);
  if (wrapped) return readPart(wrapped[1], depth + 1);
  const matrix = /^\\begin\{([pbvB]?matrix|array)\}(?:\{[^}]*\})?([\s\S]*)\\end\{\1\}$/.exec(text) ?? /^[([]\s*\\begin\{(array)\}(?:\{[^}]*\})?([\s\S]*)\\end\{array\}\s*[)\]]$/.exec(text);
  if (matrix) {
    const rows = matrix[2].split(/\\\\/).map((r) => r.trim()).filter(Boolean);
    const cells = rows.map((r) => r.split("&").map((c) => readPart(c, depth + 1)));
    if (cells.every((r) => r.length === 1)) return { kind: "tuple", items: cells.map((r) => r[0]) };
    return { kind: "tuple", items: cells.map((r) => ({ kind: "tuple", items: r })) };
  }

  if (text.startsWith("\\{") && text.endsWith("\\}") && closesAtEnd(text)) return readSet(text.slice(2, -2), depth);
  // "{1, 2, 3}" with bare braces: LaTeX would print no braces, but a model writing a set means one.
  if (text.startsWith("{") && text.endsWith("}") && closesAtEnd(text) && splitTop(text.slice(1, -1), /[,;]/y).length > 1) return readSet(text.slice(1, -1), depth);
  if (/^[([]/.test(text) && /[)\]]$/.test(text) && closesAtEnd(text)) {
    const parts = splitTop(text.slice(1, -1), /[,;]/y);
    if (parts.length >= 2) {
      const items = parts.map((p) => readPart(p, depth + 1));
      const open: [boolean, boolean] = [text[0] === "(", text.endsWith(")")];
      // "(a, b)" is a point as often as an open interval; both compare in order, so it reads as a tuple.
      if (items.length === 2 && !(open[0] && open[1])) return { kind: "interval", open, lo: items[0], hi: items[1] };
      return { kind: "tuple", items };
    }
  }

  // "7:32", "12:00": a ratio or a time, compared part by part.
  const ratio = splitTop(text, /:/y);
  if (ratio.length === 2 && ratio.every((r) => r !== "")) return { kind: "tuple", items: ratio.map((r) => readPart(r, depth + 1)) };

  const pm = splitTopWithSeparators(text, /\\(?:pm|mp)(?![A-Za-z])/y).values;
  if (pm.length === 2 && pm[1] !== "") {
    const [a, b] = pm;
    const base = a.trim() === "" ? "0" : a;
    return { kind: "set", items: [readPart(`${base}+(${b})`, depth + 1), readPart(`${base}-(${b})`, depth + 1)] };
  }
  return readLeaf(text);
}

function readSet(inner: string, depth: number): MathValue {
  if (inner.trim() === "") return { kind: "set", items: [] };
  return { kind: "set", items: splitTop(inner, /[,;]/y).map((p) => readPart(p, depth + 1)).flatMap((v) => (v.kind === "set" ? v.items : [v])) };
}

type Op = "<" | "<=" | ">" | ">=" | "!=" | "=";
const RELATIONS: [RegExp, Op][] = [
  [/\\leq?(?![a-z])|\\leqslant|<=|≤/y, "<="],
  [/\\geq?(?![a-z])|\\geqslant|>=|≥/y, ">="],
  [/\\neq?(?![a-z])|!=|≠/y, "!="],
  [/\\lt(?![a-z])|</y, "<"],
  [/\\gt(?![a-z])|>/y, ">"],
  [/=/y, "="],
];
const ANY_RELATION = /\\leq?(?![a-z])|\\leqslant|<=|\\geq?(?![a-z])|\\geqslant|>=|\\neq?(?![a-z])|!=|\\lt(?![a-z])|<|\\gt(?![a-z])|>|=/y;

/**
 * An equation, inequality or chain. "x = 3" names 3; "x = 5 + 5 + 1 = 11" names its last value;
 * "x = 1/3 \approx 0.33" its exact value; "-2 \le x \le 7" is the interval [-2, 7].
 */
function readRelation(text: string, depth: number): MathValue | undefined {
  // "≈" ends the exact part of a chain: what follows is a rounding of it.
  const approx = splitTop(text, /\\approx(?![A-Za-z])|\\simeq(?![A-Za-z])/y);
  if (approx.length > 1) {
    const exact = approx[0];
    if (isName(exact)) return { kind: "named", name: nameKey(exact), value: readPart(approx[approx.length - 1], depth + 1) };
    return readPart(exact, depth + 1);
  }
  const parts = splitTopWithSeparators(text, ANY_RELATION);
  if (parts.values.length < 2) return undefined;
  const ops = parts.separators.map(opOf);
  if (ops.every((o) => o === "=")) {
    const values = parts.values;
    if (isName(values[0])) return { kind: "named", name: nameKey(values[0]), value: readPart(values[values.length - 1], depth + 1) };
    // A chain not led by a name ("1 = \zzz = x = 0", "5 + 6 = 11", "\frac{1}{2} = \frac{10}{9}") ends with the value.
    if (values.length > 2 || values.every((v) => !/[A-Za-z]/.test(v.replace(/\\[A-Za-z]+/g, "")))) return readPart(values[values.length - 1], depth + 1);
    return { kind: "relation", op: "=", lhs: readPart(values[0], depth + 1), rhs: readPart(values[1], depth + 1) };
  }
  // "a < x < b", "b ≥ x ≥ a": an interval when the middle is a name.
  if (ops.length === 2 && isName(parts.values[1])) {
    const up = ops.every((o) => o === "<" || o === "<=");
    const down = ops.every((o) => o === ">" || o === ">=");
    if (up || down) {
      const [a, , b] = parts.values.map((p) => readPart(p, depth + 1));
      const [lo, hi] = up ? [a, b] : [b, a];
      const strict = up ? ops.map((o) => o === "<") : ops.map((o) => o === ">").reverse();
      return { kind: "interval", open: [strict[0], strict[1]], lo, hi };
    }
  }
  if (ops.length !== 1) return leafText(text);
  const [l, r] = parts.values.map((p) => readPart(p, depth + 1));
  const op = ops[0];
  // Normal form: a < b, a <= b or a != b, with ">" flipped so "x ≥ 5" and "5 ≤ x" read alike.
  if (op === ">") return { kind: "relation", op: "<", lhs: r, rhs: l };
  if (op === ">=") return { kind: "relation", op: "<=", lhs: r, rhs: l };
  return { kind: "relation", op, lhs: l, rhs: r };
}

function opOf(separator: string): Op {
  for (const [re, op] of RELATIONS) {
    re.lastIndex = 0;
    const m = re.exec(separator);
    if (m && m[0] === separator) return op;
  }
  return "=";
}

/**
 * A left-hand side that names the answer rather than being part of it: x, x_1, f(x), |AB|, A:B,
 * \frac{NO}{BO}, (p, q, r), \text{Area}. Not a number, not a sum, not a constant.
 */
export function isName(lhs: string): boolean {
  const s = lhs.trim();
  if (s === "" || /^\\(?:pi|infty|sqrt|frac)$/.test(s) || /^[ei]$/.test(s)) return false;
  if (/^\\text\{[^{}]*\}$/.test(s)) return true;
  if (/^\((?:\s*[A-Za-z](?:_\{?\w+\}?)?\s*,)+\s*[A-Za-z](?:_\{?\w+\}?)?\s*\)$/.test(s)) return true;
  const bare = s
    .replace(/_\{[^{}]*\}|_\w/g, "")
    .replace(/\\(?:mathrm|operatorname|text|mathbf)\{([A-Za-z]+)\}/g, "$1")
    .replace(/\\frac\{([^{}]*)\}\{([^{}]*)\}/g, "$1/$2")
    .replace(/(?<=[A-Za-z])\([^()]*\)/g, "")
    .replace(/\\(?:alpha|beta|gamma|delta|theta|lambda|mu|phi|varphi|psi|omega|sigma|tau|rho|angle|triangle|overline|vec)(?![A-Za-z])/g, "A")
    .replace(/[{}\s]/g, "");
  return /^(?:\|[A-Za-z]+\||[A-Za-z]+)(?:[:/](?:\|[A-Za-z]+\||[A-Za-z]+))?$/.test(bare);
}

/** A name as compared: "a_{3}" and "a_3" alike. */
function nameKey(name: string): string {
  return name.replace(/\s+/g, "").replace(/_\{(\w)\}/g, "_$1");
}

// ---------------------------------------------------------------------------------------------
// Numbers and leaves.

/**
 * "7,425,000" and "11,111,111,100" are one number: commas between groups of three digits, outside
 * any bracket (where "(1,234)" is a point), join. "32, 349" (a space) stays a list.
 */
function joinThousands(text: string): string {
  if (!/\d,\d{3}/.test(text)) return text;
  let out = "";
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    if (c === "," && depth === 0 && /\d$/.test(out) && /^\d{3}(?!\d)/.test(text.slice(i + 1)) && isGroupedNumberAround(text, i)) continue;
    out += c;
  }
  return out;
}

/** The comma at `at` sits in a number whose every comma separates a group of exactly three digits ("1,234,567"). */
function isGroupedNumberAround(text: string, at: number): boolean {
  let start = at;
  while (start > 0 && /[\d,]/.test(text[start - 1])) start--;
  let end = at;
  while (end < text.length && /[\d,]/.test(text[end])) end++;
  const token = text.slice(start, end);
  if (/^\.|\d\.$/.test(text.slice(Math.max(0, start - 1), start + 1)) && start > 0 && text[start - 1] === ".") return false;
  return /^\d{1,3}(?:,\d{3})+$/.test(token) && !/^0,/.test(token);
}

function leafText(text: string): MathExpr {
  return { kind: "expr", text: normaliseText(text), percent: false };
}

/** A leaf: units and percent noted, then translated to mathjs syntax. */
function readLeaf(raw: string): MathExpr {
  let body = stripUnits(raw);
  let percent = false;
  if (/%$/.test(body)) {
    percent = true;
    body = body.slice(0, -1).trim();
  }
  return { kind: "expr", expr: toMathjs(body), text: normaliseText(body), percent };
}

/** "1,22", "0,111", "1000,99": a number with a decimal comma, which the comparison may read as 1.22 when the other side is one number. */
export function decimalCommaReading(raw: string): MathExpr | undefined {
  if (!/\d,\d/.test(raw)) return undefined;
  const m = /^(-?)(\d+),(\d+)(%?)$/.exec(normalise(raw));
  // Three digits after the comma is a thousands group ("1,234" is 1234), never a decimal.
  if (!m || (m[3].length === 3 && m[2] !== "0")) return undefined;
  return readLeaf(`${m[1]}${m[2]}.${m[3]}${m[4]}`);
}

// ---------------------------------------------------------------------------------------------
// Splitting outside brackets.

/**
 * Splits at a separator that is outside every bracket. Intervals like "[0, 1)" have unbalanced
 * kinds of brackets, so depth counts all openers and closers alike.
 */
export function splitTop(text: string, separator: RegExp): string[] {
  const parts = splitTopWithSeparators(text, separator).values;
  return parts.filter((p, i, all) => p !== "" || all.length === 1);
}

/** The parts between top-level separators, and the separators as written. */
function splitTopWithSeparators(text: string, separator: RegExp): { values: string[]; separators: string[] } {
  const values: string[] = [];
  const separators: string[] = [];
  let depth = 0;
  let start = 0;
  const tryAt = (i: number): number => {
    separator.lastIndex = i;
    const m = separator.exec(text);
    if (m && m.index === i && m[0].length > 0) {
      values.push(text.slice(start, i));
      separators.push(m[0]);
      start = i + m[0].length;
      return start - 1;
    }
    return -1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") {
      const next = text[i + 1];
      if (next === "{" || next === "[" || next === "(") depth++;
      else if (next === "}" || next === "]" || next === ")") depth--;
      else if (depth === 0) {
        const at = tryAt(i);
        if (at !== -1) {
          i = at;
          continue;
        }
        // Skip the command's letters so "\leq" is not read as "<" and "\cdot" not as "d", "o", "t".
        const name = /^\\[A-Za-z]+/.exec(text.slice(i, i + 40));
        if (name) i += name[0].length - 1;
        continue;
      }
      i++;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (depth === 0) {
      const at = tryAt(i);
      if (at !== -1) i = at;
    }
  }
  values.push(text.slice(start));
  return { values: values.map((p) => p.trim()), separators };
}

