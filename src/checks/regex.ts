/**
 * User regular expressions (regex checks, json_schema `pattern`) without regex denial of service.
 *
 * A pattern RE2 can run (most: no lookaround, no backreference) runs on RE2 (the `re2-wasm`
 * package, Google's RE2 compiled to WebAssembly): linear in the text, so `(a+)+$` on any input
 * takes microseconds. Linear is not cheap, though: the constant grows with RE2's program, and
 * `a.{20}x` on 10,000 characters of a/b, or `.{0,500}\d{3}` on 2,000, takes over a second. So a
 * check's test whose estimated work (regex-cost.ts `searchWork`: program units × the automaton's
 * states the text can ask for) is past `OFF_THREAD_WORK` runs in a worker thread, awaited, under a
 * limit on its CPU (`testOffThread`): the caller's event loop (a reward server's) goes on
 * meanwhile. A pattern only JavaScript's backtracking engine can run (lookahead, lookbehind,
 * backreferences, as in the shipped guard rubrics) runs in a worker thread under a deadline on its
 * work (src/checks/guarded-worker.ts): a check's test (`testOffThread`) is awaited, so the
 * caller's event loop goes on meanwhile; `test`, which must answer at once, waits synchronously
 * (Atomics.wait). A JSON Schema's `pattern` runs inside ajv's synchronous validator, so its costly
 * tests are awaited by running the validation again once they answered (`withAwaitedPatternTests`),
 * all of one validation's drawing on one budget of worker CPU (`RegexBudget`): a response of many
 * strings, each made costly, cannot hold the workers for as long as it likes.
 * Past the deadline the worker is terminated and the test is a CHECK_TIMEOUT error — never a hang
 * of the process, a reward server or its SIGTERM. An error the text caused (see `regexTextFault`)
 * is the checks' no. Both engines follow JavaScript's flags (i, m, s, u); RE2's `\s`, `\d`, `\w`,
 * `\b` are ASCII-only where JavaScript's `\s` also matches Unicode spaces.
 */
import type { LRUCache } from "lru-cache";
import { createRequire } from "node:module";
import type { RE2 } from "re2-wasm";
import { isRubricateError, RubricateError } from "../errors.js";
import { GuardedPool } from "./guarded-pool.js";
import { GuardedWorker, servingRequests, startEntry } from "./guarded-worker.js";
import { regexShape, searchWork } from "./regex-cost.js";

/** One test for the regex worker (regex-worker.ts): a pattern with its flags (already checked by the caller) and the text; on RE2 with `engine: "re2"`, else on JavaScript's engine. */
export interface RegexRequest {
  pattern: string;
  flags: string;
  text: string;
  engine?: "re2" | "backtracking";
}

/**
 * A test's outcome in the worker; "overflow" when the text overflowed the backtracking engine's
 * stack, "refused" when RE2 could not take the pattern with this text. A pattern that does not
 * compile throws.
 */
export type RegexOutcome = "match" | "no-match" | "overflow" | "refused";

/** How long (in CPU, see guarded-worker.ts) one regex test may run on the backtracking engine before it is the response's no. */
export const REGEX_DEADLINE_MS = 1000;

/**
 * How long (in CPU) one RE2 test in the worker may run before it is the response's no. Longer than
 * the backtracking engine's: RE2 always ends, in time linear in the text, so this only bounds a
 * test's work, and a test stopped takes the worker's warm automaton with it (the next test of the
 * pattern builds it again: `.{0,500}\d{3}`'s first test took 0.7–1.9 s on the 2-core VM, the
 * later ones ~1 ms). Past it: `a.{80}x` on 250,000 characters of a/b (~45 s).
 */
export const REGEX_LINEAR_DEADLINE_MS = 10_000;

/**
 * The worker CPU one verdict's pattern tests on the backtracking engine may spend in all (one
 * `withAwaitedPatternTests` call: a json_schema check, a tool_calls check, a tool call's
 * parameters). Without it a response of N strings, each made to run a lookaround `pattern` to its
 * deadline, held the pool N seconds, and every other sample's tests queued behind them. Twice the
 * deadline: a verdict holds the pool no longer than two runaway tests (the order of the one the
 * deadline already allows), while honest tests spend next to none of it (1,000 lookahead tests of
 * short strings: ~10 ms of the worker's CPU), and one that honestly needs most of its deadline
 * still leaves the others a whole one.
 */
export const REGEX_VERDICT_BUDGET_MS = 2 * REGEX_DEADLINE_MS;

/**
 * The same for a verdict's RE2 tests in the worker, on their own pool: twice
 * `REGEX_LINEAR_DEADLINE_MS`, so that one test building a cold automaton (`.{0,500}\d{3}`'s first
 * took up to 1.9 s) leaves the rest of the verdict more than a deadline.
 */
