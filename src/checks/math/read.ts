/**
 * Reads a written answer (LaTeX or plain text) into a small structure the comparison walks:
 * sets and lists compare without order, tuples and intervals with it, equations by their value,
 * inequalities by their normal form. Leaf expressions are left as text in mathjs syntax.
 */
import { matchingBrace } from "./extract.js";

/** A leaf: a mathjs expression, or text when it is not a formula. */
export interface MathExpr {
  kind: "expr";
  /** mathjs syntax; undefined when the answer could not be read as a formula. */
  expr?: string;
  /** The answer normalised as text, compared when no formula could be read. */
  text: string;
  /** Written with a percent sign. */
  percent: boolean;
  /** Digits after the decimal point as written ("0.333" → 3), for rounded answers. */
  decimals?: number;
}

export type MathValue =
  | MathExpr
  | { kind: "tuple"; items: MathValue[] }
  | { kind: "set"; items: MathValue[] }
  | { kind: "interval"; open: [boolean, boolean]; lo: MathValue; hi: MathValue }
  | { kind: "relation"; op: "<" | "<=" | "!=" | "="; lhs: MathValue; rhs: MathValue };

/** How a comma between digits reads: "auto" takes "12,5" as 12.5 when a single number is expected. */
export type DecimalComma = "auto" | "always" | "never";

export interface ReadOptions {
  /** Read "12,5" as the decimal 12.5 rather than the list 12, 5. */
  decimalComma: boolean;
}

/** Longest answer read, in characters; longer answers are compared as text only (bounded work). */
export const MAX_ANSWER_CHARS = 2000;

/** Reads one written answer. */
export function readAnswer(raw: string, options: ReadOptions): MathValue {
  const text = clean(raw);
  if (text.length > MAX_ANSWER_CHARS) return { kind: "expr", text: normaliseText(text), percent: false };
  return readValue(text, options, 0);
}

const MAX_DEPTH = 20;

function readValue(text: string, options: ReadOptions, depth: number): MathValue {
  text = text.trim();
  if (depth > MAX_DEPTH) return leafText(text);
  const union = splitTop(text, /\\cup/y);
  if (union.length > 1) return setOf(union.map((p) => readValue(p, options, depth + 1)));

  // "x \in [2, 5]" names the answer set.
  const member = splitTop(text, /\\in(?![A-Za-z])/y);
  if (member.length === 2 && isName(member[0])) return readValue(member[1], options, depth + 1);

  const relation = readRelation(text, options, depth);
  if (relation) return relation;

  const matrix = /^\\begin\{([pbvB]?matrix|array)\}(?:\{[^}]*\})?([\s\S]*)\\end\{\1\}$/.exec(text);
  if (matrix) {
    const rows = matrix[2].split(/\\\\/).map((r) => r.trim()).filter(Boolean);
    const cells = rows.map((r) => r.split("&").map((c) => readValue(c, options, depth + 1)));
    if (cells.every((r) => r.length === 1)) return { kind: "tuple", items: cells.map((r) => r[0]) };
    return { kind: "tuple", items: cells.map((r) => ({ kind: "tuple", items: r })) };
  }

  if (text.startsWith("\\{") && text.endsWith("\\}") && closesAtEnd(text)) {
    const inner = text.slice(2, -2);
    return setOf(inner.trim() === "" ? [] : splitTop(inner, /,/y).map((p) => readValue(p, options, depth + 1)));
  }
  const bracket = /^[([]/.exec(text) && /[)\]]$/.exec(text);
  if (bracket && closesAtEnd(text)) {
    const parts = splitTop(text.slice(1, -1), /,/y);
    if (parts.length >= 2) {
      const items = parts.map((p) => readValue(p, options, depth + 1));
      const open: [boolean, boolean] = [text[0] === "(", text.endsWith(")")];
      // "(a, b)" is a point as often as an open interval; both compare in order, so it reads as a tuple.
      if (items.length === 2 && !(open[0] && open[1])) return { kind: "interval", open, lo: items[0], hi: items[1] };
      return { kind: "tuple", items };
    }
  }

  const number = readNumberWithSeparators(text, options);
  if (number !== undefined) return number;

  const list = splitTop(text, /,/y);
  if (list.length > 1) return setOf(list.map((p) => readValue(p, options, depth + 1)));

  const pm = splitTop(text, /\\(?:pm|mp)/y);
  if (pm.length === 2) {
    const [a, b] = pm;
    const base = a.trim() === "" ? "0" : a;
    return { kind: "set", items: [readValue(`${base}+(${b})`, options, depth + 1), readValue(`${base}-(${b})`, options, depth + 1)] };
  }
  return readLeaf(text);
}

