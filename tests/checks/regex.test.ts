/**
 * Regex denial of service (issue 16, item 8): user patterns run in linear time on RE2, or under a
 * hard deadline on JavaScript's engine in a worker thread; a runaway pattern is an error, never a hang.
 */
import fc from "fast-check";
import { getHeapSnapshot } from "node:v8";
import { describe, expect, it, vi } from "vitest";
import { compileJsonSchema } from "../../src/checks/compile.js";
import { compiledRegex, forRe2, plainlyBacktracking, re2CompileCount, REGEX_DEADLINE_MS, regexTextFault, safeRegex, withAwaitedPatternTests } from "../../src/checks/regex.js";
import { defaultPoolSize } from "../../src/checks/guarded-pool.js";
import { runCheck } from "../../src/checks/run.js";
import { isRubricateError } from "../../src/errors.js";
import { loopTurnsDuring } from "../helpers/event-loop.js";

const EVIL = "a".repeat(34) + "b"; // 2^34 backtracking steps for (a+)+$ on JavaScript's engine

/** `n` random a's and b's: text on which RE2 builds a new state of `a.{20}x`'s automaton at almost every character. */
const ab = (n: number, seed = 7) => Array.from({ length: n }, () => ((seed = (seed * 1103515245 + 12345) % 2147483648) < 1073741824 ? "a" : "b")).join("");

