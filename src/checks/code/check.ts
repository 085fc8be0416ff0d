/**
 * `tests`: run the response's code against the task's unit tests (HumanEval, MBPP, pytest style)
 * and reward all, or the share, of tests passed. Python 3 and JavaScript/TypeScript.
 *
 * rubric:  check: { tests: { language: python, tests: "{{test_list}}", reward: share } }
 *
 * The kind's settings and the runner choice live in spec.ts; this harness (with the referee, the
 * runners and the sandbox behind them) loads on the first run of a `tests` check (kinds/tests.ts).
 */
import pLimit from "p-limit";
import { availableParallelism } from "node:os";
import { RubricateError } from "../../errors.js";
import type { Sample } from "../../types.js";
import { renderTemplate } from "../../text/template.js";
import type { CheckInput, CheckResult } from "../kind.js";
import { compileToCommonJs, type Compiled } from "./compile.js";
import { programs } from "./harness.js";
import { referee, type RefereeResult } from "./relay.js";
import { bubblewrapCodeRunner, childProcessRunner, type CodeRunner } from "./runner.js";
import { chosenCodeRunner, TestsSpec, UNSAFE_NO_SANDBOX_ENV } from "./spec.js";

/** Bytes of output read from a run; more ends it. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;

/** Runs at once; each is two processes (judge and candidate), mostly waiting on each other. */
const limit = pLimit(Math.max(1, availableParallelism()));

/** The runner in force: the one set, else the unsafe opt-in from the environment, else bubblewrap. */
function activeRunner(): CodeRunner {
  // Response code is untrusted: it runs in the bubblewrap sandbox unless the caller chose otherwise.
  return chosenCodeRunner() ?? (process.env[UNSAFE_NO_SANDBOX_ENV] === "1" ? childProcessRunner() : bubblewrapCodeRunner());
}

/** The code of a response: the last fenced block in the language (or any fenced block), else the whole text. */
export function extractCode(text: string, language: TestsSpec["language"]): string {
  const tags = language === "python" ? ["python", "py", "python3"] : language === "typescript" ? ["typescript", "ts", "javascript", "js"] : ["javascript", "js", "node"];
  const blocks = fencedBlocks(text);
  const tagged = blocks.filter((b) => tags.includes(b.language.toLowerCase()));
  const chosen = tagged.length ? tagged : blocks;
  return chosen.length ? chosen[chosen.length - 1].body : text;
}

/**
 * The fenced blocks of a text: "```" and an info line, then the body up to the next "```". A scan
 * with indexOf, linear in the text: the regex it replaces (/```[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)```/g)
 * retried from every "```" of a line without a newline, so 40,000 of them held the scorer 20 s.
 */
function fencedBlocks(text: string): { language: string; body: string }[] {
  const blocks: { language: string; body: string }[] = [];
  for (let at = 0; ; ) {
    const open = text.indexOf("```", at);
    if (open < 0) break;
    const eol = text.indexOf("\n", open + 3);
    if (eol < 0) break;
    const close = text.indexOf("```", eol + 1);
    if (close < 0) break;
    blocks.push({ language: /^[ \t]*([\w+-]*)/.exec(text.slice(open + 3, eol))![1], body: text.slice(eol + 1, close) });
    at = close + 3;
  }
  return blocks;
}