/** A set; sets inside it (from "1 ± √5" or a union) are merged into it. */
function setOf(items: MathValue[]): MathValue {
  return { kind: "set", items: items.flatMap((item) => (item.kind === "set" ? item.items : [item])) };
}

const RELATIONS: [RegExp, "<" | "<=" | ">" | ">=" | "!=" | "="][] = [
  [/\\leq?(?![a-z])|\\leqslant|<=|≤/y, "<="],
  [/\\geq?(?![a-z])|\\geqslant|>=|≥/y, ">="],
  [/\\neq?(?![a-z])|!=|≠/y, "!="],
  [/\\lt(?![a-z])|</y, "<"],
  [/\\gt(?![a-z])|>/y, ">"],
  [/=/y, "="],
];

/** An equation or inequality. "x = 3" and "k = 5 + 6 = 11" read as their value (3, 11). */
function readRelation(text: string, options: ReadOptions, depth: number): MathValue | undefined {
  for (const [re, op] of RELATIONS) {
    const parts = splitTop(text, re);
    if (parts.length < 2) continue;
    if (op === "=") {
      // A chain of equalities ends with the value; "x = 3", "f(2) = 3" and "(p,q) = (1,2)" name it.
      if (parts.length > 2 || isName(parts[0])) return readValue(parts[parts.length - 1], options, depth + 1);
      return { kind: "relation", op: "=", lhs: readValue(parts[0], options, depth + 1), rhs: readValue(parts[1], options, depth + 1) };
    }
    if (parts.length !== 2) return leafText(text);
    const [l, r] = parts.map((p) => readValue(p, options, depth + 1));
    // Normal form: a < b, a <= b or a != b, with ">" flipped so "x ≥ 5" and "5 ≤ x" read alike.
    if (op === ">") return { kind: "relation", op: "<", lhs: r, rhs: l };
    if (op === ">=") return { kind: "relation", op: "<=", lhs: r, rhs: l };
    return { kind: "relation", op, lhs: l, rhs: r };
  }
  return undefined;
}

/** A left-hand side that names the answer rather than being part of it: x, x_1, f(x), (p, q, r), \text{Area}. */
function isName(lhs: string): boolean {
  const s = lhs.trim();
  return /^(?:\\?[A-Za-z]+(?:_\{?[\w]+\}?)?(?:\([^()]*\))?|\\text\{[^{}]*\}|\((?:\s*[A-Za-z](?:_\w)?\s*,)+\s*[A-Za-z](?:_\w)?\s*\))$/.test(s) && !/^\\(?:pi|infty|sqrt|frac)$/.test(s);
}

/** Numbers written with separators: "7,425,000", "1 000", "12,5" (decimal comma), "0,111". */
function readNumberWithSeparators(text: string, options: ReadOptions): MathValue | undefined {
  const m = /^([-−]?)(\d[\d, ]*?)(\.\d+)?(%?)$/.exec(text);
  if (!m || !/[, ]/.test(m[2])) return undefined;
  const [, sign, body, fraction = "", percent] = m;
  let digits: string | undefined;
  if (/^\d{1,3}(?:,\d{3})+$/.test(body) && !/^0,/.test(body)) digits = body.replace(/,/g, "") + fraction;
  else if (/^\d{1,3}(?: \d{3})+$/.test(body)) digits = body.replace(/ /g, "") + fraction;
  else if (options.decimalComma && /^\d+,\d+$/.test(body) && fraction === "") digits = body.replace(",", ".");
  if (digits === undefined) return undefined;
  return readLeaf(`${sign}${digits}${percent}`);
}

/** True when the bracket opening `text` closes at its very end ("(1, 2)" yes, "(1)(2)" no); every kind counts alike. */
function closesAtEnd(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const escaped = text[i] === "\\" && /[{}]/.test(text[i + 1] ?? "");
    const c = escaped ? text[++i] : text[i];
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      depth--;
      if (depth === 0 && i < text.length - 1) return false;
    } else if (c === "\\") i++;
  }
  return depth === 0;
}

/**
 * Splits at a separator that is outside every bracket. Intervals like "[0, 1)" have unbalanced
 * kinds of brackets, so depth counts all openers and closers alike.
 */
