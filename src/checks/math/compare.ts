/**
 * Equivalence of two read answers. Formulas are compared by value: constants numerically,
 * formulas with variables at several fixed points (two expressions that agree at five generic
 * points are, for the polynomial and elementary expressions of math answers, the same
 * expression; Schwartz–Zippel in spirit). mathjs does the arithmetic, on floats, so no input
 * can make it compute a huge exact number.
 */
import { createRequire } from "node:module";
import type { MathJsInstance, MathNode } from "mathjs";
import { canonicalInteger } from "../number.js";
import { toMathjs } from "./latex.js";
import type { MathExpr, MathValue } from "./read.js";

let parser: MathJsInstance["parse"] | undefined;

/** The mathjs functions an answer may use (ALLOWED_FUNCTIONS), the operators and constants, and parse/compile. */
const MATHJS_PARTS = [
  "parse", "compile", "add", "subtract", "multiply", "divide", "pow", "unaryMinus", "unaryPlus", "factorial",
  "sqrt", "nthRoot", "sin", "cos", "tan", "sec", "csc", "cot", "asin", "acos", "atan", "sinh", "cosh", "tanh",
  "log", "exp", "abs", "combinations", "pi", "e", "i", "Infinity", "complex",
] as const;

/**
 * Loads mathjs on first use, outside the time guard (a slow first load must not count against one
 * answer), and off the import path (a command that merely loads a rubric never pays it).
 *
 * Two choices keep the load short: mathjs' single-file bundle (`mathjs/lib/browser/math.js`, an
 * exported entry of the same version) reads in a fraction of the time of its several hundred
 * CommonJS modules, and an instance built from only the functions answers use. One warm-up
 * evaluation then builds mathjs' lazily created functions here rather than in the first answer.
 */
export function loadMathjs(): void {
  if (parser) return;
  const mathjs = createRequire(import.meta.url)("mathjs/lib/browser/math.js") as typeof import("mathjs") & Record<string, object>;
  const math = mathjs.create(Object.assign({}, ...MATHJS_PARTS.map((name) => mathjs[`${name}Dependencies`])), {});
  const parse = math.parse;
  // mathjs' own advice for untrusted expressions: take away what can reach outside arithmetic.
  const forbidden = () => {
    throw new Error("not available in answers");
  };
  math.import({ import: forbidden, createUnit: forbidden, evaluate: forbidden, parse: forbidden, simplify: forbidden, derivative: forbidden, resolve: forbidden, compile: forbidden, chain: forbidden }, { override: true });
  parser = parse;
  const warm = [...ALLOWED_FUNCTIONS].map((f) => (f === "nthRoot" || f === "combinations" ? `${f}(8, 3)` : f === "factorial" ? "factorial(3)" : `${f}(x / 3)`));
  parser(`${warm.join(" + ")} + (2 x - 1)^2 / 3 - i * pi + e + 3! + sqrt(-4) - Infinity`).compile().evaluate({ x: 0.7 });
}

function parse(expr: string): MathNode {
  loadMathjs();
  return parser!(expr);
}

/** Node kinds a math answer may contain; anything else (assignments, objects, indexing, units) is not an answer. */
const ALLOWED_NODES = new Set(["ConstantNode", "SymbolNode", "OperatorNode", "ParenthesisNode", "FunctionNode"]);
const ALLOWED_FUNCTIONS = new Set([
  "sqrt", "nthRoot", "sin", "cos", "tan", "sec", "csc", "cot", "asin", "acos", "atan", "sinh", "cosh", "tanh",
  "log", "exp", "abs", "combinations", "factorial",
]);
const CONSTANTS = new Set(["pi", "e", "i", "Infinity"]);
/** Generic points for the variables: irrational-looking, away from 0, 1 and small integers where formulas have poles. */
const POINTS = [0.5813, 1.3271, 2.1937, 0.7461, 1.8127];
const STEP = 0.3719;

export interface CompareOptions {
  /** Relative tolerance for numbers (default 1e-9); absolute against a reference of 0, and for formulas' values below 1. */
  tolerance: number;
  /**
   * Integers written out in full compare exactly ("1234567891" is not 1234567890, which a
   * relative 1e-9 would allow). Default true; the math check sets it false when the rubric
   * sets a tolerance, which then applies to integers too.
   */
  exactIntegers?: boolean;
  /** Opt-in rounding: numbers equal when they agree rounded to this many decimals ("0.33" = 1/3 with 2). */
  round?: number;
  /** "strict" (default): "28%" equals 28 only; "fraction": "28%" also equals 0.28. */
  percent: "strict" | "fraction";
}