export const REGEX_LINEAR_VERDICT_BUDGET_MS = 2 * REGEX_LINEAR_DEADLINE_MS;

/**
 * A test's estimated work (regex-cost.ts `searchWork`, in units × characters) past which
 * `testOffThread` runs it in the worker; below it, the test runs on the caller as before. Measured
 * on the 2-core VM, a unit × character of building RE2's automaton costs up to ~550–750 ns: random
 * patterns of classes, alternations and counted repetitions, each on a/b text of the length at
 * this estimate, took a median of ~1 ms and at most ~25–45 ms (a loaded machine's outliers aside).
 * `\d{3}-\d{4}`, `^\s*\{[\s\S]*\}\s*$` or an alternation of phrases stay on the caller up to
 * ~30,000 characters (reading that many takes ~0.6 ms); `a.{20}x` goes to the worker past 85. The
 * worker's round trip costs the caller ~30 µs of CPU, and the copy of the text (BENCHMARKS.md).
 */
export const OFF_THREAD_WORK = 32_768;

/**
 * Options of `safeRegex`. `linearOnly` is for patterns a client sent (per-sample criteria on a
 * reward server): they run on RE2 or not at all, never on the backtracking engine, whose
 * synchronous deadline would hold the server's event loop (one request's 40 patterns: 40 s).
 */
export interface SafeRegexOptions {
  deadlineMs?: number;
  linearOnly?: boolean;
  /** The CPU limit of an RE2 test in the worker (default `REGEX_LINEAR_DEADLINE_MS`). */
  linearDeadlineMs?: number;
  /** Estimated work (regex-cost.ts `searchWork`) past which `testOffThread` runs an RE2 test in the worker (default `OFF_THREAD_WORK`). */
  offThreadAbove?: number;
}

/**
 * A compiled user regex: `test` answers, or throws CHECK_TIMEOUT; `release` frees RE2's memory.
 * `testOffThread` answers as `test` does, at once for a cheap test and, for an RE2 test estimated
 * costly, later, from a worker thread under `linearDeadlineMs` of CPU (the same answer, or the
 * response's CHECK_TIMEOUT past it); a test on the backtracking engine, later too, from a worker
 * under `deadlineMs`, where `test` holds the caller for it. In a thread already under a guarded
 * worker's limit (the client checks' worker), at once. Given a verdict's `budgets`, a worker test
 * draws on them (see `RegexBudget`).
 */
export interface SafeRegex {
  readonly engine: "re2" | "backtracking";
  test(text: string): boolean;
  testOffThread(text: string, budgets?: VerdictBudgets): boolean | Promise<boolean>;
  release(): void;
}

/**
 * Why the text, not the pattern, made a regex test throw: it backtracked past the deadline,
 * overflowed the backtracking engine's stack, or (linear-only) is one RE2 cannot take. The pattern
 * compiled and answers other texts, so checks count such a text as a no, with this reason: as an
 * error, `--errors skip-criterion` would leave the criterion out of the reward, and a response
 * built to make the pattern backtrack would escape it. Undefined for any other error (a worker
 * that cannot start, RE2 out of memory: the machine's), which stays an error.
 * @example try { re.test(text) } catch (e) { const why = regexTextFault(e); if (why) return { pass: false, reasoning: why }; throw e; }
 */
export function regexTextFault(e: unknown): string | undefined {
  const fault = (e as { textFault?: unknown } | null)?.textFault;
  return RubricateError.isInstance(e) && typeof fault === "string" ? fault : undefined;
}

const textError = (code: "CHECK_TIMEOUT" | "CHECK_FAILED" | "REGEX_REFUSED", message: string, textFault: string) => Object.assign(new RubricateError(code, message), { textFault });

/**
 * RE2's WebAssembly heap is fixed at 16 MB and holds both the compiled programs and a copy of the
 * text being matched: longer texts go to the backtracking engine (under its deadline).
 */
const RE2_MAX_TEXT_CHARS = 256 * 1024;

/**
 * What this file loads on first use rather than with `import "rubricate"`: re2-wasm (it compiles
 * its WebAssembly when loaded) and lru-cache.
 */
const requireOnFirstUse = createRequire(import.meta.url);

/**
 * One instance of re2-wasm: its own 16 MB heap. A failure in it (out of memory aborts the module
 * and leaves it unusable) retires it, and the next pattern loads a fresh one: on a reward server,
 * one client's patterns filling the heap must not leave RE2 off, and every later client's
 * linear-only patterns refused, for the rest of the process.
 */
interface Re2Instance {
  RE2: typeof RE2;
}
let liveInstance: Re2Instance | undefined;
const RE2_MODULE_FILE = /[\\/]node_modules[\\/]re2-wasm[\\/]/;

