/**
 * `tests` runs per second in the bubblewrap sandbox (the default): each run is a judge process
 * and a candidate process, each in a sandbox of its own, talking through the referee. The ideal is
 * the same two processes with no sandbox (childProcessRunner, `--unsafe-no-sandbox`).
 */
import { setCodeRunner } from "../src/checks/code/spec.js";
import { bubblewrapCodeRunner, childProcessRunner, type CodeRunner } from "../src/checks/code/runner.js";
import { runCheck } from "../src/checks/run.js";
import { MEASURE_COLUMNS, round, type BenchContext, type BenchResult, type MeasureRow as Row } from "./lib/common.js";

const TASKS = {
  python: { spec: { language: "python" as const, tests: ["assert add(1, 2) == 3", "assert add(-4, 4) == 0", "def test_big():\n    assert add(10**12, 1) == 10**12 + 1"] }, response: "```python\ndef add(a, b):\n    return a + b\n```" },
  javascript: { spec: { language: "javascript" as const, tests: ["assert.strictEqual(add(1, 2), 3)", "assert.strictEqual(add(-4, 4), 0)", "assert.deepStrictEqual([add(1, 1)], [2])"] }, response: "```js\nfunction add(a, b) { return a + b }\n```" },
};

/** Runs checks for `seconds`, `width` at a time; runs per second. */
async function rate(runner: CodeRunner, task: (typeof TASKS)[keyof typeof TASKS], seconds: number, width: number): Promise<number> {
  setCodeRunner(runner);
  let done = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (performance.now() < until) {
        const verdict = await runCheck({ tests: task.spec }, { response: task.response });
        if (!verdict.pass) throw new Error(`the honest solution failed: ${verdict.reasoning}`);
        done++;
      }
    }),
  );
  return done / seconds;
}

export async function codeTests(ctx: BenchContext): Promise<BenchResult<Row>> {
  const seconds = ctx.quick ? 4 : 15;
  const rows: Row[] = [];
  const previous = setCodeRunner(undefined);
  try {
    for (const [language, task] of Object.entries(TASKS)) {
      for (const width of [1, 2]) {
        const sandboxed = await rate(bubblewrapCodeRunner(), task, seconds, width);
        const direct = await rate(childProcessRunner(), task, seconds, width);
        rows.push({ measure: `${language}, 3 tests, ${width} at a time`, value: round(sandboxed, 1), unit: "runs/s", ideal: `${round(direct, 1)} runs/s unsandboxed`, ratio: `${round(sandboxed / direct, 3)} of ideal` });
      }
    }
  } finally {
    setCodeRunner(previous);
  }
  return {
    title: "tests check: runs per second in bubblewrap (judge and candidate in separate sandboxes)",
    rows,
    columns: MEASURE_COLUMNS,
    notes: ["each run: two sandboxes (create, write files, spawn, destroy), one interpreter start in each, one call per test through the referee"],
  };
}