interface Compiled {
  evaluate: (scope: Map<string, number>) => unknown;
  symbols: string[];
}

const compiled = new Map<string, Compiled | null>();
const COMPILED_LIMIT = 5000;

/** The compiled form of a mathjs expression, cached (references repeat across samples); null when it is not an arithmetic answer. */
function compile(expr: string): Compiled | null {
  let hit = compiled.get(expr);
  if (hit !== undefined) return hit;
  hit = null;
  try {
    const node = parse(expr);
    const symbols = new Set<string>();
    let ok = true;
    node.traverse((n: MathNode, path: string, parent: MathNode | null) => {
      if (!ALLOWED_NODES.has(n.type)) ok = false;
      if (n.type === "FunctionNode" && !ALLOWED_FUNCTIONS.has((n as unknown as { fn: { name: string } }).fn.name)) ok = false;
      if (n.type === "SymbolNode" && !(path === "fn" && parent?.type === "FunctionNode")) {
        const name = (n as unknown as { name: string }).name;
        if (!CONSTANTS.has(name)) symbols.add(name);
      }
    });
    if (ok) {
      const code = node.compile();
      hit = { evaluate: (scope) => code.evaluate(scope), symbols: [...symbols].sort() };
    }
  } catch {
    hit = null;
  }
  if (compiled.size >= COMPILED_LIMIT) compiled.delete(compiled.keys().next().value!);
  compiled.set(expr, hit);
  return hit;
}

/** A complex number as [re, im], or undefined when the value is not a number (a matrix, a unit, an error). */
function toComplex(value: unknown): [number, number] | undefined {
  if (typeof value === "number") return [value, 0];
  if (typeof value === "boolean") return undefined;
  if (value && typeof value === "object" && "re" in value && "im" in value) return [(value as { re: number }).re, (value as { im: number }).im];
  return undefined;
}

/**
 * Two values of formulas at a test point (or two ratios): equal within a relative tolerance,
 * absolute below 1, because values there come from arithmetic whose cancellations leave float
 * error around 1e-16 where the exact value is 0.
 */
function closeAtPoint(a: number, b: number, tolerance: number): boolean {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b));
}

function closeComplexAtPoint(a: [number, number], b: [number, number], tolerance: number): boolean {
  return closeAtPoint(a[0], b[0], tolerance) && closeAtPoint(a[1], b[1], tolerance);
}

const isFiniteValue = (v: [number, number]) => Number.isFinite(v[0]) && Number.isFinite(v[1]);

/**
 * An answer's constant against a reference's: equal within a relative tolerance of the larger
 * modulus, with no absolute floor, so a tiny reference (1.6 × 10^{-19}) is not matched by 0 or by
 * 9 × 10^{-19}. A reference of exactly 0 has no scale: an answer within `tolerance` of 0 equals it
 * (\cos(\pi/2) computes to 6e-17). A value past the floats (2^{1024}, 10^{400}: Infinity to
 * mathjs) equals nothing; sameExpr compares a written ∞.
 */
export function closeConstants(answer: [number, number], reference: [number, number], tolerance: number): boolean {
  if (!isFiniteValue(answer) || !isFiniteValue(reference)) return false;
  const distance = Math.hypot(answer[0] - reference[0], answer[1] - reference[1]);
  if (reference[0] === 0 && reference[1] === 0) return distance <= tolerance;
  return distance <= tolerance * Math.max(Math.hypot(answer[0], answer[1]), Math.hypot(reference[0], reference[1]));
}

/** ∞ written as such ("\infty", "-\infty"), not a value that overflowed to it. */
const writesInfinity = (e: MathExpr) => e.expr !== undefined && /\bInfinity\b/.test(e.expr);

/**
 * Two constants one of which is not finite: equal only when both are an infinity written as
 * one, of the same sign. 2^{1024} and 10^{400} both overflow to Infinity, and are not equal.
 */