function liveRe2(): Re2Instance {
  if (liveInstance) return liveInstance;
  // Loaded anew (its CommonJS modules dropped from the cache) so a retired heap is not reused; and
  // dropped from the module that required them too, whose `children` list would keep every
  // retired instance, 16 MB each, for the life of the process.
  for (const id of Object.keys(requireOnFirstUse.cache)) {
    if (!RE2_MODULE_FILE.test(id)) continue;
    const loaded = requireOnFirstUse.cache[id];
    const parent = (loaded as { parent?: NodeJS.Module | null } | undefined)?.parent;
    if (parent) parent.children = parent.children.filter((child) => child !== loaded);
    delete requireOnFirstUse.cache[id];
  }
  return (liveInstance = { RE2: requireRe2Quietly().RE2 });
}

/**
 * re2-wasm, its error printer filtered: emscripten prints "Cannot enlarge memory arrays…" to
 * stderr when a heap runs out, which here is expected (a client's pattern filled it) and handled
 * (the instance is retired), so a reward server's log would fill with a wall of text per
 * retirement. The module binds `console.warn` as its printer when it loads; every other message
 * still reaches the console.
 */
function requireRe2Quietly(): typeof import("re2-wasm") {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].startsWith("Cannot enlarge memory arrays")) return;
    warn.apply(console, args);
  };
  try {
    return requireOnFirstUse("re2-wasm") as typeof import("re2-wasm");
  } finally {
    console.warn = warn;
  }
}

/** Gives up an instance that failed, if it is still the live one; the regexes compiled in it compile again in the next when tested. */
function retireRe2(failed: Re2Instance): void {
  if (liveInstance !== failed) return;
  liveInstance = undefined;
  cache?.clear();
}

/** Runs `use` on the live instance, and once more on a fresh one if that fails; undefined if the fresh one fails too. */
function onRe2<T>(use: (instance: Re2Instance) => T): T | undefined {
  for (let attempt = 0; attempt < 2; attempt++) {
    const instance = liveRe2();
    try {
      return use(instance);
    } catch (e) {
      if (e instanceof SyntaxError) throw e;
      retireRe2(instance);
    }
  }
  return undefined;
}

let re2Compiles = 0;

/** How many times RE2 has been asked to compile a pattern in this process: for tests that a refused pattern never compiled, and that a repeated one compiled once. */
export const re2CompileCount = (): number => re2Compiles;

/**
 * Compiles a pattern with JavaScript's syntax and flags ("g" and "y" are dropped: `test` keeps no
 * state). An invalid pattern throws JavaScript's SyntaxError message.
 * @example safeRegex("(a+)+$").test("a".repeat(50) + "b") // false, in microseconds
 */
export function safeRegex(pattern: string, flags = "", options: SafeRegexOptions = {}): SafeRegex {
  const clean = [...new Set(flags.replace(/[gyd]/g, ""))].join("");
  // JavaScript's own parse first: the pattern means what a JavaScript user wrote, and its errors read as JavaScript's.
  new RegExp(pattern, clean);
  const deadlineMs = options.deadlineMs ?? REGEX_DEADLINE_MS;
  const guarded = options.linearOnly ? (text: string) => refuseBacktracking(pattern, clean, text) : (text: string) => guardedTest(pattern, clean, text, deadlineMs);
  // A check awaits its backtracking test: a response that makes the pattern run to its deadline
  // then holds up its own sample, not the caller's event loop (a reward server's other requests).
  const awaited = options.linearOnly ? guarded : (text: string, budgets?: VerdictBudgets) => (servingRequests() ? guarded(text) : backtrackingInWorker(pattern, clean, text, deadlineMs, budgets?.backtracking));
  // A rubric's pattern that plainly needs backtracking skips RE2, which would refuse it anyway: a
  // program whose patterns all do then never loads RE2's wasm (~15 ms of a CLI's start-up). A
  // client's pattern is always put to RE2, which alone decides what it refuses.
  const translated = !options.linearOnly && plainlyBacktracking(pattern) ? undefined : forRe2(pattern, clean);
  const re2Flags = clean.includes("u") ? clean : `${clean}u`;
  let compiled: { instance: Re2Instance; re2: RE2 } | undefined;
  const compileIn = (instance: Re2Instance) => {
    re2Compiles++;
    return (compiled = { instance, re2: new instance.RE2(translated!, re2Flags) });
  };
  try {
    if (translated !== undefined) onRe2(compileIn);
  } catch {
    // A SyntaxError from RE2: lookaround or a backreference, which it cannot run.
  }
  if (!compiled) {
    // Also a pattern too large for a fresh heap of its own (RE2 then never takes it).
    if (options.linearOnly) throw new RubricateError("REGEX_REFUSED", `/${pattern}/${clean}: ${NOT_LINEAR}`);
    return { engine: "backtracking", test: guarded, testOffThread: awaited, release: () => undefined };
  }
  // With "m", JavaScript also ends lines at \r, U+2028 and U+2029 where RE2 knows only \n.
  const lineEnds = clean.includes("m") && /[\^$]/.test(pattern);
  const notForRe2 = (text: string) => text.length > RE2_MAX_TEXT_CHARS || (lineEnds && /[\r\u2028\u2029]/.test(text));
  const testIn = (instance: Re2Instance, text: string): boolean => (compiled?.instance === instance ? compiled : compileIn(instance)).re2.test(text);
  const onCaller = (text: string): boolean => onRe2((instance) => testIn(instance, text)) ?? failedInFreshRe2(pattern, clean, text, options.linearOnly === true, guarded);
  const shape = regexShape(pattern, clean);
  const offThreadAbove = options.offThreadAbove ?? OFF_THREAD_WORK;
  const linearDeadlineMs = options.linearDeadlineMs ?? REGEX_LINEAR_DEADLINE_MS;
  return {
    engine: "re2",
    test: (text) => (notForRe2(text) ? guarded(text) : onCaller(text)),
    testOffThread(text, budgets) {
      if (notForRe2(text)) return awaited(text, budgets);
      if (searchWork(shape, text.length) <= offThreadAbove || servingRequests()) return onCaller(text);
      return re2InWorker(pattern, clean, text, shape.units, linearDeadlineMs, budgets?.re2).then((answer) => answer ?? failedInFreshRe2(pattern, clean, text, options.linearOnly === true, (rest) => awaited(rest, budgets)));
    },
    release() {
      const freed = compiled;
      compiled = undefined;
      try {
        (freed?.re2 as unknown as { wrapper?: { delete?: () => void } } | undefined)?.wrapper?.delete?.();
      } catch {
        if (freed) retireRe2(freed.instance);
      }
    },
  };
}

