/**
 * One verdict's pattern tests (a `withAwaitedPatternTests` call: a json_schema check, a tool_calls
 * check's argument schemas) share a budget of worker CPU per engine. Before, a response of N
 * strings, each made to run a lookaround `pattern` to its 1 s deadline, held the backtracking pool
 * for N seconds (and every other sample's tests queued behind them); N × 10 s with RE2-costly ones.
 * Work is counted, never time: the tests the pools were asked to run, how many at once, and the
 * CPU their workers reported.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { GuardedPool } from "../../src/checks/guarded-pool.js";
import { REGEX_DEADLINE_MS, REGEX_LINEAR_DEADLINE_MS, REGEX_LINEAR_VERDICT_BUDGET_MS, REGEX_VERDICT_BUDGET_MS, RegexBudget } from "../../src/checks/regex.js";
import { runCheck } from "../../src/checks/run.js";

interface PoolWatch {
  /** Tests handed to a regex pool. */
  started: number;
  /** The most handed to the pools and not yet answered, at any moment. */
  mostAtOnce: number;
  /** The CPU the workers reported spending on them. */
  cpuMs: number;
}

/** Counts what the regex workers' pools are asked to do from now on (until the test ends). */
function watchPools(): PoolWatch {
  const watch = { started: 0, mostAtOnce: 0, cpuMs: 0 };
  let inPools = 0;
  const callAsync = GuardedPool.prototype.callAsync;
  vi.spyOn(GuardedPool.prototype, "callAsync").mockImplementation(function (this: GuardedPool, payload, ms, meter) {
    watch.started++;
    watch.mostAtOnce = Math.max(watch.mostAtOnce, ++inPools);
    const metered = (cpuMs: number) => {
      watch.cpuMs += cpuMs;
      meter?.(cpuMs);
    };
    return callAsync.call(this, payload, ms, metered).finally(() => inPools--);
  });
  return watch;
}

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * A string on which `^(?!(a+)+$)` backtracks 2^25 steps (~0.15 s of CPU on the 2-core VM, well
 * under the deadline) and then matches, or `^(?=(a+)+$)` does not; `tag` makes each distinct (each
 * its own test). Past 1,000 characters, so V8 runs the pattern as native code from its first test:
 * a shorter text is interpreted the first time, ~8× slower.
 */
const underDeadline = (tag: number) => `${"a".repeat(25)}b${"c".repeat(1_000)}${tag}`;

/** A string on which `^(?=(a+)+$)` backtracks 2^34 steps and more: past the deadline on any machine. */
const pastDeadline = (tag: number) => `${"a".repeat(34)}${"b".repeat(tag + 1)}`;

const budgetSpent = (ms: number, engine: string) => `the response's patterns used up the check's regex budget (${ms} ms of CPU on the ${engine} engine)`;