export function splitTop(text: string, separator: RegExp): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") {
      if (text[i + 1] === "{" || text[i + 1] === "[" || text[i + 1] === "(") depth++;
      else if (text[i + 1] === "}" || text[i + 1] === "]" || text[i + 1] === ")") depth--;
      else if (depth === 0) {
        separator.lastIndex = i;
        const m = separator.exec(text);
        if (m && m.index === i) {
          parts.push(text.slice(start, i));
          start = i + m[0].length;
          i = start - 1;
          continue;
        }
        // Skip the command's letters so "\leq" is not read as "<".
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
      separator.lastIndex = i;
      const m = separator.exec(text);
      if (m && m.index === i && m[0].length > 0) {
        parts.push(text.slice(start, i));
        start = i + m[0].length;
        i = start - 1;
      }
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p, i, all) => p !== "" || all.length === 1);
}

function leafText(text: string): MathExpr {
  return { kind: "expr", text: normaliseText(text), percent: false };
}

/** A leaf: percent sign and written decimals noted, then translated to mathjs syntax. */
function readLeaf(text: string): MathExpr {
  let body = text.trim();
  let percent = false;
  if (/%$/.test(body)) {
    percent = true;
    body = body.slice(0, -1).trim();
  }
  const decimal = /^[-−]?\d*\.(\d+)$/.exec(body);
  return { kind: "expr", expr: toMathjs(body), text: normaliseText(body), percent, ...(decimal ? { decimals: decimal[1].length } : {}) };
}

/** Lower-case text with LaTeX wrappers, spaces and outer parentheses removed: the last resort comparison. */
export function normaliseText(text: string): string {
  let s = text
    .replace(/\\(?:text|textbf|textit|textnormal|mathrm|mathbf|mbox|operatorname)\s*\{([^{}]*)\}/g, "$1")
    .replace(/[\s{}]/g, "")
    .toLowerCase();
  while (/^\(.*\)$/.test(s) && closesAtEnd(s)) s = s.slice(1, -1);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Cleaning: what every grader strips before reading an answer.

const UNICODE: [RegExp, string][] = [
  [/−|–/g, "-"],
  [/×/g, "\\times "],
  [/·|⋅/g, "\\cdot "],
  [/÷/g, "\\div "],
  [/π/g, "\\pi "],
  [/∞/g, "\\infty "],
  [/√/g, "\\sqrt"],
  [/≤/g, "\\le "],
  [/≥/g, "\\ge "],
  [/≠/g, "\\ne "],
  [/∪/g, "\\cup "],
  [/±/g, "\\pm "],
  [/°/g, ""],
];

const UNIT_WORDS = /^(?:[a-z]{2,}|[a-z]|m²|cm²|km²|m³|cm³)$/i;

/** Removes delimiters, sizing, spacing, degree signs, currency and unit words; normalises spellings of the same command. */
export function clean(raw: string): string {
  let s = raw.trim();
  for (const [re, to] of UNICODE) s = s.replace(re, to);
  s = s
    .replace(/^\$+|\$+$/g, "")
    .replace(/^\\\(|\\\)$/g, "")
    .replace(/^\\\[|\\\]$/g, "")
    .replace(/\\(?:left|right|big|Big|bigg|Bigg)(?=[()[\]|.]|\\[{}|])\.?/g, "")
    .replace(/\\(?:displaystyle|textstyle|limits)\b/g, "")
    .replace(/\\[dtc]frac/g, "\\frac")
    .replace(/\\[dt]binom/g, "\\binom")
    .replace(/\{,\}/g, "")
    .replace(/\\\\|\\[,;:! ]|\\q?quad\b|~/g, (m) => (m === "\\\\" ? m : " "))
    .replace(/\^\s*\{?\s*\\circ\s*\}?|\\circ\b|\\degree\b/g, "")
    .replace(/\\%/g, "%")
    .replace(/\\\$|\$|€|£|¥/g, "")
    .replace(/\\(?:dots|ldots|cdots)\b/g, "")
    .trim();
  // Trailing words are units or prose ("125 miles", "15 cm^2", "28 percent"); a bare word is kept as text.
  s = s.replace(/\s*(?:percent(?:age)?|pct)\.?$/i, "%");
  s = s.replace(/\\(?:text|textnormal|textrm|mbox|mathrm)\s*\{\s*([^{}]*)\}(\^\d)?\s*$/, (m, unit: string, _pow, offset: number) => (offset > 0 && /[\d)}]\s*$/.test(s.slice(0, offset)) && isUnit(unit) ? "" : m));
  const words = /^([-\d.,\s/]*\d%?)\s+([A-Za-z][A-Za-z²³]*(?:\^\d)?(?:\s+[A-Za-z][A-Za-z²³]*)*)\.?$/.exec(s);
  if (words && words[2].split(/\s+/).every((w) => UNIT_WORDS.test(w.replace(/\^\d$/, ""))) && !/^(?:and|or)$/i.test(words[2])) s = words[1];
  s = s.replace(/\s*(?:[a-z]{1,3}[²³]|m\^?2)$/i, (m) => (/\d\s*$/.test(s.slice(0, s.length - m.length)) ? "" : m));
  return s.trim();
}