/**
 * A test that failed in a fresh RE2 heap too (the pattern and the text together do not fit): the
 * backtracking engine under its deadline, or, for a client's linear-only pattern, an error (the
 * machine's limit, not something the response did).
 */
function failedInFreshRe2<T extends boolean | Promise<boolean>>(pattern: string, flags: string, text: string, linearOnly: boolean, backtracking: (text: string) => T): T {
  if (linearOnly) throw new RubricateError("REGEX_REFUSED", `/${pattern}/${flags}: a client-supplied pattern runs only in linear time, and the linear-time engine ran out of memory on a ${text.length}-character text`);
  return backtracking(text);
}

const NOT_LINEAR = "a client-supplied pattern must run in linear time (RE2): no lookahead, lookbehind or backreferences";

/**
 * True when RE2 runs the pattern (no lookaround, no backreference): it then takes linear time on
 * any text. An invalid pattern throws JavaScript's SyntaxError. The compiled pattern is kept in this
 * thread's cache, so a reward server's requests, which often repeat one pattern, compile it once to
 * admit it (scoring compiles it again, in the client checks' worker: checks/off-thread.ts).
 */
export function runsInLinearTime(pattern: string, flags = ""): boolean {
  try {
    compiledRegex(pattern, flags, { linearOnly: true });
    return true;
  } catch (e) {
    if (e instanceof SyntaxError) throw e;
    return false;
  }
}

/** A linear-only pattern on a text RE2 cannot take: an error, never the backtracking engine. */
function refuseBacktracking(pattern: string, flags: string, text: string): never {
  // A text too long, or with \r under the m flag, is the response's: a no.
  const why = text.length > RE2_MAX_TEXT_CHARS ? `the text has ${text.length} characters, more than the linear-time engine takes (${RE2_MAX_TEXT_CHARS})` : "with the m flag, ^ and $ on a text with \\r, U+2028 or U+2029 need the backtracking engine";
  throw textError("REGEX_REFUSED", `/${pattern}/${flags}: a client-supplied pattern runs only in linear time, and ${why}`, `the response cannot be tested against /${pattern}/${flags} in linear time: ${why}`);
}

/**
 * True when the pattern has a lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`) or a numbered or named
 * backreference outside a character class: syntax RE2 does not run.
 */
export function plainlyBacktracking(pattern: string): boolean {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      if (!inClass && (/[1-9]/.test(next) || (next === "k" && pattern[i + 2] === "<"))) return true;
      i++;
    } else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(" && pattern[i + 1] === "?" && (/[=!]/.test(pattern[i + 2] ?? "") || (pattern[i + 2] === "<" && /[=!]/.test(pattern[i + 3] ?? "")))) return true;
  }
  return false;
}

/** JavaScript's `\s`: what RE2's ASCII `\s` lacks is added so a pattern means the same on both engines. */
const JS_SPACE = "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
const JS_LINE_END = "\\n\\r\\u2028\\u2029";

