/**
 * Check throughput: `math` comparisons per second (goal ≥ 5,000 on one core), similarity
 * comparisons per second, `contains` against a lower-cased includes(), `regex` checks (cheap ones
 * on the caller; a costly one's round trip to its worker thread; four costly ones together, through
 * the pool of workers and through pools of one and two), and `tests` executions per
 * second (each a child process).
 * Math runs three workloads: the equivalence table of the tests (MATH/GSM8K/AIME cases,
 * repeated: compiled expressions cached as in training, where a prompt's reference recurs k times),
 * distinct symbolic answers (nothing cached), and distinct GSM8K/AIME numbers (the fast path).
 */
import { availableParallelism } from "node:os";
import { mathEquivalent } from "../src/checks/math/equivalent.js";
import { editSimilarity, rougeL } from "../src/checks/similarity.js";
import { found } from "../src/checks/kinds/contains.js";
import { CheckMemo } from "../src/checks/memo.js";
import { runCheck } from "../src/checks/run.js";
import { GuardedPool, defaultPoolSize } from "../src/checks/guarded-pool.js";
import { startRegexWorker } from "../src/checks/regex.js";
import { readFileSync } from "node:fs";
import { setCodeRunner } from "../src/checks/code/spec.js";
import { childProcessRunner } from "../src/checks/code/runner.js";
import { EQUIVALENT, NOT_EQUIVALENT } from "../tests/checks/math-cases.js";
import { round, type BenchContext, type BenchResult } from "./lib/common.js";

interface Row {
  check: string;
  workload: string;
  n: number;
  perSecond: number;
  goal: string;
}

const MATH_GOAL = 5000;

function rate(n: number, run: (i: number) => void): number {
  const started = performance.now();
  for (let i = 0; i < n; i++) run(i);
  return n / ((performance.now() - started) / 1000);
}

async function rateAsync(n: number, concurrency: number, run: (i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) await run(next++);
  }));
  return n / ((performance.now() - started) / 1000);
}

/** How long `work` took, and the longest the event loop went without running a 5 ms timer meanwhile. */
async function longestPause(work: () => Promise<unknown>): Promise<{ took: number; pause: number }> {
  const started = performance.now();
  let last = started;
  let pause = 0;
  const timer = setInterval(() => {
    pause = Math.max(pause, performance.now() - last);
    last = performance.now();
  }, 5);
  await work();
  clearInterval(timer);
  const ended = performance.now();
  return { took: ended - started, pause: Math.max(pause, ended - last) };
}

/** This thread's CPU time (ms), from /proc; undefined where there is none. */
function threadCpuMs(): number | undefined {
  try {
    return Number(readFileSync("/proc/thread-self/schedstat", "latin1").split(" ")[0]) / 1e6;
  } catch {
    return undefined;
  }
}

const words = "the a model answer reward policy judge rubric check score group prompt token value test case".split(" ");
const text = (seed: number, length: number) => Array.from({ length }, (_, i) => words[(seed * 7 + i * 13 + ((i * i) % 5)) % words.length]).join(" ");