function isUnit(word: string): boolean {
  return word.trim().split(/\s+/).every((w) => UNIT_WORDS.test(w)) && word.trim() !== "";
}

// ---------------------------------------------------------------------------------------------
// LaTeX (or plain text) to mathjs syntax.

const FUNCTIONS: Record<string, string> = {
  sin: "sin", cos: "cos", tan: "tan", sec: "sec", csc: "csc", cot: "cot",
  arcsin: "asin", arccos: "acos", arctan: "atan", sinh: "sinh", cosh: "cosh", tanh: "tanh",
  ln: "log", log: "log", exp: "exp", sqrt: "sqrt", abs: "abs",
};
const CONSTANTS: Record<string, string> = { pi: "pi", infty: "Infinity", infinity: "Infinity", inf: "Infinity", e: "e", i: "i" };
const OPERATORS: Record<string, string> = { cdot: "*", times: "*", ast: "*", div: "/" };
/** Plain-text names mathjs reads as themselves. */
const PLAIN_NAMES = new Set(["sqrt", "sin", "cos", "tan", "sec", "csc", "cot", "asin", "acos", "atan", "sinh", "cosh", "tanh", "log", "ln", "exp", "abs", "pi", "nthRoot"]);

class Untranslatable extends Error {}

/** mathjs syntax for a LaTeX or plain-text formula, or undefined when it uses something we do not read. */
export function toMathjs(latex: string): string | undefined {
  try {
    const out = new Translator(latex).run();
    return out.trim() === "" ? undefined : out;
  } catch (e) {
    if (e instanceof Untranslatable) return undefined;
    throw e;
  }
}

class Translator {
  private i = 0;
  private absOpen = false;
  constructor(private readonly s: string) {}

  run(end?: string): string {
    let out = "";
    while (this.i < this.s.length) {
      if (end !== undefined && this.s[this.i] === end) return out;
      out += this.token();
    }
    if (end !== undefined) throw new Untranslatable();
    return out;
  }