/**
 * The pattern with JavaScript's meaning of `\s`, `\S` and `.` spelled out for RE2; undefined when
 * that cannot be done faithfully (`\S` inside a negated class), so the backtracking engine runs it.
 * A class with `\S` (`[\s\S]`, `[\S,]`) becomes the rest of the class or a non-space:
 * `(?:[\s,]|[^ …])`, since RE2's `\S` in a class is ASCII's.
 */
export function forRe2(pattern: string, flags: string): string | undefined {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "[" && !inClass) {
      const nonSpace = classWithNonSpace(pattern, i);
      if (nonSpace === null) return undefined;
      if (nonSpace !== undefined) {
        // A rest that starts with "^" is that character, not a negation.
        const rest = nonSpace.rest === "" ? "" : forRe2(`[${nonSpace.rest.startsWith("^") ? "\\" : ""}${nonSpace.rest}]`, flags);
        if (rest === undefined) return undefined;
        out += rest === "" ? `[^${JS_SPACE}]` : `(?:${rest}|[^${JS_SPACE}])`;
        i = nonSpace.end;
        continue;
      }
    }
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      i++;
      if (next === "s") out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === "S") {
        if (inClass) return undefined;
        out += `[^${JS_SPACE}]`;
      } else if ((next === "p" || next === "P") && !flags.includes("u")) {
        // Without the u flag JavaScript reads \p{L} as "p{L}"; RE2 would read a Unicode property.
        out += next;
      } else out += `\\${next}`;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      // A leading "]" or "^]" is literal in RE2 but an empty class in JavaScript: leave those to the other engine.
      if (pattern[i + 1] === "]" || (pattern[i + 1] === "^" && pattern[i + 2] === "]")) return undefined;
      continue;
    }
    if (c === "." && !flags.includes("s")) {
      out += `[^${JS_LINE_END}]`;
      continue;
    }
    out += c;
  }
  return out;
}

/**
 * The class opening at `start` when it holds `\S`: where it ends and the rest of its body. Null for
 * a negated one (`[^\S…]`: left to the other engine), undefined for a class without `\S`.
 */
function classWithNonSpace(pattern: string, start: number): { end: number; rest: string } | null | undefined {
  const negated = pattern[start + 1] === "^";
  let rest = "";
  let found = false;
  for (let i = start + (negated ? 2 : 1); i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "]") return !found ? undefined : negated ? null : { end: i, rest };
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      i++;
      if (next === "S") found = true;
      else rest += `\\${next}`;
      continue;
    }
    rest += c;
  }
  return undefined; // unterminated: JavaScript's parse has already refused it
}

/** The backtracking engine's worker: its heap is capped (a text is copied there), and it starts on the first pattern RE2 cannot run. */
const WORKER_HEAP_MB = 256;
/** The wait for the worker to start, which no test's deadline pays for (a busy machine, or tsx compiling the sources in tests). */
const WORKER_STARTUP_MS = 60_000;
/** Starts a regex worker (the backtracking engine's synchronous one, and the pool's for the tests awaited). */
export const startRegexWorker = startEntry({ from: import.meta.url, source: "./regex-worker.ts", built: "regex-worker.js", workerData: { rubricateRegex: true }, heapMb: WORKER_HEAP_MB });
let guard: GuardedWorker | undefined;

/**
 * One test on the backtracking engine, in the worker under a limit on its work (see
 * guarded-worker.ts): the deadline is the test's CPU, so a harmless text on a loaded machine, whose
 * worker waited for a core, is not taken for one that backtracks.
 */
function guardedTest(pattern: string, flags: string, text: string, deadlineMs: number): boolean {
  let run: { value: unknown } | "over-limit";
  try {
    run = (guard ??= new GuardedWorker(startRegexWorker, WORKER_STARTUP_MS)).call({ pattern, flags, text } satisfies RegexRequest, deadlineMs);
  } catch (e) {
    throw failedInWorker(pattern, flags, e);
  }
  return backtrackingAnswer(run, pattern, flags, text, deadlineMs);
}

/** The worker could not start, or the pattern did not compile there: the machine's or the rubric's error, never the response's. */
const failedInWorker = (pattern: string, flags: string, e: unknown): RubricateError => new RubricateError("CHECK_FAILED", `regex /${pattern}/${flags} failed in the worker: ${e instanceof Error ? e.message : String(e)}`);

