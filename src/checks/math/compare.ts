/**
 * Equivalence of two read answers. Formulas are compared by value: constants numerically,
 * formulas with variables at several fixed points (two expressions that agree at five generic
 * points are, for the polynomial and elementary expressions of math answers, the same
 * expression; Schwartz–Zippel in spirit). mathjs does the arithmetic, on floats, so no input
 * can make it compute a huge exact number.
 */
import { createRequire } from "node:module";
import type { MathJsInstance, MathNode } from "mathjs";
import type { MathExpr, MathValue } from "./read.js";

let parser: MathJsInstance["parse"] | undefined;

/**
 * Loads mathjs' parser on first use: building the full instance takes a second or two of CPU,
 * which every command that merely loads a rubric would otherwise pay. Called outside the time
 * guard (a slow first load must not count against one answer).
 */
export function loadMathjs(): void {
  if (!parser) {
    const { all, create } = createRequire(import.meta.url)("mathjs") as typeof import("mathjs");
    const math = create(all, {});
    parser = math.parse;
    // mathjs' own advice for untrusted expressions: take away what can reach outside arithmetic.
    const forbidden = () => {
      throw new Error("not available in answers");
    };
    math.import({ import: forbidden, createUnit: forbidden, evaluate: forbidden, parse: forbidden, simplify: forbidden, derivative: forbidden, resolve: forbidden, compile: forbidden, chain: forbidden }, { override: true });
  }
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
  /** Relative tolerance for numbers (default 1e-6); absolute below 1. */
  tolerance: number;
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

/** Equal within a relative tolerance (absolute below 1); infinities only equal themselves. */
export function closeNumbers(a: number, b: number, tolerance: number): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b));
}
const close = closeNumbers;

function closeComplex(a: [number, number], b: [number, number], tolerance: number): boolean {
  return close(a[0], b[0], tolerance) && close(a[1], b[1], tolerance);
}

/** The value of a compiled expression at one point, or undefined. */
function valueAt(c: Compiled, scope: Map<string, number>): [number, number] | undefined {
  try {
    return toComplex(c.evaluate(scope));
  } catch {
    return undefined;
  }
}

/** True when two leaf expressions are equal (numerically, or at every test point where both are defined). */
export function sameExpr(a: MathExpr, b: MathExpr, options: CompareOptions): boolean {
  if (a.text === b.text && a.percent === b.percent) return true;
  if (a.expr === undefined || b.expr === undefined) return a.text === b.text && a.text !== "";
  const ca = compile(a.expr);
  const cb = compile(b.expr);
  if (!ca || !cb) return a.text === b.text;
  const symbols = [...new Set([...ca.symbols, ...cb.symbols])];
  if (symbols.length === 0) {
    const x = valueAt(ca, new Map());
    const y = valueAt(cb, new Map());
    if (!x || !y) return false;
    return numbersMatch(x, y, a, b, options.tolerance);
  }
  // Different variables cannot be the same expression unless one cancels out; the points decide.
  let compared = 0;
  for (let p = 0; p < POINTS.length; p++) {
    const scope = new Map(symbols.map((s, k) => [s, POINTS[p] + k * STEP] as [string, number]));
    const x = valueAt(ca, scope);
    const y = valueAt(cb, scope);
    if (!x || !y || Number.isNaN(x[0]) || Number.isNaN(y[0])) continue;
    if (!closeComplex(x, y, options.tolerance)) return false;
    compared++;
  }
  return compared >= 3;
}

/**
 * Two numbers, allowing for how people write them: a percent may be given with or without its
 * sign ("28%" = 28 = 0.28), and a decimal written with three or more digits matches the value it
 * rounds ("0.667" = 2/3, "0.666" does not).
 */
function numbersMatch(x: [number, number], y: [number, number], a: MathExpr, b: MathExpr, tolerance: number): boolean {
  if (closeComplex(x, y, tolerance)) return true;
  if (x[1] !== 0 || y[1] !== 0) return false;
  if (a.percent !== b.percent) {
    const [pct, plain] = a.percent ? [x[0], y[0]] : [y[0], x[0]];
    if (close(pct / 100, plain, tolerance)) return true;
  }
  for (const [written, exact, other] of [[a, x[0], y[0]], [b, y[0], x[0]]] as const) {
    if (written.decimals !== undefined && written.decimals >= 3 && other !== exact) {
      const factor = 10 ** written.decimals;
      if (Math.round(other * factor) === Math.round(exact * factor) && Math.abs(other - exact) <= 0.5 / factor + 1e-12) return true;
    }
  }
  return false;
}

/** True when two read answers are the same mathematical object. */
export function sameValue(a: MathValue, b: MathValue, options: CompareOptions): boolean {
  if (a.kind === "expr" && b.kind === "expr") return sameExpr(a, b, options);
  // A one-element set or tuple equals its element ("{3}" vs "3"); a bare list compares as a set.
  if (a.kind === "set" && a.items.length === 1 && b.kind !== "set") return sameValue(a.items[0], b, options);
  if (b.kind === "set" && b.items.length === 1 && a.kind !== "set") return sameValue(a, b.items[0], options);
  if (a.kind !== b.kind) return false;
  if (a.kind === "tuple" && b.kind === "tuple") return a.items.length === b.items.length && a.items.every((x, i) => sameValue(x, b.items[i], options));
  if (a.kind === "set" && b.kind === "set") return sameSet(a.items, b.items, options);
  if (a.kind === "interval" && b.kind === "interval") {
    return a.open[0] === b.open[0] && a.open[1] === b.open[1] && sameValue(a.lo, b.lo, options) && sameValue(a.hi, b.hi, options);
  }
  if (a.kind === "relation" && b.kind === "relation") {
    if (a.op !== b.op) return false;
    if (sameValue(a.lhs, b.lhs, options) && sameValue(a.rhs, b.rhs, options)) return true;
    // "=" and "≠" are symmetric.
    return (a.op === "=" || a.op === "!=") && sameValue(a.lhs, b.rhs, options) && sameValue(a.rhs, b.lhs, options);
  }
  return false;
}

/** Set equality: every element of each has an equal element in the other (duplicates ignored). */
function sameSet(a: MathValue[], b: MathValue[], options: CompareOptions): boolean {
  return a.every((x) => b.some((y) => sameValue(x, y, options))) && b.every((y) => a.some((x) => sameValue(x, y, options)));
}
