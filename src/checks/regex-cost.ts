/**
 * What RE2 builds for a pattern, estimated from the pattern's text before anything compiles: a
 * reward server refuses a client's pattern past a bound (src/bridge/sample-criteria.ts) instead
 * of compiling it on its event loop. One pass over the pattern, no recursion, never throws.
 *
 * The unit is one RE2 instruction on one byte range; the estimate is within ~2× of what re2-wasm
 * compiles. Measured on a loaded 2-core machine, a unit costs 7–35 µs to compile (the first test
 * of an unanchored pattern, which builds RE2's DFA, can cost as much again).
 * - A literal is its UTF-8 bytes. A class is 1, plus for each of its code point ranges the bytes of
 *   every UTF-8 length the range spans (RE2 matches UTF-8 byte by byte): `[a-h]` 2, `.` 19 (it
 *   excludes line ends, so it spans every length), `\p{…}` 2,500 (Unicode's tables: `\p{L}` alone
 *   measured ~2,000). Under `i`, classes and non-ASCII literals count twice (case folding adds ranges).
 * - RE2 writes repetitions out: `x{n,m}` is m copies of x, the last m−n nested optionals, whose
 *   nesting costs (m−n)²/32 more (`a{0,1000}` compiles ~30 times slower than `a{1000}`); `x{n,}`
 *   is n+1 copies. Counts multiply through nesting: `(?:x{10}){10}` is 100 copies of x.
 * Known shapes: `[a-h]{1,1000}x` ≈ 33,000 units (~340 ms measured), `^.{0,280}$` ≈ 7,800,
 * `\d{3}-\d{4}` 17.
 *
 * A search's work (`searchWork`) is estimated too, for checks/regex.ts to choose where a test
 * runs. RE2 searches with an automaton it builds as the text asks for states, each new state
 * costing about the program's units (measured up to ~550–750 ns per unit on the 2-core VM), and
 * reads the text through it (~20 ns a character, its copy into RE2's heap included). A text asks
 * for at most one new state per character, and a pattern has at most ~2^c + p states: p its
 * positions (characters and classes, repetitions written out), c those that can be active in any
 * combination (its classes, `\d`, `.`, `[ab]`, and the characters of an alternation repeated more
 * than once). So `a.{20}x` (c = 20) can build a state at every character of a/b text (~1.4 s on
 * 10,000), while `\d{3}-\d{4}` (c = 7) has at most ~136 states and `\b(?:paris|lyon)\b` ~10. A
 * loop (`*`, `+`, `{n,}`) counts its body once: it repeats a state, not a distance to remember.
 * The bound is an estimate, not RE2's own count (its states also carry flags: `\b`, `^`, `$`).
 */

/** Code points from the first to the second, both included. */
export type CodePointRange = [number, number];

/** JavaScript's `\s`, as code point ranges (regex.ts spells it out the same way for RE2). */
const SPACE: CodePointRange[] = [[0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]];
const DIGIT: CodePointRange[] = [[0x30, 0x39]];
const WORD: CodePointRange[] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
const LINE_ENDS: CodePointRange[] = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];
const MAX_CODE_POINT = 0x10ffff;
/** What a Unicode property class (`\p{L}`, `\P{Greek}`) costs, whatever the property: the largest measured ~2,000. */
export const PROPERTY_CLASS_COST = 2500;
/** A repetition's nested optionals cost (m−n)² / this, on top of their copies. */
const NESTED_OPTIONALS_DIVISOR = 32;
/** Counts past this are read as this: RE2 refuses them anyway (its limit is 1,000), and the estimate stays finite. */
const COUNT_CAP = 1_000_000;

/** UTF-8 lengths and their code points (surrogates excluded, as RE2 does). */
const UTF8_TIERS: [number, number, number][] = [
  [0, 0x7f, 1],
  [0x80, 0x7ff, 2],
  [0x800, 0xd7ff, 3],
  [0xe000, 0xffff, 3],
  [0x10000, MAX_CODE_POINT, 4],
];

/** A class's instructions: 1, plus per range the bytes of every UTF-8 length it spans. */
export function classCost(ranges: readonly CodePointRange[], negated = false, ignoreCase = false): number {
  const set = negated ? complement(ranges) : merged(ranges);
  let cost = 1;
  for (const [lo, hi] of set) for (const [from, to, bytes] of UTF8_TIERS) if (lo <= to && hi >= from) cost += bytes;
  return ignoreCase ? cost * 2 : cost;
}