/** A backtracking test's answer from its worker, or the response's fault (see `regexTextFault`): past the deadline, or over the engine's stack. */
function backtrackingAnswer(run: { value: unknown } | "over-limit", pattern: string, flags: string, text: string, deadlineMs: number): boolean {
  // Stuck backtracking: the worker was stopped (V8 interrupts the regex) and a fresh one is loading.
  // The response's no (see regexTextFault).
  if (run === "over-limit") throw textError("CHECK_TIMEOUT", `regex /${pattern}/${flags} took over ${deadlineMs} ms on a ${text.length}-character text (catastrophic backtracking); rewrite it without nested quantifiers, or without lookaround so it runs in linear time`, `the response made /${pattern}/${flags} backtrack past ${deadlineMs} ms (${text.length} characters); counted as not matching`);
  const outcome = run.value as RegexOutcome;
  if (outcome === "overflow") throw textError("CHECK_FAILED", `regex /${pattern}/${flags} overflowed the backtracking engine's stack on a ${text.length}-character text`, `the response overflowed the regex engine's stack on /${pattern}/${flags} (${text.length} characters); counted as not matching`);
  return outcome === "match";
}

/**
 * The regex workers for the tests awaited (`callAsync`), apart from the backtracking engine's
 * synchronous one (`guard`: a GuardedWorker does not mix the two), in pools, so that samples each
 * bringing a costly test are not all answered one after another by one thread. One pool per
 * engine: a backtracking test (at most `REGEX_DEADLINE_MS`) never waits in line behind RE2 tests of
 * up to `REGEX_LINEAR_DEADLINE_MS` each (on a 2-core machine a pool is one worker), which could
 * hold a reward server's request past its time limit. The limits count each worker's own CPU, so
 * the two pools sharing cores make no test a false timeout.
 */
const pools: { backtracking?: GuardedPool; re2?: GuardedPool } = {};
const pool = (engine: RegexEngine): GuardedPool => (pools[engine] ??= new GuardedPool(startRegexWorker, WORKER_STARTUP_MS));

type RegexEngine = keyof typeof pools;

/** A worker call under `limitMs` of CPU; `meter`, if given, is told the CPU the worker spent on it. */
type MeteredTest = (limitMs: number, meter?: (cpuMs: number) => void) => Promise<{ value: unknown } | "over-limit">;

/** A worker test's run, or "over-budget" when its verdict's budget ran out before it ended (or began). */
type BudgetedRun = { value: unknown } | "over-limit" | "over-budget";

/**
 * What one verdict may still spend of worker CPU on one engine's tests, and the line those tests
 * take. They run one at a time, each under its deadline or what is left, whichever is less, and
 * each spends the CPU its worker reports (one stopped past its limit spends the whole limit: a
 * worker on a loaded machine is stopped at half of it, see guarded-worker.ts). So the tests of one
 * validation pass, all asked at once (every string of an array), and those later passes ask for
 * cannot spend more than the budget between them, however the pool runs them, and a verdict
 * holds at most one of the pool's workers at a time. CPU, not wall time: a loaded machine does
 * not spend an honest response's budget.
 */
export class RegexBudget {
  #leftMs: number;
  #line: Promise<unknown> = Promise.resolve();

  constructor(
    readonly engine: RegexEngine,
    readonly totalMs: number,
  ) {
    this.#leftMs = totalMs;
  }

  /** `test`'s run once the verdict's tests before it have ended; "over-budget", and `test` never started, once nothing is left, or when it ran past a limit the budget had cut below `deadlineMs`. */
  run(deadlineMs: number, test: MeteredTest): Promise<BudgetedRun> {
    const turn = this.#line.then(() => this.#runNow(deadlineMs, test));
    this.#line = turn.catch(() => undefined);
    return turn;
  }