describe("a verdict's pattern tests share a budget of worker CPU", () => {
  it("strings that each run a lookaround pattern to its deadline: at most two run, one at a time, and the check is a forfeit", async () => {
    const schema = { type: "array", items: { type: "string", pattern: "^(?=(a+)+$)" } };
    const watch = watchPools();
    const verdict = await runCheck({ json_schema: schema }, { response: JSON.stringify([0, 1, 2, 3, 4, 5].map(pastDeadline)) });
    expect(verdict).toMatchObject({ pass: false, forfeit: true, reasoning: expect.stringMatching(/the response made .* backtrack past \d+ ms/) });
    // Before: six tests, all handed to the pool in the first pass, six deadlines of the pool's time.
    expect(watch.started).toBeLessThanOrEqual(REGEX_VERDICT_BUDGET_MS / REGEX_DEADLINE_MS);
    expect(watch.mostAtOnce).toBe(1);
  }, 90_000);

  it("strings each well under the deadline spend it too: the tests past it are not run, and the forfeit says the budget ran out", async () => {
    const schema = { type: "array", items: { type: "string", pattern: "^(?!(a+)+$)" } };
    const strings = Array.from({ length: 60 }, (_, i) => underDeadline(i));
    const watch = watchPools();
    const verdict = await runCheck({ json_schema: schema }, { response: JSON.stringify(strings) });
    // Before: every string matched in the end, and the check passed after 60 tests (~9 s of the pool).
    expect(verdict).toMatchObject({ pass: false, forfeit: true, reasoning: expect.stringContaining(budgetSpent(REGEX_VERDICT_BUDGET_MS, "backtracking")) });
    expect(watch.started).toBeLessThan(strings.length);
    expect(watch.mostAtOnce).toBe(1);
    // The budget, and at most the test it cut short (a worker stopped at its limit may have run a little past it).
    expect(watch.cpuMs).toBeGreaterThan(0);
    expect(watch.cpuMs).toBeLessThan(2 * REGEX_VERDICT_BUDGET_MS);
  }, 90_000);

  it("tests that later passes ask for draw on the same budget as the first pass's", async () => {
    // Each `if` is false after its backtracking, so only the pass that knows it reaches the `else`,
    // and asks for the next test: one new test per pass, 40 passes in all, then valid.
    let schema: object = { type: "string" };
    for (let level = 39; level >= 0; level--) schema = { if: { pattern: `^(?=(a+)+$)|x{${level}}y` }, then: { const: "never" }, else: schema };
    const watch = watchPools();
    const verdict = await runCheck({ json_schema: schema }, { response: JSON.stringify(underDeadline(0)) });
    // Before: the check passed after 40 passes of one test each.
    expect(verdict).toMatchObject({ pass: false, forfeit: true, reasoning: expect.stringContaining(budgetSpent(REGEX_VERDICT_BUDGET_MS, "backtracking")) });
    expect(watch.started).toBeLessThan(40);
  }, 90_000);

  // RE2's budget is 20 s of CPU: spending it for real would hold a worker of the suite for that
  // long. Its accounting is the same class's (tested below with tests that report CPU they did not
  // spend); here, that a tool_calls check's costly RE2 test draws on the verdict's RE2 budget, and
  // that a spent one is the call's forfeit with its own reason.
  it("costly RE2 tests in a tool_calls check's argument schema draw on the verdict's RE2 budget; once it is spent, each call is a forfeit of it", async () => {
    const run = RegexBudget.prototype.run;
    const engines: string[] = [];
    vi.spyOn(RegexBudget.prototype, "run").mockImplementation(function (this: RegexBudget, deadlineMs, test) {
      engines.push(this.engine);
      return this.engine === "re2" ? Promise.resolve("over-budget") : run.call(this, deadlineMs, test);
    });
    const check = { tool_calls: { arguments: { tool: "search", schema: { type: "object", properties: { q: { type: "string", not: { pattern: "a.{80}x" } } } } } } };
    // a.{80}x on 250,000 characters of a/b: ~45 s of RE2's time, past its 10 s limit, so it is run in a worker.
    const calls = [1, 2].map((seed) => ({ name: "search", arguments: JSON.stringify({ q: ab(250_000, seed) }) }));
    const watch = watchPools();
    const verdict = await runCheck(check, { response: "x", tool_calls: calls });
    expect(verdict.pass).toBe(false);
    expect(engines).toEqual(["re2", "re2"]);
    expect(watch.started).toBe(0);
    expect(verdict.reasoning).toContain(`call 2 (search): ${budgetSpent(REGEX_LINEAR_VERDICT_BUDGET_MS, "linear-time")}`);
  });

  it("an honest response's many cheap pattern tests all run, and it passes", async () => {
    const schema = { type: "array", items: { type: "string", pattern: "^(?![\\s\\S]*forbidden)" } };
    const strings = Array.from({ length: 1_000 }, (_, i) => `item ${i} is fine`);
    const watch = watchPools();
    expect(await runCheck({ json_schema: schema }, { response: JSON.stringify(strings) })).toMatchObject({ pass: true });
    expect(watch.started).toBe(strings.length);
    expect(await runCheck({ json_schema: schema }, { response: JSON.stringify([...strings, "forbidden"]) })).toMatchObject({ pass: false, reasoning: expect.stringMatching(/^schema violations: \/1000 must match pattern/) });
  }, 90_000);

  it("each verdict has a budget of its own: a check that spent its budget leaves the next check's tests theirs", async () => {
    const schema = { type: "array", items: { type: "string", pattern: "^(?!(a+)+$)" } };
    const strings = Array.from({ length: 60 }, (_, i) => underDeadline(100 + i));
    expect(await runCheck({ json_schema: schema }, { response: JSON.stringify(strings) })).toMatchObject({ forfeit: true });
    expect(await runCheck({ json_schema: schema }, { response: JSON.stringify(strings.slice(0, 3)) })).toMatchObject({ pass: true });
  }, 90_000);
});