/** Runs the checks benchmark. */
export async function checks(ctx: BenchContext): Promise<BenchResult<Row>> {
  const rows: Row[] = [];
  const table = [...EQUIVALENT, ...NOT_EQUIVALENT];
  const reps = ctx.quick ? 5 : 40;
  mathEquivalent("\\frac{1}{2}", "0.5"); // load mathjs outside the timing
  const tableRate = rate(table.length * reps, (i) => void mathEquivalent(table[i % table.length][1], table[i % table.length][0]));
  rows.push({ check: "math", workload: `equivalence table (${table.length} cases, repeated)`, n: table.length * reps, perSecond: Math.round(tableRate), goal: `${round(tableRate / MATH_GOAL, 2)}× of 5,000/s` });
  const n = ctx.quick ? 1000 : 10_000;
  const symbolic = (i: number) => {
    const k = i + 2;
    switch (i % 4) {
      case 0: return [`so the answer is $\\boxed{\\frac{${k}}{${k + 1}}}$.`, `${k}/${k + 1}`];
      case 1: return [`\\boxed{${k}\\sqrt{${(i % 7) + 2}}}`, `\\sqrt{${k * k * ((i % 7) + 2)}}`];
      case 2: return [`\\boxed{(${k}, \\frac{\\pi}{${(i % 5) + 2}})}`, `(${k}, \\pi/${(i % 5) + 2})`];
      default: return [`\\boxed{x^2+${2 * k}x+${k * k}}`, `(x+${k})^2`];
    }
  };
  const symbolicRate = rate(n, (i) => {
    const [response, reference] = symbolic(i);
    if (!mathEquivalent(response, reference).equivalent) throw new Error(`bench: ${response} should equal ${reference}`);
  });
  rows.push({ check: "math", workload: "distinct symbolic answers (fractions, radicals, tuples, polynomials)", n, perSecond: Math.round(symbolicRate), goal: `${round(symbolicRate / MATH_GOAL, 2)}× of 5,000/s` });
  const numericRate = rate(n, (i) => void mathEquivalent(`She has ${i} apples, so she pays ${i * 3} dollars.\n#### ${i * 3}`, `#### ${i * 3}`));
  rows.push({ check: "math", workload: "distinct GSM8K-style numbers", n, perSecond: Math.round(numericRate), goal: `${round(numericRate / MATH_GOAL, 2)}× of 5,000/s` });

  const pairs = Array.from({ length: 200 }, (_, i) => [text(i, 200), text(i + 1, 200)]);
  const m = ctx.quick ? 200 : 2000;
  const levRate = rate(m, (i) => void editSimilarity(pairs[i % 200][0], pairs[i % 200][1]));
  rows.push({ check: "similarity", workload: "levenshtein, 200-word texts (~1,300 chars)", n: m, perSecond: Math.round(levRate), goal: "—" });
  const rougeRate = rate(m, (i) => void rougeL(pairs[i % 200][0], pairs[i % 200][1]));
  rows.push({ check: "similarity", workload: "rouge-l, 200-word texts", n: m, perSecond: Math.round(rougeRate), goal: "—" });

  // contains reads text and needles as a reader sees them (NFKC, invisible characters, look-alike
  // letters): its peer is the check without that reading, lower-cased includes().
  const answers = (accent: string) => Array.from({ length: 500 }, (_, i) => `${text(i, 45)} paris${accent} ${i}`);
  const needles = ["Paris", "as an AI"];
  const k = ctx.quick ? 5_000 : 50_000;
  for (const [workload, pool] of [["ASCII", answers("")], ["with an accented letter", answers(" café")]] as const) {
    const naive = rate(k, (i) => void needles.filter((n) => pool[i % 500].toLowerCase().includes(n.toLowerCase())));
    const read = rate(k, (i) => void found(needles, pool[i % 500], false, new CheckMemo()));
    rows.push({ check: "contains", workload: `2 needles, case-insensitive, ~300-character ${workload} answers`, n: k, perSecond: Math.round(read), goal: `${round(read / naive, 2)}× of lower-cased includes() (${Math.round(naive)}/s)` });
  }

  // regex checks as a rubric runs them (runCheck, awaited one at a time), with the caller's CPU per
  // check: a cheap test answers on the caller; one estimated costly goes to a worker thread, which
  // frees the caller (a reward server's event loop) and adds a round trip.
  const r = ctx.quick ? 2_000 : 20_000;
  const prose = (i: number, length: number) => text(i, Math.ceil(length / 5)).slice(0, length);
  for (const [workload, pattern, answer] of [
    ["\\d{3}-\\d{4}, ~300-character answers (on the caller)", "\\d{3}-\\d{4}", (i: number) => prose(i, 300)],
    ["^\\s*\\{[\\s\\S]*\\}\\s*$, ~4,000-character JSON answers (on the caller)", "^\\s*\\{[\\s\\S]*\\}\\s*$", (i: number) => `{"answer": "${prose(i, 4_000)}"}`],
    ["\\d{3}-\\d{4}, ~40,000-character answers (in the worker: past the estimate)", "\\d{3}-\\d{4}", (i: number) => prose(i, 40_000)],
  ] as const) {
    const pool = Array.from({ length: 50 }, (_, i) => answer(i));
    const check = { regex: pattern };
    const n = pool[0].length > 10_000 ? Math.ceil(r / 10) : r;
    for (let i = 0; i < 200; i++) await runCheck(check, { response: pool[i % 50] });
    const cpuBefore = threadCpuMs();
    const regexRate = await rateAsync(n, 1, (i) => runCheck(check, { response: pool[i % 50] }));
    const cpuPerCheck = cpuBefore === undefined ? undefined : ((threadCpuMs()! - cpuBefore) * 1000) / n;
    rows.push({ check: "regex", workload, n, perSecond: Math.round(regexRate), goal: cpuPerCheck === undefined ? "—" : `${round(cpuPerCheck, 1)} µs of the caller's CPU a check` });
  }
  // A costly test (RE2 builds a state of a.{20}x's automaton at almost every character of a/b
  // text): the longest the caller's event loop went without running a 5 ms timer meanwhile.
  const abText = (seed: number) => Array.from({ length: 10_000 }, () => ((seed = (seed * 1103515245 + 12345) % 2147483648) < 1073741824 ? "a" : "b")).join("");
  const ab = abText(7);
  await runCheck({ regex: "a.{20}x" }, { response: "x" }); // compiled, as a rubric's patterns are when it loads
  const { took, pause } = await longestPause(() => runCheck({ regex: "a.{20}x" }, { response: ab }));
  rows.push({ check: "regex", workload: "a.{20}x, 10,000 characters of a/b (in the worker)", n: 1, perSecond: round(1000 / took, 2), goal: `longest event-loop pause ${Math.round(pause)} ms of ${Math.round(took)} ms` });
  // Four such tests awaited together (four samples of a reward server): the pool of regex workers
  // runs them side by side, as many at once as it has workers (guarded-pool.ts: one per core beyond
  // the caller's). Then the pool itself at one and at two workers, which tells what a second core
  // gives where the default keeps one worker (this 2-core VM).
  const abs = [8, 9, 10, 11].map(abText);
  const oneByOne = performance.now();
  for (const response of abs) await runCheck({ regex: "a.{20}x" }, { response });
  const tookOneByOne = performance.now() - oneByOne;
  const together = performance.now();
  await Promise.all(abs.map((response) => runCheck({ regex: "a.{20}x" }, { response })));
  const tookTogether = performance.now() - together;
  rows.push({ check: "regex", workload: `a.{20}x, 4 texts of 10,000 characters awaited together (pool of ${defaultPoolSize()})`, n: 4, perSecond: round(4000 / tookTogether, 2), goal: `${Math.round(tookTogether)} ms for 4: ${round(tookOneByOne / tookTogether, 2)}× one at a time (${Math.round(tookOneByOne)} ms)` });
  const bySize = new Map<number, number>();
  for (const size of [1, 2]) {
    const pool = new GuardedPool(startRegexWorker, 60_000, size);
    await Promise.all(Array.from({ length: size }, () => pool.callAsync({ pattern: "a", flags: "", text: "a", engine: "re2" }, 10_000))); // loaded
    const started = performance.now();
    const runs = await Promise.all(abs.map((text) => pool.callAsync({ pattern: "a.{20}x", flags: "", text, engine: "re2" }, 10_000)));
    bySize.set(size, performance.now() - started);
    pool.close();
    if (runs.some((run) => run === "over-limit" || run.value !== "no-match")) throw new Error(`bench: a pool of ${size} answered ${JSON.stringify(runs)}`);
    rows.push({ check: "regex", workload: `the same 4 through a GuardedPool of ${size} worker${size > 1 ? "s" : ""}`, n: 4, perSecond: round(4000 / bySize.get(size)!, 2), goal: size === 1 ? `${Math.round(bySize.get(1)!)} ms for 4` : `${Math.round(bySize.get(size)!)} ms for 4: ${round(bySize.get(1)! / bySize.get(size)!, 2)}× the pool of 1 (ideal ${Math.min(size, availableParallelism())}× on ${availableParallelism()} cores)` });
  }

  // The benchmark's own code is trusted: a plain child process (what --unsafe-no-sandbox selects).
  setCodeRunner(childProcessRunner());
  const width = availableParallelism();
  const t = ctx.quick ? 8 : 40;
  const py = { tests: { language: "python" as const, tests: ["assert add(1, 2) == 3", "assert add(-1, 1) == 0", "assert add(2, 2) == 4"] } };
  const js = { tests: { language: "javascript" as const, tests: ["assert.strictEqual(add(1, 2), 3)", "assert.strictEqual(add(-1, 1), 0)", "assert.strictEqual(add(2, 2), 4)"] } };
  for (const [name, check, response] of [["python", py, "```python\ndef add(a, b):\n    return a + b\n```"], ["javascript", js, "```js\nfunction add(a, b) { return a + b }\n```"]] as const) {
    const runs = await rateAsync(t, width, async () => {
      const verdict = await runCheck(check, { response });
      if (!verdict.pass) throw new Error(`bench: ${name} tests failed: ${verdict.reasoning}`);
    });
    rows.push({ check: "tests", workload: `${name}, 3 asserts, ${width} at once (child process + prlimit)`, n: t, perSecond: round(runs, 1), goal: "—" });
  }
  const worstMath = Math.min(tableRate, symbolicRate, numericRate);
  return {
    title: "Checks per second",
    rows,
    columns: [
      { label: "check", value: "check" },
      { label: "workload", value: "workload" },
      { label: "n", value: "n", numeric: true },
      { label: "per second", value: "perSecond", numeric: true },
      { label: "vs goal", value: "goal" },
    ],
    notes: [
      "math and similarity run on one core (synchronous); every math comparison runs under the node:vm time guard (≈70 µs each).",
      `goal: math ≥ 5,000 comparisons/s — ${worstMath >= MATH_GOAL ? "met" : "NOT met"} on every workload (slowest ${Math.round(worstMath)}/s).`,
    ],
  };
}