describe("linear-time regexes", () => {
  it("(a+)+$ on 34 a's and a b answers at once (RE2), in a regex check and in a json_schema pattern", async () => {
    expect(safeRegex("(a+)+$").engine).toBe("re2");
    const verdict = await runCheck({ regex: "(a+)+$" }, { response: EVIL });
    expect(verdict.pass).toBe(false);
    const long = "a".repeat(200_000) + "b";
    expect((await runCheck({ regex: { pattern: "^(a|aa)+$", flags: "i" } }, { response: long })).pass).toBe(false);
    const validate = compileJsonSchema({ type: "string", pattern: "^(a+)+$" });
    expect(validate(EVIL)).toBe(false);
    expect(validate("aaaa")).toBe(true);
    // Two schemas, two patterns: each validator uses its own.
    expect(compileJsonSchema({ type: "string", pattern: "^b+$" })("bbb")).toBe(true);
    expect(compileJsonSchema({ type: "string", pattern: "^c+$" })("bbb")).toBe(false);
    const props = compileJsonSchema({ type: "object", patternProperties: { "^(x+)+$": { type: "number" } } });
    expect(props({ ["x".repeat(40) + "y"]: "not checked" })).toBe(true);
  });

  it("a pattern RE2 cannot run (lookaround) that backtracks past the deadline is a CHECK_TIMEOUT error, and the next test works", async () => {
    const evil = safeRegex("^(?=(a+)+$)");
    expect(evil.engine).toBe("backtracking");
    const started = Date.now();
    let error: unknown;
    try {
      evil.test(EVIL);
    } catch (e) {
      error = e;
    }
    expect(isRubricateError(error, "CHECK_TIMEOUT")).toBe(true);
    expect(String((error as Error).message)).toMatch(/took over \d+ ms/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(REGEX_DEADLINE_MS - 50);
    // The worker was replaced: a benign lookahead answers.
    expect(safeRegex("^(?![\\s\\S]*forbidden)").test("all fine")).toBe(true);
    expect(safeRegex("^(?![\\s\\S]*forbidden)").test("this is forbidden")).toBe(false);
    // As a check the response made it backtrack: a no that says so, not an error `--errors skip-criterion` would leave out.
    const verdict = await runCheck({ regex: "^(?=(a+)+$)" }, { response: EVIL });
    expect(verdict.pass).toBe(false);
    expect(verdict.reasoning).toMatch(/the response made .* backtrack past \d+ ms/);
    // In a json_schema pattern too.
    const validate = compileJsonSchema({ type: "string", pattern: "^(?=(a+)+$)" });
    expect(() => validate(EVIL)).toThrow(/took over/);
    // Three runs to the deadline, each ending its worker, and three fresh workers loaded (tsx compiles
    // the worker's sources): ~3.5 s on a quiet machine, but 40 s in a fresh-clone run where the VM ran
    // every file at half speed (a job whose worker waits for a core gets up to 16× its wall time).
  }, 90_000);

  it("a check's backtracking test is awaited: the event loop turns while a response runs the pattern to its deadline", async () => {
    // Before, `testOffThread` waited for the worker synchronously, as `test` does: a reward server
    // answered no other request for up to the deadline, per such test.
    const { result, turns } = await loopTurnsDuring(() => runCheck({ regex: "^(?=(a+)+$)" }, { response: EVIL }));
    expect(result).toMatchObject({ pass: false, forfeit: true, reasoning: expect.stringMatching(/the response made .* backtrack past \d+ ms/) });
    // Held synchronously, not one turn until it ended.
    expect(turns).toBeGreaterThan(10);
    // Benign texts answer from the pool as the caller would.
    const guard = safeRegex("^(?![\\s\\S]*forbidden)");
    expect(await guard.testOffThread("all fine")).toBe(true);
    expect(await guard.testOffThread("this is forbidden")).toBe(false);
  }, 90_000);

  it("a response that makes a shipped guard pattern backtrack (pii-leak on 100,000 letters) is a no, not an error", async () => {
    const { loadRubric } = await import("../../src/rubric/load.js");
    const rubric = await loadRubric(new URL("../../rubrics/single/pii-leak.yaml", import.meta.url).pathname);
    const check = rubric.criteria.find((c) => c.id === "no-identifiers")!.check!;
    expect((await runCheck(check, { response: "Your order shipped." })).pass).toBe(true);
    const verdict = await runCheck(check, { response: "a".repeat(100_000) });
    expect(verdict.pass).toBe(false);
    expect(verdict.reasoning).toMatch(/backtrack past/);
  }, 30_000);

  it("a text that overflows the backtracking engine's stack, or that is too long for RE2 and backtracks, is a no", async () => {
    const overflow = await runCheck({ regex: "^(?:(a)|b)*$" }, { response: "a".repeat(5_000_000) });
    expect(overflow).toMatchObject({ pass: false, reasoning: expect.stringMatching(/overflowed the regex engine.s stack/), forfeit: true });
    // A linear pattern: past RE2's text limit it runs on the backtracking engine, where it is quadratic.
    const long = await runCheck({ regex: "(a|b)*c" }, { response: "a".repeat(300_000) });
    expect(long).toMatchObject({ pass: false, reasoning: expect.stringMatching(/backtrack past/) });
  }, 30_000);

  it("a client's linear-only pattern on a text RE2 cannot take (too long, or \\r with the m flag) is a no; a client's pattern that needs backtracking stays refused", async () => {
    const long = await runCheck({ regex: "b" }, { response: "a".repeat(300_000) }, { fromClient: true });
    expect(long).toMatchObject({ pass: false, reasoning: expect.stringMatching(/cannot be tested .* in linear time: the text has 300000 characters/) });
    const crlf = await runCheck({ regex: { pattern: "^done$", flags: "m" } }, { response: "step\r\ndone\r\n" }, { fromClient: true });
    expect(crlf).toMatchObject({ pass: false, reasoning: expect.stringMatching(/with the m flag/) });
    await expect(runCheck({ regex: "^(?=a)" }, { response: "a" }, { fromClient: true })).rejects.toSatisfy((e) => isRubricateError(e, "REGEX_REFUSED"));
  });

  /**
   * A pattern that matches `word` and takes RE2 over 1 MB of heap: nine runs of 1,000 of a letter.
   * As much heap as a 20,000-character alternative, in 60% of the compile time (~190 ms against ~320 ms here).
   */
  const heapFiller = (word: string) => `^${word}$|${[..."qrstuvwxz"].map((c) => `${c}{1000}`).join("")}`;

  /**
   * How many times RE2's heap ran out since `compiles` (a `re2CompileCount()`), when `patterns`
   * were compiled since: an instance that ran out is retired and the pattern compiled once more in a
   * fresh one.
   */
  const retirementsSince = (compiles: number, patterns: number) => re2CompileCount() - compiles - patterns;

  it("clients whose patterns fill RE2's 16 MB heap do not turn RE2 off: later clients' linear-only patterns still run, and ones compiled before test again", async () => {
    const early = compiledRegex("^early$", "", { linearOnly: true });
    // Over 1 MB of heap each, until the heap has run out of memory (at the 8th to 11th), long before
    // the cache (200 patterns) evicts any.
    const big = (i: number) => heapFiller(`x${i}`);
    const compiles = re2CompileCount();
    const held = compiledRegex(big(0), "", { linearOnly: true });
    let i = 1;
    for (; i < 40 && retirementsSince(compiles, i) < 1; i++) expect(compiledRegex(big(i), "", { linearOnly: true }).test(`x${i}`)).toBe(true);
    expect(retirementsSince(compiles, i)).toBe(1);
    const later = await runCheck({ regex: "^later \\d+$" }, { response: "later 42" }, { fromClient: true });
    expect(later.pass).toBe(true);
    expect(early.test("early")).toBe(true);
    expect([held.test("x0"), held.test("x1")]).toEqual([true, false]);
  }, 60_000);

  it("a retired RE2 instance is let go: its 16 MB heap does not stay with the process (the module loader kept every one); the log gets no emscripten abort text", async () => {
    // re2-wasm binds console.warn as its printer when an instance loads: the instances loaded after
    // the first retirement below print through this spy.
    const warned: string[] = [];
    const warn = vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warned.push(String(args[0])));
    const fullGc = async () => {
      for await (const _ of getHeapSnapshot()); // eslint-disable-line @typescript-eslint/no-unused-vars
      return process.memoryUsage().external / 2 ** 20;
    };
    const big = (i: number) => heapFiller(`y${i}`);
    compiledRegex("^warm$", "", { linearOnly: true });
    const before = await fullGc();
    // Patterns of over 1 MB each until the heap has run out twice (two retired instances: ~32 MB more if kept).
    const compiles = re2CompileCount();
    let i = 0;
    for (; i < 60 && retirementsSince(compiles, i) < 2; i++) compiledRegex(big(i), "", { linearOnly: true }).test(`y${i}`);
    expect(retirementsSince(compiles, i)).toBe(2);
    const after = await fullGc();
    warn.mockRestore();
    expect(after - before).toBeLessThan(24);
    expect(warned.filter((line) => line.includes("Cannot enlarge memory"))).toEqual([]);
  }, 120_000);

  it("a pattern that does not compile stays the rubric's error, whatever the response", async () => {
    await expect(runCheck({ regex: "(unclosed" }, { response: "a".repeat(100_000) })).rejects.toSatisfy((e) => isRubricateError(e, "SCHEMA"));
  });

  it("invalid patterns keep JavaScript's error message", () => {
    expect(() => safeRegex("(unclosed")).toThrow(/Unterminated group/);
  });
});