  async #runNow(deadlineMs: number, test: MeteredTest): Promise<BudgetedRun> {
    if (this.#leftMs <= 0) return "over-budget";
    const limitMs = Math.min(deadlineMs, this.#leftMs);
    let spentMs = 0;
    let run: { value: unknown } | "over-limit" | undefined;
    try {
      run = await test(limitMs, (cpuMs) => (spentMs = cpuMs));
    } finally {
      this.#leftMs -= run === "over-limit" ? Math.max(spentMs, limitMs) : spentMs;
    }
    return run === "over-limit" && limitMs < deadlineMs ? "over-budget" : run;
  }
}

/** One verdict's budgets, one per engine: each pool is held by a verdict for at most its own. */
export type VerdictBudgets = Record<RegexEngine, RegexBudget>;

/**
 * Fresh budgets of one verdict's size (`REGEX_VERDICT_BUDGET_MS`, `REGEX_LINEAR_VERDICT_BUDGET_MS`).
 * A verdict gets its own; an environment's rollout shares one across all its tool calls, so a policy
 * cannot spend a verdict's CPU again on every call it makes.
 */
export const verdictBudgets = (): VerdictBudgets => ({ backtracking: new RegexBudget("backtracking", REGEX_VERDICT_BUDGET_MS), re2: new RegexBudget("re2", REGEX_LINEAR_VERDICT_BUDGET_MS) });

/**
 * One test on the backtracking engine, in a worker of the pool, awaited: `guardedTest`'s answers
 * and errors, later; with a verdict's `budget`, under what is left of it, or the response's
 * forfeit once it is spent (`budgetSpent`).
 */
async function backtrackingInWorker(pattern: string, flags: string, text: string, deadlineMs: number, budget?: RegexBudget): Promise<boolean> {
  let run: BudgetedRun;
  try {
    run = await inPool("backtracking", { pattern, flags, text }, deadlineMs, budget);
  } catch (e) {
    throw failedInWorker(pattern, flags, e);
  }
  if (run === "over-budget") throw budgetSpent(pattern, flags, text, budget!);
  return backtrackingAnswer(run, pattern, flags, text, deadlineMs);
}

/** A test in a worker of the engine's pool under `deadlineMs` of CPU, or, a verdict's, in its budget's line (`RegexBudget.run`). */
function inPool(engine: RegexEngine, request: RegexRequest, deadlineMs: number, budget: RegexBudget | undefined): Promise<BudgetedRun> {
  const test: MeteredTest = (limitMs, meter) => pool(engine).callAsync(request, limitMs, meter);
  return budget ? budget.run(deadlineMs, test) : test(deadlineMs);
}

/** A test the verdict's budget left no CPU for (see `RegexBudget`): the response's no, as a test past its deadline is. */
function budgetSpent(pattern: string, flags: string, text: string, budget: RegexBudget): RubricateError {
  const spent = `${budget.totalMs} ms of CPU on the ${budget.engine === "re2" ? "linear-time" : "backtracking"} engine`;
  return textError("CHECK_TIMEOUT", `regex /${pattern}/${flags} was not run to the end on a ${text.length}-character text: the check's pattern tests on this response had used up their budget (${spent})`, `the response's patterns used up the check's regex budget (${spent}) before /${pattern}/${flags} could test a ${text.length}-character text; counted as not matching`);
}

/**
 * One RE2 test in the worker, awaited, under `ms` of CPU: its answer, or undefined where RE2 could
 * not take the pattern with this text there (out of memory in a fresh heap: the caller falls back
 * as `test` does). Past the limit, the response's CHECK_TIMEOUT (see `regexTextFault`), as on the
 * backtracking engine: RE2's time grows with the text, and a response can be made as long as it
 * likes. With a verdict's `budget`, as `backtrackingInWorker`.
 */
async function re2InWorker(pattern: string, flags: string, text: string, units: number, ms: number, budget?: RegexBudget): Promise<boolean | undefined> {
  let run: BudgetedRun;
  try {
    run = await inPool("re2", { pattern, flags, text, engine: "re2" }, ms, budget);
  } catch (e) {
    throw failedInWorker(pattern, flags, e);
  }
  if (run === "over-budget") throw budgetSpent(pattern, flags, text, budget!);
  if (run === "over-limit") {
    const size = `~${units.toLocaleString("en-US")} RE2 program units`;
    throw textError("CHECK_TIMEOUT", `regex /${pattern}/${flags} (${size}) ran past ${ms} ms of CPU on a ${text.length}-character text; lower its counted repetitions' bounds, anchor it, or gate the criterion with \`when:\` a \`length\` check`, `the response (${text.length} characters) kept /${pattern}/${flags} (${size}) running past ${ms} ms of CPU in the linear-time engine; counted as not matching`);
  }
  const outcome = run.value as RegexOutcome;
  return outcome === "refused" ? undefined : outcome === "match";
}

/**
 * The worker's side of `re2InWorker`: the test on RE2 alone, the pattern compiled in this thread's
 * cache, "refused" where RE2 cannot take it (the caller falls back). Never the backtracking engine.
 */
export function testOnRe2(pattern: string, flags: string, text: string): RegexOutcome {
  try {
    return compiledRegex(pattern, flags, { linearOnly: true }).test(text) ? "match" : "no-match";
  } catch (e) {
    if (isRubricateError(e, "REGEX_REFUSED")) return "refused";
    throw e;
  }
}

/**
 * The regex engine ajv uses for json_schema `pattern` and `patternProperties`: the same safe
 * engine as regex checks (ajv's `code.regExp` option).
 */
export const ajvRegExp = ajvRegExpOf({});

/** The same for client-supplied schemas: their patterns run on RE2 only (see `SafeRegexOptions`). */
export const ajvLinearRegExp = ajvRegExpOf({ linearOnly: true });

function ajvRegExpOf(options: { linearOnly?: boolean }) {
  return Object.assign(
    (pattern: string, flags: string): { test(text: string): boolean; toString(): string } => {
      compiledRegex(pattern, flags, options); // invalid (or, linear-only, non-linear) patterns fail when the schema compiles; the compiled one is kept for its tests
      const name = `${options.linearOnly ? "linear:" : ""}/${pattern}/${flags}`;
      // Through the bounded cache at each test: ajv keeps what this returns for as long as the schema lives.
      const test = (text: string) => {
        const regex = compiledRegex(pattern, flags, options);
        return answering ? answering.answer(name, regex, text) : regex.test(text);
      };
      // ajv shares compiled patterns by their toString(), so it must name the pattern.
      return { test, toString: () => `/${pattern}/${flags}` };
    },
    { code: options.linearOnly ? "rubricate-linear-regex" : "rubricate-safe-regex" },
  );
}

/**
 * The answers of one validation under `withAwaitedPatternTests`, kept across its passes: a test
 * `testOffThread` would await is started once, answered provisionally (true) in the pass that
 * asked it, and read from here in the passes after it is settled.
 */
class AnswerSheet {
  private readonly settled = new Map<string, { pass: boolean } | { error: unknown }>();
  readonly pending: Promise<void>[] = [];