/** The same code points as sorted ranges that neither overlap nor touch (`[\s\S]` is one range, as RE2 holds it). */
function merged(ranges: readonly CodePointRange[]): CodePointRange[] {
  const out: CodePointRange[] = [];
  for (const [lo, hi] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const last = out.at(-1);
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** The code points not in `ranges`. */
function complement(ranges: readonly CodePointRange[]): CodePointRange[] {
  const out: CodePointRange[] = [];
  let next = 0;
  for (const [lo, hi] of merged(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

const utf8Bytes = (cp: number) => (cp <= 0x7f ? 1 : cp <= 0x7ff ? 2 : cp <= 0xffff ? 3 : 4);

/** Positions of a piece of pattern (see the file's comment): all of them, and those that can be active in any combination. */
interface Positions {
  all: number;
  free: number;
}
const NO_POSITIONS: Positions = { all: 0, free: 0 };
const CHARACTER: Positions = { all: 1, free: 0 };
const CLASS: Positions = { all: 1, free: 1 };
const plus = (a: Positions, b: Positions): Positions => ({ all: a.all + b.all, free: a.free + b.free });
/** Past this many free positions the bound on states is read as this many: any text may ask for a new state at every character anyway. */
const FREE_CAP = 40;

/**
 * An open group: the branches it has closed, the one being written (without its last atom), and
 * that atom (what a quantifier applies to), in units and in positions (`at`); `at.alternation`
 * says the last atom is a group of several branches.
 */
interface Group {
  closed: number;
  branch: number;
  last: number;
  branches: number;
  capture: boolean;
  at: { closed: Positions; branch: Positions; last: Positions; alternation: boolean };
}
const newGroup = (capture: boolean): Group => ({ closed: 0, branch: 0, last: 0, branches: 1, capture, at: { closed: NO_POSITIONS, branch: NO_POSITIONS, last: NO_POSITIONS, alternation: false } });
const groupCost = (g: Group) => g.closed + g.branch + g.last + (g.branches - 1) + (g.capture ? 2 : 0);
const groupPositions = (g: Group) => plus(plus(g.at.closed, g.at.branch), g.at.last);

/** The positions of `p` repeated between `min` and `max` times: a loop counts its body once; an alternation repeated is free in all of its positions. */
function repeatedPositions(p: Positions, alternation: boolean, min: number, max: number): Positions {
  const copies = max === Infinity ? Math.max(min, 1) : max;
  const free = alternation && max >= 2 ? p.all : p.free;
  return { all: Math.min(p.all * copies, Number.MAX_SAFE_INTEGER), free: Math.min(free * copies, Number.MAX_SAFE_INTEGER) };
}

/** The cost of `cost` repeated between `min` and `max` (Infinity) times. */
function repeated(cost: number, min: number, max: number): number {
  const optional = max === Infinity ? 0 : Math.max(0, max - min);
  const copies = max === Infinity ? min + 1 : Math.max(max, 1);
  return Math.min(cost * copies + (optional * optional) / NESTED_OPTIONALS_DIVISOR + 1, Number.MAX_SAFE_INTEGER);
}

const QUANTIFIER = /\{(\d+)(?:(,)(\d*))?\}/y;

/** The counted repetition `{n}`, `{n,}` or `{n,m}` at `i`, or undefined (then "{" is a literal, as JavaScript reads it without the u flag). */
function quantifierAt(pattern: string, i: number): { min: number; max: number; next: number } | undefined {
  QUANTIFIER.lastIndex = i;
  const m = QUANTIFIER.exec(pattern);
  if (!m) return undefined;
  const min = Math.min(Number(m[1]), COUNT_CAP);
  const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Math.min(Number(m[3]), COUNT_CAP);
  return { min, max, next: i + m[0].length };
}

/** RE2's program for a pattern, estimated: its units, and a bound on the states of the automaton a search builds (see the file's comment). */
export interface RegexShape {
  units: number;
  states: number;
}

/**
 * RE2's program for a pattern of JavaScript's syntax and flags, estimated (see the file's
 * comment): a whole number of units, at most Number.MAX_SAFE_INTEGER (counts past a million are read as a million).
 * A pattern JavaScript or RE2 would refuse is estimated all the same, as written.
 * @example regexCost("\\d{3}-\\d{4}") // 17
 */
export function regexCost(pattern: string, flags = ""): number {
  return regexShape(pattern, flags).units;
}

/**
 * The work of searching `chars` characters with a pattern of this shape, at worst, in units ×
 * characters: a new state at each character while there are states left to build, and the reading.
 * @example searchWork(regexShape("a.{20}x"), 10_000) // 383 × 10,000 + 10,000
 */
export function searchWork(shape: RegexShape, chars: number): number {
  return Math.min(shape.units * Math.min(chars, shape.states) + chars, Number.MAX_SAFE_INTEGER);
}

/** `regexCost`'s units, and the bound on the states of the automaton a search builds. One pass, never throws. */
export function regexShape(pattern: string, flags = ""): RegexShape {
  const ignoreCase = flags.includes("i");
  const dot = flags.includes("s") ? classCost([[0, MAX_CODE_POINT]], false, ignoreCase) : classCost(LINE_ENDS, true, ignoreCase);
  const open: Group[] = [];
  let group = newGroup(false);
  const atom = (cost: number, positions: Positions, alternation = false) => {
    group.branch += group.last;
    group.last = cost;
    group.at = { closed: group.at.closed, branch: plus(group.at.branch, group.at.last), last: positions, alternation };
  };
  const repeat = (min: number, max: number) => {
    group.last = repeated(group.last, min, max);
    group.at = { closed: group.at.closed, branch: group.at.branch, last: repeatedPositions(group.at.last, group.at.alternation, min, max), alternation: false };
  };
  const close = () => {
    const inner = groupCost(group);
    const positions = groupPositions(group);
    const alternation = group.branches > 1;
    group = open.pop() ?? newGroup(false);
    atom(inner, positions, alternation);
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === "\\") {
      const escape = escapeAt(pattern, i, ignoreCase);
      atom(escape.cost, escape.positions);
      i = escape.next;
    } else if (c === "[") {
      const klass = classAt(pattern, i, ignoreCase);
      atom(klass.cost, CLASS);
      i = klass.next;
    } else if (c === "(") {
      open.push(group);
      const opening = groupOpening(pattern, i);
      group = newGroup(opening.capture);
      i = opening.next;
    } else if (c === ")") {
      close();
      i++;
    } else if (c === "|") {
      group.closed += group.branch + group.last;
      group.branch = 0;
      group.last = 0;
      group.branches++;
      group.at = { closed: groupPositions(group), branch: NO_POSITIONS, last: NO_POSITIONS, alternation: false };
      i++;
    } else if (c === "*" || c === "+" || c === "?") {
      repeat(c === "+" ? 1 : 0, c === "?" ? 1 : Infinity);
      i += pattern[i + 1] === "?" ? 2 : 1;
    } else if (c === "{" && quantifierAt(pattern, i)) {
      const { min, max, next } = quantifierAt(pattern, i)!;
      repeat(min, max);
      i = pattern[next] === "?" ? next + 1 : next;
    } else if (c === ".") {
      atom(dot, CLASS);
      i++;
    } else {
      const cp = pattern.codePointAt(i)!;
      const anchor = c === "^" || c === "$";
      atom(anchor ? 1 : literalCost(cp, ignoreCase), anchor ? NO_POSITIONS : CHARACTER);
      i += cp > 0xffff ? 2 : 1;
    }
  }
  while (open.length > 0) close();
  const units = Math.min(Math.max(1, Math.ceil(groupCost(group))), Number.MAX_SAFE_INTEGER);
  const { all, free } = groupPositions(group);
  return { units, states: Math.min(2 ** Math.min(free, FREE_CAP) + all, Number.MAX_SAFE_INTEGER) };
}

const literalCost = (cp: number, ignoreCase: boolean) => utf8Bytes(cp) * (ignoreCase && cp > 0x7f ? 2 : 1);

/** What the escape at `i` stands for, outside or inside a class: a set of ranges (negated or not), a code point, or a fixed cost (`\b`, a property, a backreference). */
type Escape = { ranges: CodePointRange[]; negated: boolean } | { cp: number } | { fixed: number };

function readEscape(pattern: string, i: number): { escape: Escape; next: number } {
  const c = pattern[i + 1] ?? "";
  const next = i + 2;
  switch (c) {
    case "d":
    case "D":
      return { escape: { ranges: DIGIT, negated: c === "D" }, next };
    case "w":
    case "W":
      return { escape: { ranges: WORD, negated: c === "W" }, next };
    case "s":
    case "S":
      return { escape: { ranges: SPACE, negated: c === "S" }, next };
    case "p":
    case "P": {
      const end = pattern[next] === "{" ? pattern.indexOf("}", next) : -1;
      return end < 0 ? { escape: { cp: 0x70 }, next } : { escape: { fixed: PROPERTY_CLASS_COST }, next: end + 1 };
    }
    case "b":
    case "B":
      return { escape: { fixed: 1 }, next };
    case "k": {
      const end = pattern[next] === "<" ? pattern.indexOf(">", next) : -1;
      return { escape: { fixed: 1 }, next: end < 0 ? next : end + 1 };
    }
    case "u": {
      const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(pattern.slice(next, next + 8));
      if (braced) return { escape: { cp: Math.min(parseInt(braced[1], 16), MAX_CODE_POINT) }, next: next + braced[0].length };
      const four = /^[0-9a-fA-F]{4}/.exec(pattern.slice(next, next + 4));
      return four ? { escape: { cp: parseInt(four[0], 16) }, next: next + 4 } : { escape: { cp: 0x75 }, next };
    }
    case "x": {
      const two = /^[0-9a-fA-F]{2}/.exec(pattern.slice(next, next + 2));
      return two ? { escape: { cp: parseInt(two[0], 16) }, next: next + 2 } : { escape: { cp: 0x78 }, next };
    }
    default: {
      if (c >= "1" && c <= "9") {
        let end = next;
        while (/[0-9]/.test(pattern[end] ?? "")) end++;
        return { escape: { fixed: 1 }, next: end };
      }
      const cp = pattern.codePointAt(i + 1) ?? 0x5c;
      return { escape: { cp }, next: i + 1 + (cp > 0xffff ? 2 : 1) };
    }
  }
}

/** The escape at `i` outside a class: its cost, its positions (a property is a class; `\b` and a backreference take none), and where the pattern goes on. */
function escapeAt(pattern: string, i: number, ignoreCase: boolean): { cost: number; positions: Positions; next: number } {
  const { escape, next } = readEscape(pattern, i);
  if ("fixed" in escape) return { cost: escape.fixed * (ignoreCase && escape.fixed > 1 ? 2 : 1), positions: escape.fixed > 1 ? CLASS : NO_POSITIONS, next };
  if ("cp" in escape) return { cost: literalCost(escape.cp, ignoreCase), positions: CHARACTER, next };
  return { cost: classCost(escape.ranges, escape.negated, ignoreCase), positions: CLASS, next };
}

/** The group opening at `i`: whether it captures, and where its body starts. */
function groupOpening(pattern: string, i: number): { capture: boolean; next: number } {
  if (pattern[i + 1] !== "?") return { capture: true, next: i + 1 };
  const kind = pattern[i + 2];
  if (kind === ":" || kind === "=" || kind === "!") return { capture: false, next: i + 3 };
  if (kind === "<") {
    if (pattern[i + 3] === "=" || pattern[i + 3] === "!") return { capture: false, next: i + 4 };
    const end = pattern.indexOf(">", i);
    return { capture: true, next: end < 0 ? pattern.length : end + 1 };
  }
  // Modifiers: (?i:…), (?-i:…)
  let next = i + 2;
  while (next < pattern.length && /[a-z-]/i.test(pattern[next])) next++;
  return { capture: false, next: pattern[next] === ":" ? next + 1 : next };
}

/** The class opening at `start` (JavaScript's syntax without the v flag): its cost, and where the pattern goes on. */
function classAt(pattern: string, start: number, ignoreCase: boolean): { cost: number; next: number } {
  let i = start + 1;
  const negated = pattern[i] === "^";
  if (negated) i++;
  const ranges: CodePointRange[] = [];
  let extra = 0;
  /** A "-" after a lone code point: the next code point closes a range from it. */
  let rangeFrom: number | undefined;
  while (i < pattern.length && pattern[i] !== "]") {
    let item: Escape;
    if (pattern[i] === "\\") {
      const read = readEscape(pattern, i);
      // Inside a class \b is a backspace.
      item = pattern[i + 1] === "b" ? { cp: 0x08 } : read.escape;
      i = read.next;
    } else {
      const cp = pattern.codePointAt(i)!;
      item = { cp };
      i += cp > 0xffff ? 2 : 1;
    }
    if (rangeFrom !== undefined) {
      const from = rangeFrom;
      rangeFrom = undefined;
      if ("cp" in item) {
        ranges.push([Math.min(from, item.cp), Math.max(from, item.cp)]);
        continue;
      }
      ranges.push([from, from], [0x2d, 0x2d]);
    }
    if ("cp" in item) {
      if (pattern[i] === "-" && i + 1 < pattern.length && pattern[i + 1] !== "]") {
        rangeFrom = item.cp;
        i++;
      } else ranges.push([item.cp, item.cp]);
    } else if ("fixed" in item) extra += item.fixed;
    else ranges.push(...(item.negated ? complement(item.ranges) : item.ranges));
  }
  if (rangeFrom !== undefined) ranges.push([rangeFrom, rangeFrom], [0x2d, 0x2d]);
  const next = i < pattern.length ? i + 1 : i;
  return { cost: classCost(ranges, negated, ignoreCase) + extra * (ignoreCase ? 2 : 1), next };
}