/** The test scripts of a sample: a list, one script, or a template naming an input that holds either. */
export function readTests(spec: TestsSpec, sample: Sample): string[] {
  if (Array.isArray(spec.tests)) return spec.tests.map((t) => renderTemplate(t, sample));
  const whole = /^\s*\{\{\s*([\w.-]+)\s*\}\}\s*$/.exec(spec.tests);
  let value: unknown = whole ? sample[whole[1]] : renderTemplate(spec.tests, sample);
  if (whole && (value === undefined || value === null)) throw new RubricateError("MISSING_INPUT", `the sample has no "${whole[1]}" input with the tests`);
  if (typeof value === "string" && /^\s*\[/.test(value)) {
    try {
      value = JSON.parse(value);
    } catch {
      // a script that starts with "[" stays a script
    }
  }
  if (Array.isArray(value)) {
    if (value.length === 0 || !value.every((t) => typeof t === "string")) throw new RubricateError("BAD_INPUT", "the tests input must be a non-empty list of test scripts (strings)");
    return value as string[];
  }
  if (typeof value !== "string" || value.trim() === "") throw new RubricateError("BAD_INPUT", "the tests input must be a test script or a list of them");
  return [value];
}

/** Python as it is; JavaScript and TypeScript as CommonJS (compile.ts: sized, measured, compiled in a process of its own). */
async function toJavaScript(code: string, language: TestsSpec["language"]): Promise<Compiled> {
  return language === "python" ? { code } : compileToCommonJs(code, language);
}

interface TestReport {
  total: number;
  passed: number;
  failures: { index: number; error: string }[];
  loadError?: string;
  problem?: string;
}

/** Reads the judge's records: each test's first result counts, and a run without `done` says why it stopped. */
export function readReport(run: RefereeResult, total: number): TestReport {
  const report: TestReport = { total, passed: 0, failures: [] };
  const seen = new Set<number>();
  let done = false;
  for (const record of run.records) {
    if (record.load_error !== undefined) report.loadError = String(record.load_error);
    if (record.done === true) done = true;
    if (typeof record.test === "number" && Number.isInteger(record.test) && !seen.has(record.test) && record.test >= 0 && record.test < total) {
      seen.add(record.test);
      if (record.ok === true) report.passed++;
      else report.failures.push({ index: record.test, error: String(record.error ?? "failed") });
    }
  }
  if (!done && report.loadError === undefined) report.problem = run.problem ?? "the test run ended early";
  return report;
}

/** Runs one `tests` check: the response's code against the tests, in the runner in force. */
export async function runTests(spec: TestsSpec, { text, sample }: CheckInput): Promise<CheckResult> {
  const tests = readTests(spec, sample);
  const source = await toJavaScript(extractCode(text, spec.language), spec.language);
  if (source.error !== undefined) return { pass: false, reasoning: `the code does not compile: ${source.error}`, ...(spec.reward === "share" ? { score: 0 } : {}) };
  // A test that does not compile goes as written: it fails in the judge, with its error.
  const testSources = spec.language === "typescript" ? await Promise.all(tests.map(async (t) => (await compileToCommonJs(t, "typescript")).code ?? t)) : tests;
  const timeoutMs = spec.timeout_ms ?? 10_000;
  const perTestS = Math.max(1, Math.ceil((spec.test_timeout_ms ?? 3000) / 1000));
  const memoryMb = spec.memory_mb ?? 512;
  const { judge, candidate } = programs(spec.language, source.code!, memoryMb);
  const active = activeRunner();
  const run = await limit(() =>
    referee({
      runner: active,
      judge,
      // V8 reserves far more address space than it uses: node has its heap limit instead.
      candidate: { ...candidate, memoryMb: spec.language === "python" ? memoryMb : 0 },
      job: { tests: testSources, entry_point: spec.entry_point ?? null, per_test_s: perTestS },
      perCallMs: perTestS * 1000,
      timeoutMs,
      maxLineBytes: MAX_OUTPUT_BYTES,
    }),
  );
  const report = readReport(run, tests.length);
  const share = report.passed / report.total;
  const partial = spec.reward === "share" ? { score: share } : {};
  if (report.loadError !== undefined) return { pass: false, reasoning: `the code failed before any test ran: ${report.loadError}`, ...partial };
  const pass = report.passed === report.total;
  if (pass) return { pass, reasoning: `${report.passed}/${report.total} tests passed`, ...partial };
  const first = report.failures.sort((a, b) => a.index - b.index)[0];
  const test = first ? tests[first.index].trim() : "";
  const detail = first ? `; test ${first.index + 1} failed: ${first.error}${test.length < 300 && !first.error.includes(test) ? ` [${test}]` : ""}` : "";
  return { pass, reasoning: `${report.passed}/${report.total} tests passed${report.problem ? ` (${report.problem})` : ""}${detail}`, ...partial };
}