describe("RegexBudget: the accounting of one verdict's tests on one engine", () => {
  /**
   * A worker test that needs `spentMs` of CPU: "over-limit" when that is past its limit, reporting
   * `reportedMs` (default: what it ran, at most the limit), counting how many run at once.
   */
  function reporting(spentMs: number, seen: { limits: number[]; running: number; mostAtOnce: number }, reportedMs?: number) {
    return async (limitMs: number, meter?: (cpuMs: number) => void) => {
      seen.limits.push(limitMs);
      seen.mostAtOnce = Math.max(seen.mostAtOnce, ++seen.running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.running--;
      meter?.(reportedMs ?? Math.min(spentMs, limitMs));
      return spentMs >= limitMs ? ("over-limit" as const) : { value: true };
    };
  }

  it("tests asked at once run one at a time; two past their deadline spend RE2's 20 s, and the third is never started", async () => {
    const budget = new RegexBudget("re2", REGEX_LINEAR_VERDICT_BUDGET_MS);
    const seen = { limits: [] as number[], running: 0, mostAtOnce: 0 };
    const runs = await Promise.all([1, 2, 3].map(() => budget.run(REGEX_LINEAR_DEADLINE_MS, reporting(Number.POSITIVE_INFINITY, seen))));
    expect(runs).toEqual(["over-limit", "over-limit", "over-budget"]);
    expect(seen.limits).toEqual([REGEX_LINEAR_DEADLINE_MS, REGEX_LINEAR_DEADLINE_MS]);
    expect(seen.mostAtOnce).toBe(1);
  });

  it("a test gets what is left when that is under its deadline; running past that is the budget's forfeit, not the deadline's", async () => {
    const budget = new RegexBudget("backtracking", REGEX_VERDICT_BUDGET_MS);
    const seen = { limits: [] as number[], running: 0, mostAtOnce: 0 };
    // Stopped past its limit after reporting half of it (a loaded machine's worker is stopped at half): the whole limit counts.
    expect(await budget.run(REGEX_DEADLINE_MS, reporting(1_500, seen, REGEX_DEADLINE_MS / 2))).toBe("over-limit");
    expect(await budget.run(REGEX_DEADLINE_MS, reporting(600, seen))).toEqual({ value: true });
    expect(await budget.run(REGEX_DEADLINE_MS, reporting(REGEX_DEADLINE_MS, seen))).toBe("over-budget");
    expect(await budget.run(REGEX_DEADLINE_MS, reporting(1, seen))).toBe("over-budget");
    // The first ran to its whole deadline (1,000 ms counted), the second spent 600 ms, the third got the 400 ms left.
    expect(seen.limits).toEqual([REGEX_DEADLINE_MS, REGEX_DEADLINE_MS, REGEX_VERDICT_BUDGET_MS - REGEX_DEADLINE_MS - 600]);
  });

  it("a test that throws still spends what it reported, and the line goes on", async () => {
    const budget = new RegexBudget("backtracking", REGEX_VERDICT_BUDGET_MS);
    const failing = async (_limitMs: number, meter?: (cpuMs: number) => void) => {
      meter?.(REGEX_VERDICT_BUDGET_MS);
      throw new Error("the worker could not start");
    };
    await expect(budget.run(REGEX_DEADLINE_MS, failing)).rejects.toThrow("could not start");
    expect(await budget.run(REGEX_DEADLINE_MS, async () => ({ value: true }))).toBe("over-budget");
  });
});

/** `n` random a's and b's (a seeded xorshift), on which RE2 builds a new state of `a.{80}x`'s automaton at almost every character. */
function ab(n: number, seed: number): string {
  let state = seed * 2654435761 || 1;
  let text = "";
  for (let i = 0; i < n; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    text += state & 1 ? "a" : "b";
  }
  return text;
}