function sameInfinity(a: MathExpr, x: [number, number], b: MathExpr, y: [number, number]): boolean {
  return writesInfinity(a) && writesInfinity(b) && x[0] === y[0] && x[1] === y[1] && !Number.isNaN(x[0]);
}

/** The value of a compiled expression at one point, or undefined. */
function valueAt(c: Compiled, scope: Map<string, number>): [number, number] | undefined {
  try {
    return toComplex(c.evaluate(scope));
  } catch {
    return undefined;
  }
}

/**
 * True when two leaf expressions are equal (numerically, or at every test point where both are
 * defined). `a` is the answer's, `b` the reference's: a reference of 0 is compared absolutely.
 */
export function sameExpr(a: MathExpr, b: MathExpr, options: CompareOptions): boolean {
  if (a.text === b.text && a.percent === b.percent && a.text !== "") return true;
  const integers = sameIntegers(a, b, options);
  if (integers !== undefined) return integers;
  if (a.expr === undefined || b.expr === undefined) return a.text === b.text && a.text !== "";
  const ca = compile(a.expr);
  const cb = compile(b.expr);
  if (!ca || !cb) return a.text === b.text && a.text !== "";
  const symbols = [...new Set([...ca.symbols, ...cb.symbols])];
  if (symbols.length === 0) {
    const x = valueAt(ca, new Map());
    const y = valueAt(cb, new Map());
    if (!x || !y) return false;
    if (!isFiniteValue(x) || !isFiniteValue(y)) return sameInfinity(a, x, b, y);
    return numbersMatch(x, y, a.percent, b.percent, options);
  }
  if (a.percent !== b.percent) return false;
  // Different variables cannot be the same expression unless one cancels out; the points decide.
  let compared = 0;
  for (const scope of scopes(symbols)) {
    const x = valueAt(ca, scope);
    const y = valueAt(cb, scope);
    // A pole or an overflow at this point says nothing either way ("e^{1000x}" and "e^{2000x}" both overflow).
    if (!x || !y || !isFiniteValue(x) || !isFiniteValue(y)) continue;
    if (!closeComplexAtPoint(x, y, options.tolerance)) return false;
    compared++;
  }
  return compared >= 3;
}

function* scopes(symbols: string[]): Generator<Map<string, number>> {
  for (let p = 0; p < POINTS.length; p++) yield new Map(symbols.map((s, k) => [s, POINTS[p] + k * STEP] as [string, number]));
}

/**
 * Two constant values. Rounding and percent conversion are opt-in (`round`, `percent: fraction`):
 * by default "0.083" is not 1/12 and "50%" is not 0.5. A percent sign alone may be dropped or
 * added ("28%" = "28"): the digits are the same.
 */
export function numbersMatch(x: [number, number], y: [number, number], xPercent: boolean, yPercent: boolean, options: CompareOptions): boolean {
  const same = (p: [number, number], q: [number, number]) => closeConstants(p, q, options.tolerance) || (options.round !== undefined && sameRounded(p, q, options.round));
  if (same(x, y)) return true;
  if (xPercent !== yPercent && options.percent === "fraction") {
    const [pct, plain] = xPercent ? [x, y] : [y, x];
    return same([pct[0] / 100, pct[1] / 100], plain);
  }
  return false;
}

/**
 * Two integers written out in full, compared exactly unless the rubric set a tolerance: true or
 * false, or undefined when they are not both such integers (or a percent sign must be converted).
 */
function sameIntegers(a: MathExpr, b: MathExpr, options: CompareOptions): boolean | undefined {
  if (options.exactIntegers === false) return undefined;
  const [p, q] = [canonicalInteger(a.text), canonicalInteger(b.text)];
  if (p === undefined || q === undefined) return undefined;
  if (p === q) return true;
  // "28%" against 0.28 is a conversion, not a comparison of two integers.
  return a.percent !== b.percent && options.percent === "fraction" ? undefined : false;
}

function sameRounded(x: [number, number], y: [number, number], decimals: number): boolean {
  const r = (v: number) => Math.round(v * 10 ** decimals + (v >= 0 ? 1e-9 : -1e-9));
  return Number.isFinite(x[0]) && Number.isFinite(y[0]) && r(x[0]) === r(y[0]) && r(x[1]) === r(y[1]);
}

