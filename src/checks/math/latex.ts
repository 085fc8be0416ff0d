/**
 * LaTeX (or plain text) notation: the spellings every grader normalises before reading an answer
 * (delimiters, sizing, spacing, `\dfrac`, Unicode symbols), the units and prose words a leaf may
 * carry, and the translation of one formula into mathjs syntax. What an answer's structure is
 * (lists, sets, systems, chains) is read.ts's business; this file sees one formula at a time.
 */
import { matchingBrace } from "./extract.js";

const UNICODE: [RegExp, string][] = [
  [/[−–‒﹣－]/g, "-"],
  [/×/g, "\\times "],
  [/·|⋅/g, "\\cdot "],
  [/÷/g, "\\div "],
  [/π/g, "\\pi "],
  [/∞/g, "\\infty "],
  [/√/g, "\\sqrt"],
  [/≤/g, "\\le "],
  [/≥/g, "\\ge "],
  [/≠/g, "\\ne "],
  [/≈/g, "\\approx "],
  [/∪/g, "\\cup "],
  [/∈/g, "\\in "],
  [/±/g, "\\pm "],
  [/°/g, ""],
];

/** A `\quad` (or `\qquad`, or "\quadx" with its space lost) as read.ts splits on it: a gap between the parts of an answer. */
const GAP = "\\quad";

/**
 * The notation every grader strips before reading an answer: math delimiters, `\left`/`\right`,
 * `\displaystyle`, thin spaces, `\dfrac`/`\tfrac`, degree signs, currency, Unicode symbols.
 * Gaps (`\quad`) are kept as a single `\quad` word: they may separate the parts of an answer.
 */
export function normalise(raw: string): string {
  let s = raw.trim();
  for (const [re, to] of UNICODE) s = s.replace(re, to);
  s = s
    // "\\frac" (a backslash doubled by a JSON or Python string) is "\frac", not a line break.
    .replace(/(?<!\\)\\\\(?=[A-Za-z])/g, "\\")
    .replace(/\$\$|\$|\\\(|\\\)|\\\[|\\\]/g, " ")
    .replace(/\\(?:left|right|big|Big|bigg|Bigg)(?=[()[\]|.]|\\[{}|])\.?/g, "")
    .replace(/\\(?:displaystyle|textstyle|limits)(?![A-Za-z])/g, "")
    .replace(/\\[dtc]frac/g, "\\frac")
    .replace(/\\[dt]binom/g, "\\binom")
    .replace(/\{\s*,\s*\}/g, "")
    // Spacing: "\!" joins ("32,\!349"), "\," "\;" "~" separate; "\quadx" (spaces lost) is still a gap.
    .replace(/(?<!\\)\\!\s*/g, "")
    .replace(/\\q?quad/g, ` ${GAP} `)
    .replace(/(?<!\\)\\[,;: ]|~/g, " ")
    .replace(/\^\s*\{?\s*\\circ\s*\}?|\\circ(?![A-Za-z])|\\degree(?![A-Za-z])/g, "")
    .replace(/\\%/g, "%")
    .replace(/\\\$|€|£|¥/g, "")
    .replace(/\\(?:dots|ldots|cdots)(?![A-Za-z])/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return unbox(s);
}

/** "\boxed{…}" inside an answer is only emphasis; an unclosed "\boxed{" (a truncated answer) loses its brace. */
function unbox(s: string): string {
  for (let guard = 0; guard < 20; guard++) {
    const at = s.search(/\\(?:boxed|fbox)\s*\{/);
    if (at === -1) break;
    const open = s.indexOf("{", at);
    const close = matchingBrace(s, open);
    s = close === -1 ? s.slice(0, at) + s.slice(open + 1) : s.slice(0, at) + s.slice(open + 1, close) + s.slice(close + 1);
  }
  return s.trim();
}

const UNIT_WORDS = /^(?:[a-z]{2,}|[a-z]|m²|cm²|km²|m³|cm³)$/i;

/**
 * Words that, after a number, say something about it rather than name its unit: a
 * connective, a denial, a comparison or a doubt. "3 \text{ or four}", "3 \text{ is wrong}",
 * "3 \mbox{ or fewer}" are a hedge or a denial, not 3 with a unit.
 */
export const NOT_UNIT_WORDS = /^(?:and|or|nor|to|is|are|was|isn't|not|no|never|than|more|fewer|less|at|least|most|plus|minus|wrong|incorrect|false|maybe|perhaps|possibly|probably|likely|approximately|approx|roughly|about|around|nearly|almost|over|under|above|below|between|either|neither|up|until|till|instead|except|unless|but|if|guess|unsure|unknown|answer|e|i)$/i;

/**
 * One leaf's trailing units and prose: "125 miles", "15\mbox{ cm}^2", "36\pi \text{ cm}^2",
 * "28 percent" (→ "28%"), "0.06 \text{ yuan}". A bare word ("\text{Evelyn}") is kept.
 */
export function stripUnits(leaf: string): string {
  let s = leaf.trim().replace(/[.]$/, "").trim();
  s = s.replace(/\s*(?:percent(?:age)?|pct)\.?$/i, "%").replace(/\s+%$/, "%");
  // "\text{ cm}^2" after a number, a closing bracket or a constant.
  for (let k = 0; k < 2; k++) {
    s = s.replace(/\\(?:text|textnormal|textrm|textbf|mbox|mathrm)\s*\{\s*([^{}]*)\}(\^\{?\d\}?)?\s*$/, (m, unit: string, _pow, offset: number) =>
      offset > 0 && /[\d)}a-zA-Z]\s*$/.test(s.slice(0, offset)) && isUnit(unit) ? "" : m).trim();
  }
  const words = /^([-\d.,\s/]*\d%?)\s*([A-Za-z][A-Za-z²³]*(?:\^\d)?(?:\s+[A-Za-z][A-Za-z²³]*)*)\.?$/.exec(s);
  if (words && words[2].split(/\s+/).every((w) => UNIT_WORDS.test(w.replace(/\^\d$/, "")) && !NOT_UNIT_WORDS.test(w))) s = words[1];
  s = s.replace(/\s*(?:[a-z]{1,3}[²³]|m\^?2)$/i, (m) => (/\d\s*$/.test(s.slice(0, s.length - m.length)) ? "" : m));
  return s.trim();
}

/** True when the words of a `\text{…}` after a value are its unit ("cm", "square meters"), not prose about it ("or four"). */
function isUnit(words: string): boolean {
  return words.trim() !== "" && words.trim().split(/\s+/).every((w) => UNIT_WORDS.test(w) && !NOT_UNIT_WORDS.test(w));
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

/** True when the bracket opening `text` closes at its very end ("(1, 2)" yes, "(1)(2)" no); every kind counts alike. */
export function closesAtEnd(text: string): boolean {
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