describe("same answers as JavaScript's RegExp", () => {
  const cases: [string, string, string[]][] = [
    ["\\s+", "", ["a b", "a\u00a0b", "a\u2028b", "ab", "a\vb", "\ufeff"]],
    // Without the u flag, \p is a plain p to JavaScript (and {L} literal braces); with it, a Unicode property.
    ["^\\p{L}+$", "", ["p{L}", "abc", "p{LL}"]],
    ["[\\p{L}]", "", ["L", "x", "{"]],
    ["^\\p{L}+$", "u", ["abc", "p{L}", "日本"]],
    ["^\\P{L}+$", "", ["P{L}", "123"]],
    ["^\\S+$", "", ["abc", "a\u00a0c", "a c"]],
    ["[\\s,]+", "", ["a, b", "a\u3000b", "ab"]],
    ["a.b", "", ["a\nb", "a\rb", "a\u2028b", "axb"]],
    ["a.b", "s", ["a\nb", "a\rb"]],
    ["^b", "m", ["a\nb", "ab"]],
    ["HELLO", "i", ["say hello", "HELL"]],
    ["\\bcat\\b", "", ["a cat sat", "concatenate"]],
    ["(?<year>\\d{4})-\\d\\d", "", ["2024-05", "24-05"]],
    ["[^\\]]", "", ["]", "a"]],
    ["é+", "", ["caféé", "cafe"]],
    ["\\d+(\\.\\d+)?\\s*(USD|EUR)", "i", ["12.5 usd", "12 eur", "twelve"]],
    ["^\\s*####", "m", ["x\n  #### 42", "## 42"]],
    ["\\u00e9", "", ["é", "e"]],
    ["^[\\s\\S]{0,5}$", "", ["ab\u00a0cd", "a\nb", "abcdef", ""]],
    ["^[\\S^,]+$", "", ["a^,b", "a b", "a\u00a0b", "^"]],
  ];
  it.each(cases)("/%s/%s", (pattern, flags, inputs) => {
    const ours = safeRegex(pattern, flags);
    for (const text of inputs) expect([text, ours.test(text)]).toEqual([text, new RegExp(pattern, flags).test(text)]);
  });

  it("on random texts, for patterns RE2 runs", () => {
    const patterns = [["\\s", ""], [".", ""], ["^.$", "m"], ["[a\\s]+b", "i"], ["\\S\\s\\S", ""], ["x.*y", "s"], ["^[\\s\\S]{2}$", ""], ["[\\Sx]\\s", "i"]] as const;
    for (const [p, f] of patterns) expect(safeRegex(p, f).engine).toBe("re2");
    const chars = fc.constantFrom("a", "b", "x", "y", " ", "\n", "\r", "\t", "\u00a0", "\u2028", "é", "A", "\v");
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 12 }).map((a) => a.join("")), (text) => {
        for (const [p, f] of patterns) if (compiledRegex(p, f).test(text) !== new RegExp(p, f).test(text)) return false;
        return true;
      }),
      { numRuns: 500, seed: 16 },
    );
  });

  it("leaves to JavaScript's engine what RE2 would read differently", () => {
    expect(forRe2("[^\\S]", "")).toBeUndefined();
    expect(forRe2("[]a", "")).toBeUndefined();
    expect(safeRegex("[^\\S\\n]x").engine).toBe("backtracking");
  });

  it("runs a class with \\S on RE2 ([\\s\\S] for any character: a client's only way to write it, since its patterns never reach the other engine)", () => {
    for (const [p, f] of [["[\\s\\S]{0,280}", ""], ["[\\S]x", ""], ["[,\\S]", "i"]]) expect(safeRegex(p, f, { linearOnly: true }).engine).toBe("re2");
    expect(safeRegex("[\\S]x").test("ax")).toBe(true);
    expect(safeRegex("[\\S]x").test("\u00a0x")).toBe(false);
  });
});