type Named = Extract<MathValue, { kind: "named" }>;
type System = Extract<MathValue, { kind: "system" }>;
type Relation = Extract<MathValue, { kind: "relation" }>;

/** True when two read answers are the same mathematical object. */
export function sameValue(a: MathValue, b: MathValue, options: CompareOptions): boolean {
  if (a.kind === "expr" && b.kind === "expr") return sameExpr(a, b, options);
  if (a.kind === "named" && b.kind === "named") return sameValue(a.value, b.value, options) || sameEquation(asEquation(a), asEquation(b), options);
  // "x = 3" is the answer 3; "y = 2x + 3" is also the line 2x - y + 3 = 0.
  if (a.kind === "named" && b.kind === "relation") return sameValue(asEquation(a), b, options);
  if (b.kind === "named" && a.kind === "relation") return sameValue(a, asEquation(b), options);
  if (a.kind === "named") return sameValue(a.value, b, options);
  if (b.kind === "named") return sameValue(a, b.value, options);
  if (a.kind === "system" || b.kind === "system") return sameSystem(a, b, options);
  // A one-element set or tuple equals its element ("{3}" vs "3").
  if (a.kind === "set" && a.items.length === 1 && b.kind !== "set") return sameValue(a.items[0], b, options);
  if (b.kind === "set" && b.items.length === 1 && a.kind !== "set") return sameValue(a, b.items[0], options);
  // "x > 5" is the interval (5, ∞), however the interval is written.
  if (a.kind === "relation" && (b.kind === "interval" || b.kind === "tuple")) return sameInterval(b.kind === "tuple" ? openInterval(b) : b, asInterval(a), options);
  if (b.kind === "relation" && (a.kind === "interval" || a.kind === "tuple")) return sameInterval(a.kind === "tuple" ? openInterval(a) : a, asInterval(b), options);
  // "(0, 1)" is written alike as a point and as an open interval.
  if (a.kind === "interval" && b.kind === "tuple") return sameInterval(a, openInterval(b), options);
  if (b.kind === "interval" && a.kind === "tuple") return sameInterval(b, openInterval(a), options);
  if (a.kind !== b.kind) return false;
  if (a.kind === "tuple" && b.kind === "tuple") return a.items.length === b.items.length && a.items.every((x, i) => sameValue(x, b.items[i], options));
  if (a.kind === "set" && b.kind === "set") return sameSet(a.items, b.items, options);
  if (a.kind === "interval" && b.kind === "interval") return sameInterval(a, b, options);
  if (a.kind === "relation" && b.kind === "relation") return sameRelation(a, b, options);
  return false;
}

type Interval = Extract<MathValue, { kind: "interval" }>;

function openInterval(t: Extract<MathValue, { kind: "tuple" }>): Interval | undefined {
  return t.items.length === 2 ? { kind: "interval", open: [true, true], lo: t.items[0], hi: t.items[1] } : undefined;
}

function sameInterval(a: Interval | undefined, b: Interval | undefined, options: CompareOptions): boolean {
  return a !== undefined && b !== undefined && a.open[0] === b.open[0] && a.open[1] === b.open[1] && sameValue(a.lo, b.lo, options) && sameValue(a.hi, b.hi, options);
}

/**
 * Systems: by name when both name the same variables ("a = 1, b = 2" = "b = 2, a = 1"); against
 * an unnamed list, in the order written ("AB = 4, CD = 5" = "4, 5").
 */
function sameSystem(a: MathValue, b: MathValue, options: CompareOptions): boolean {
  const values = (v: MathValue): MathValue[] | undefined => (v.kind === "system" ? v.items.map((i) => i.value) : v.kind === "tuple" || v.kind === "set" ? v.items : undefined);
  if (a.kind === "system" && b.kind === "system") {
    const names = new Map(b.items.map((i) => [i.name, i.value]));
    if (a.items.length === b.items.length && a.items.every((i) => names.has(i.name))) return a.items.every((i) => sameValue(i.value, names.get(i.name)!, options));
  }
  const [x, y] = [values(a), values(b)];
  // "x_1 = 2, x_2 = 3" numbers the roots of one unknown: a set, whatever the order.
  if (x !== undefined && y !== undefined && (isIndexed(a) || isIndexed(b)) && a.kind !== "tuple" && b.kind !== "tuple") return sameSet(x, y, options);
  return x !== undefined && y !== undefined && x.length === y.length && x.every((v, i) => sameValue(v, y[i], options));
}