  /** `budgets`: drawn on by the tests of every pass (one verdict's, however many passes ask for them), or by a caller's several verdicts. */
  constructor(private readonly budgets: VerdictBudgets = verdictBudgets()) {}

  answer(name: string, regex: SafeRegex, text: string): boolean {
    const key = `${name}\u0000${text}`;
    const known = this.settled.get(key);
    if (known) {
      if ("error" in known) throw known.error;
      return known.pass;
    }
    const answer = regex.testOffThread(text, this.budgets);
    if (typeof answer === "boolean") return answer;
    // A placeholder, so a pass that asks the same test again does not start it twice.
    this.settled.set(key, { pass: true });
    this.pending.push(answer.then((pass) => void this.settled.set(key, { pass }), (error: unknown) => void this.settled.set(key, { error })));
    return true;
  }
}

/** The sheet of the validation running now (passes are synchronous, so at most one at a time). */
let answering: AnswerSheet | undefined;

/**
 * Runs a synchronous computation that tests ajv patterns (a JSON Schema validator) so that no
 * test holds the caller: a pattern test `testOffThread` would await (the backtracking engine's, a
 * costly RE2 one) is started in a worker and provisionally answered, and once those settle the
 * computation runs again with their answers, until a pass asks for no new test. Validation is
 * deterministic, so the last pass is the one with every real answer, and is what this returns (at
 * once when no test was costly). An error a settled test raised (the response's fault, see
 * `regexTextFault`) is thrown from its place in the pass that reads it, as `test` would. The
 * worker tests of one call draw on one budget of CPU per engine (`REGEX_VERDICT_BUDGET_MS`,
 * `REGEX_LINEAR_VERDICT_BUDGET_MS`; see `RegexBudget`): once it is spent, a further test is not
 * run and throws, at its place, the forfeit a test past its deadline throws, with its own reason.
 * A caller that validates many times for one party (a rollout's tool calls) passes one `budgets`
 * for all of them (`verdictBudgets()`).
 * @example const valid = await withAwaitedPatternTests(() => validate(data));
 */
export function withAwaitedPatternTests<T>(compute: () => T, budgets?: VerdictBudgets): T | Promise<T> {
  const sheet = new AnswerSheet(budgets);
  const pass = (): T | Promise<T> => {
    let outcome: { value: T } | { error: unknown };
    const outer = answering;
    answering = sheet;
    try {
      outcome = { value: compute() };
    } catch (error) {
      outcome = { error };
    } finally {
      answering = outer;
    }
    if (sheet.pending.length > 0) return Promise.all(sheet.pending.splice(0)).then(pass);
    if ("error" in outcome) throw outcome.error;
    return outcome.value;
  };
  return pass();
}

/** Compiled regexes kept, least recently used evicted first; evicted ones free their RE2 memory. */
const REGEX_CACHE_LIMIT = 200;
let cache: LRUCache<string, SafeRegex> | undefined;

/** The cache, made (and lru-cache loaded) by the first compiled pattern: a run without regexes never loads it. */
function regexCache(): LRUCache<string, SafeRegex> {
  return (cache ??= new (requireOnFirstUse("lru-cache") as typeof import("lru-cache")).LRUCache<string, SafeRegex>({ max: REGEX_CACHE_LIMIT, dispose: (regex) => regex.release() }));
}

/** The cached compiled form of a pattern (see `safeRegex`). */
export function compiledRegex(pattern: string, flags = "", options: { linearOnly?: boolean } = {}): SafeRegex {
  const key = `${options.linearOnly ? "linear:" : ""}${flags}/${pattern}`;
  let regex = regexCache().get(key);
  if (!regex) {
    regex = safeRegex(pattern, flags, options);
    regexCache().set(key, regex);
  }
  return regex;
}