describe("a costly RE2 test runs in a worker thread, awaited", () => {
  it("a.{20}x on 10,000 characters of a/b (~1.4 s of RE2 on the 2-core VM) answers from the worker: the event loop turns while it works", async () => {
    const text = ab(10_000);
    const { result, turns } = await loopTurnsDuring(() => runCheck({ regex: "a.{20}x" }, { response: text }));
    expect(result).toMatchObject({ pass: false, reasoning: "does not match /a.{20}x/" });
    // On the caller, the test held the loop: not one turn until it ended.
    expect(turns).toBeGreaterThan(10);
    expect((await runCheck({ regex: "a.{20}x" }, { response: `${text}a${"b".repeat(20)}x` })).pass).toBe(true);
  });

  it("a backtracking test does not wait in line behind costly RE2 tests: it has workers of its own", async () => {
    const guard = safeRegex("^(?![\\s\\S]*forbidden)");
    expect(await guard.testOffThread("warm")).toBe(true); // its worker started, outside the race below
    // As many RE2 tests of seconds each as RE2's pool has workers, so a shared pool would be full.
    const settled: string[] = [];
    const costly = Array.from({ length: defaultPoolSize() }, (_, i) =>
      Promise.resolve(safeRegex("a.{20}x").testOffThread(ab(20_000, 11 + i))).then(
        () => settled.push("re2"),
        () => settled.push("re2"), // past its CPU limit on a slow machine: settled all the same
      ),
    );
    await Promise.resolve(guard.testOffThread("all fine")).then((answer) => settled.push(`backtracking ${answer}`));
    await Promise.all(costly);
    expect(settled[0]).toBe("backtracking true");
  }, 120_000);

  it("a cheap test answers on the caller, at once (a boolean, not a promise); a costly one later", async () => {
    expect(safeRegex("\\d{3}-\\d{4}").testOffThread("call 555-1234, ".repeat(1000))).toBe(true);
    expect(safeRegex("^\\s*\\{[\\s\\S]*\\}\\s*$").testOffThread(`{ "a": "${ab(20_000)}" }`)).toBe(true);
    const later = safeRegex("a.{19}x").testOffThread(ab(1_000));
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(false);
  });

  it("gives the caller's answer, whatever the pattern, flags and text (property)", async () => {
    const atom = fc.constantFrom("a", "b", "x", "é", "[ab]", ".", "\\w", "\\s", "\\S", "\\d", "(?:a|b)", "(?:ab|ba)", "[^x]", "[\\s\\S]");
    const quantifier = fc.constantFrom("", "", "*", "+", "?", "{2}", "{0,3}", "{1,}", "*?");
    const piece = fc.oneof(fc.tuple(atom, quantifier).map(([a, q]) => a + q), fc.constantFrom("^", "$", "\\b"));
    const pattern = fc.array(piece, { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join(""));
    const flags = fc.constantFrom("", "i", "m", "s", "u", "im", "su");
    const text = fc.array(fc.constantFrom("a", "b", "x", " ", "\n", "\r", "é", "A", "1", "\u00a0", "\u2028", "ab"), { maxLength: 60 }).map((chars) => chars.join(""));
    let inWorker = 0;
    await fc.assert(
      fc.asyncProperty(pattern, flags, text, async (p, f, t) => {
        const caller = safeRegex(p, f, { offThreadAbove: Infinity });
        const worker = safeRegex(p, f, { offThreadAbove: -1 });
        try {
          const expected = caller.test(t);
          const answer = worker.testOffThread(t);
          if (answer instanceof Promise) inWorker++;
          return (await answer) === expected;
        } finally {
          caller.release();
          worker.release();
        }
      }),
      { numRuns: 300, seed: 23 },
    );
    // All went to a worker: RE2's test past -1 units of work, the backtracking engine's (a \r with
    // the m flag, which RE2 does not end lines at) always.
    expect(inWorker).toBe(300);
  }, 60_000);

  it("a test past its CPU limit in the worker is the response's no (CHECK_TIMEOUT with its reason), as on the backtracking engine; the next test answers from a fresh worker", async () => {
    const slow = safeRegex("a.{22}x", "", { linearDeadlineMs: 100 });
    const error = await Promise.resolve(slow.testOffThread(ab(40_000, 3))).then(() => undefined, (e: unknown) => e);
    expect(isRubricateError(error, "CHECK_TIMEOUT")).toBe(true);
    expect((error as Error).message).toMatch(/^regex \/a\.\{22\}x\/ \(~[\d,]+ RE2 program units\) ran past 100 ms of CPU on a 40000-character text; lower its counted repetitions' bounds/);
    expect(regexTextFault(error)).toMatch(/^the response \(40000 characters\) kept \/a\.\{22\}x\/ \(~[\d,]+ RE2 program units\) running past 100 ms of CPU in the linear-time engine; counted as not matching$/);
    expect(await safeRegex("a.{22}x").testOffThread(`${"b".repeat(100)}a${"b".repeat(22)}x`)).toBe(true);
  }, 30_000);
});

describe("in scoring", () => {
  it("a response that makes a regex run away scores that criterion unmet (reward 0, no error, also under skip-criterion); the others are scored", async () => {
    const { scoreSample } = await import("../../src/score/score.js");
    const { parseRubric } = await import("../../src/rubric/load.js");
    const rubric = parseRubric(
      ["id: redos", "version: 1", "criteria:", "  - id: nested", "    check: { regex: '(a+)+$' }", "  - id: guarded", "    check: { regex: '^(?=(a+)+$)' }"].join("\n"),
      { filename: "redos.yaml" },
    );
    const stuck = await scoreSample(rubric, { response: EVIL }, { errors: "skip-criterion" });
    expect(stuck.errors).toEqual([]);
    expect(stuck.verdicts.map((v) => [v.id, v.status])).toEqual([["nested", "unmet"], ["guarded", "unmet"]]);
    expect(stuck.reward).toBe(0);
    const fine = await scoreSample(rubric, { response: "aaaa" });
    expect(fine.reward).toBe(1);
  }, 30_000);
});

describe("plainlyBacktracking: a rubric pattern that needs backtracking skips RE2", () => {
  it("finds lookaround and backreferences outside classes, and nothing in classes or escapes", () => {
    for (const p of ["a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b", "(a)\\1", "(?<x>a)\\k<x>", "\\boxed|=\\d(?![\\s\\S]*\\d)"]) expect(plainlyBacktracking(p), p).toBe(true);
    for (const p of ["a(?:b)", "(?<name>a)", "[(?=]", "\\(?=", "[\\1]", "a\\\\1", "[]](?:x)", "^[\\s\\S]{0,280}$"]) expect(plainlyBacktracking(p), p).toBe(false);
  });

  it("such a rubric pattern never compiles in RE2 and answers as before; a client's still goes to RE2, which refuses it", async () => {
    const before = re2CompileCount();
    const pattern = "=\\s*\\d+(?![\\s\\S]*\\d)";
    expect(safeRegex(pattern, "m").engine).toBe("backtracking");
    expect([safeRegex(pattern).test("so x = 7."), safeRegex(pattern).test("x = 7, then 8")]).toEqual([true, false]);
    expect(re2CompileCount()).toBe(before);
    await expect(runCheck({ regex: pattern }, { response: "x = 7" }, { fromClient: true })).rejects.toSatisfy((e) => isRubricateError(e, "REGEX_REFUSED"));
    expect(re2CompileCount()).toBeGreaterThan(before);
  });
});

describe("withAwaitedPatternTests: a JSON Schema's costly pattern tests awaited, with the synchronous answers", () => {
  // Schemas whose path through the validator turns on what backtracking-engine patterns (lookaround,
  // a backreference: each test goes to a worker) answer, beside RE2 ones answered at once: the first
  // pass's provisional answers lead elsewhere than the real ones, so the passes after must follow.
  const schemas = [
    { if: { pattern: "^(?=.*a)" }, then: { pattern: "b$" }, else: { pattern: "^(?!.*c)" } },
    { oneOf: [{ pattern: "^(?=a)" }, { pattern: "(?<=b)c" }, { pattern: "x" }] },
    { not: { pattern: "(a)\\1" } },
    { anyOf: [{ pattern: "(?=z)" }, { not: { pattern: "^(?!.*x)" } }] },
    { type: "object", patternProperties: { "^(?!x)": { type: "string", pattern: "(?=.*z)" }, "^x": { if: { pattern: "(?<!a)b" }, then: { const: "xb" } } }, additionalProperties: false },
    { type: "array", items: { if: { pattern: "(?=ab)" }, then: { not: { pattern: "(b)\\1" } }, else: { pattern: "^[abcxz]{0,3}$" } } },
  ];
  const text = fc.string({ unit: fc.constantFrom("a", "b", "c", "x", "z"), maxLength: 6 });
  const data = fc.oneof(text, fc.array(text, { maxLength: 3 }), fc.dictionary(text, text, { maxKeys: 3 }));

  it("gives the verdict and the errors the synchronous validation gives, for any data", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...schemas.keys()), data, async (which, value) => {
        const validate = compileJsonSchema(schemas[which]);
        const awaited = await withAwaitedPatternTests(() => ({ valid: validate(value), errors: structuredClone(validate.errors) }));
        const valid = validate(value);
        expect(awaited).toEqual({ valid, errors: validate.errors });
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it("answers at once when no test was costly, and later when one was", async () => {
    const cheap = compileJsonSchema({ type: "string", pattern: "^a+$" });
    expect(withAwaitedPatternTests(() => cheap("aaa"))).toBe(true);
    const costly = compileJsonSchema({ type: "string", pattern: "^(?=a)" });
    const later = withAwaitedPatternTests(() => costly("ab"));
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(true);
  });
});