const isIndexed = (v: MathValue): boolean => v.kind === "system" && v.items.every((i) => /^[A-Za-z]+_/.test(i.name)) && new Set(v.items.map((i) => i.name.replace(/_.*$/, ""))).size === 1;

function asEquation(n: Named): Relation {
  return { kind: "relation", op: "=", lhs: { kind: "expr", expr: toMathjs(n.name), text: n.name, percent: false }, rhs: n.value };
}

/** "x > 5" as the interval (5, ∞) when one side is a bare variable and the other a constant. */
function asInterval(r: Relation): Interval | undefined {
  if (r.op === "=" || r.op === "!=" || r.lhs.kind !== "expr" || r.rhs.kind !== "expr") return undefined;
  const variable = (e: MathExpr) => e.expr !== undefined && /^\s*[A-Za-z]\w*\s*$/.test(e.expr) && e.expr.trim() !== "pi" && e.expr.trim() !== "e";
  const infinity = (sign: string): MathExpr => ({ kind: "expr", expr: `${sign}Infinity`, text: `${sign}\\infty`, percent: false });
  if (variable(r.lhs) && !variable(r.rhs)) return { kind: "interval", open: [true, r.op === "<"], lo: infinity("-"), hi: r.rhs };
  if (variable(r.rhs) && !variable(r.lhs)) return { kind: "interval", open: [r.op === "<", true], lo: r.lhs, hi: infinity("") };
  return undefined;
}

/** Relations: the same op and sides, or (for formulas) sides whose differences are proportional. */
function sameRelation(a: Relation, b: Relation, options: CompareOptions): boolean {
  if (a.op !== b.op) return false;
  if (sameValue(a.lhs, b.lhs, options) && sameValue(a.rhs, b.rhs, options)) return true;
  if ((a.op === "=" || a.op === "!=") && sameValue(a.lhs, b.rhs, options) && sameValue(a.rhs, b.lhs, options)) return true;
  return sameEquation(a, b, options);
}

/**
 * Equations and inequalities as sets of solutions: "2x + 4y - 3 = 0" is "y = -x/2 + 3/4" because
 * the differences of their sides are proportional (by a nonzero constant; a positive one for
 * an inequality, whose direction it must keep).
 */
function sameEquation(a: Relation, b: Relation, options: CompareOptions): boolean {
  if (a.op !== b.op) return false;
  const fa = difference(a);
  const fb = difference(b);
  if (!fa || !fb) return false;
  const symbols = [...new Set([...fa.symbols, ...fb.symbols])];
  if (symbols.length === 0) return false;
  let ratio: number | undefined;
  let compared = 0;
  for (const scope of scopes(symbols)) {
    const x = valueAt(fa, scope);
    const y = valueAt(fb, scope);
    if (!x || !y || x[1] !== 0 || y[1] !== 0 || !Number.isFinite(x[0]) || !Number.isFinite(y[0])) continue;
    if (Math.abs(y[0]) < 1e-12) {
      if (Math.abs(x[0]) > 1e-12) return false;
      continue;
    }
    const r = x[0] / y[0];
    if (ratio === undefined) ratio = r;
    else if (!closeAtPoint(ratio, r, options.tolerance)) return false;
    compared++;
  }
  if (ratio === undefined || compared < 3 || Math.abs(ratio) < 1e-12) return false;
  return a.op === "=" || a.op === "!=" || ratio > 0;
}

/** lhs - rhs of a relation between two formulas, compiled; undefined otherwise. */
function difference(r: Relation): Compiled | null {
  if (r.lhs.kind !== "expr" || r.rhs.kind !== "expr" || r.lhs.expr === undefined || r.rhs.expr === undefined) return null;
  return compile(`(${r.lhs.expr}) - (${r.rhs.expr})`);
}

/** Set equality: every element of each has an equal element in the other (duplicates ignored). */
function sameSet(a: MathValue[], b: MathValue[], options: CompareOptions): boolean {
  return a.every((x) => b.some((y) => sameValue(x, y, options))) && b.every((y) => a.some((x) => sameValue(x, y, options)));
}