  private token(): string {
    const s = this.s;
    const c = s[this.i];
    if (c === "\\") return this.command();
    if (c === "{") {
      this.i++;
      const inner = this.run("}");
      this.i++;
      return `(${inner})`;
    }
    if (c === "^") {
      this.i++;
      return `^(${this.argument()})`;
    }
    if (c === "_") {
      // Subscripts name symbols (x_1); after digits they are a base ("204_5"), which we do not convert.
      if (/\d$/.test(s.slice(0, this.i))) throw new Untranslatable();
      this.i++;
      const sub = this.argument().replace(/[()\s]/g, "");
      if (!/^\w+$/.test(sub)) throw new Untranslatable();
      return `_${sub}`;
    }
    if (c === "|") {
      this.i++;
      this.absOpen = !this.absOpen;
      return this.absOpen ? " abs(" : ") ";
    }
    if (c === "%") {
      this.i++;
      return "/100";
    }
    if (/[A-Za-z]/.test(c)) {
      const word = /^[A-Za-z]+/.exec(s.slice(this.i))![0];
      this.i += word.length;
      if (PLAIN_NAMES.has(word)) return ` ${word === "ln" ? "log" : word} `;
      if (word === "inf" || word === "infinity" || word === "oo") return " Infinity ";
      // A run of letters outside a command is a product of one-letter variables ("xy" = x·y).
      return ` ${word.split("").join(" ")} `;
    }
    const number = /^(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/.exec(s.slice(this.i, this.i + 64));
    if (number) {
      this.i += number[0].length;
      return number[0];
    }
    if (/[.+\-*/()!\s]/.test(c)) {
      this.i++;
      return c;
    }
    // Anything else (a comma left after structure was read, brackets, relations, quotes) is not one formula.
    throw new Untranslatable();
  }

  /** One argument of a command: a {group}, or a single character ("\frac13", "x^2"). */
  private argument(): string {
    const s = this.s;
    while (s[this.i] === " ") this.i++;
    if (s[this.i] === "{") {
      this.i++;
      const inner = this.run("}");
      this.i++;
      return inner;
    }
    if (s[this.i] === "\\") return this.command();
    const c = s[this.i];
    if (c === undefined) throw new Untranslatable();
    this.i++;
    if (/[A-Za-z]/.test(c)) return ` ${c} `;
    return c;
  }

  private command(): string {
    const s = this.s;
    const name = /^\\([A-Za-z]+|.)/.exec(s.slice(this.i));
    if (!name) throw new Untranslatable();
    const word = name[1];
    this.i += name[0].length;
    if (word === "frac") {
      const a = this.argument();
      const b = this.argument();
      return `((${a})/(${b}))`;
    }
    if (word === "sqrt") {
      while (s[this.i] === " ") this.i++;
      if (s[this.i] === "[") {
        const close = s.indexOf("]", this.i);
        if (close === -1) throw new Untranslatable();
        const index = toMathjs(s.slice(this.i + 1, close));
        this.i = close + 1;
        if (index === undefined) throw new Untranslatable();
        return ` nthRoot(${this.argument()}, ${index}) `;
      }
      return ` sqrt(${this.argument()}) `;
    }
    if (word === "binom") return ` combinations(${this.argument()}, ${this.argument()}) `;
    if (word === "text" || word === "mathrm" || word === "textrm" || word === "textnormal" || word === "mbox" || word === "operatorname" || word === "mathbf" || word === "textbf" || word === "mathit") {
      const inner = this.argument().trim();
      if (/^[A-Za-z]$/.test(inner) || inner === "") return ` ${inner} `;
      if (FUNCTIONS[inner]) return this.applyFunction(FUNCTIONS[inner]);
      throw new Untranslatable();
    }
    if (FUNCTIONS[word]) {
      if (word === "log" && s[this.i] === "_") {
        this.i++;
        const base = this.argument();
        return this.applyFunction("log", base);
      }
      return this.applyFunction(FUNCTIONS[word]);
    }
    if (CONSTANTS[word]) return ` ${CONSTANTS[word]} `;
    if (OPERATORS[word]) return ` ${OPERATORS[word]} `;
    if (word === "lvert" || word === "rvert" || word === "vert" || word === "mid") {
      this.absOpen = !this.absOpen;
      return this.absOpen ? " abs(" : ") ";
    }
    if (word === "{" || word === "(" || word === "[") return "(";
    if (word === "}" || word === ")" || word === "]") return ")";
    if (word === "%") return "/100";
    if (word === "ne" || word === "neq") throw new Untranslatable();
    // Greek letters are variables.
    if (/^(?:alpha|beta|gamma|delta|theta|lambda|mu|phi|varphi|psi|omega|sigma|tau|rho|epsilon|varepsilon|eta|zeta|kappa|nu|xi|chi)$/.test(word)) return ` ${word} `;
    throw new Untranslatable();
  }

  /** "\sin^2 x", "\sin(2x)", "\log_2 8": a function applied to its argument, with an optional power. */
  private applyFunction(fn: string, base?: string): string {
    const s = this.s;
    while (s[this.i] === " ") this.i++;
    let power: string | undefined;
    if (s[this.i] === "^") {
      this.i++;
      power = this.argument();
      while (s[this.i] === " ") this.i++;
    }
    let arg: string;
    if (s[this.i] === "(" || s[this.i] === "{" || s.startsWith("\\left(", this.i)) {
      if (s.startsWith("\\left(", this.i)) this.i += 5;
      const open = s[this.i];
      this.i++;
      arg = this.run(open === "(" ? ")" : "}");
      this.i++;
    } else {
      // Without parentheses the argument runs to the next operator or space: "\sin 2x", "\ln x".
      const m = /^(?:\d*\.?\d*(?:[A-Za-z]|\\[A-Za-z]+)?|\d+)/.exec(s.slice(this.i));
      if (!m || m[0] === "") throw new Untranslatable();
      arg = toMathjs(m[0]) ?? (() => { throw new Untranslatable(); })();
      this.i += m[0].length;
    }
    const call = base === undefined ? `${fn}(${arg})` : `log(${arg}, ${base})`;
    return power === undefined ? ` ${call} ` : ` (${call})^(${power}) `;
  }
}
