/**
 * The `math` check: comparisons per second when warm (mathjs loaded, the case table run once so
 * references are compiled, as in training where a prompt's reference recurs k times), over the
 * 586-case table of tests/checks/math-cases.ts and over distinct symbolic answers; and the cost of
 * the first comparison in a fresh process (importing the check, then one comparison, which loads
 * mathjs), measured in child processes so nothing is loaded beforehand.
 *
 * `npx tsx bench/run.ts math` (or `npm run bench -- math`).
 */
import { execFileSync } from "node:child_process";
import { mathEquivalent } from "../src/checks/math/equivalent.js";
import { CASES } from "../tests/checks/math-cases.js";
import { ROOT, cpuSince, round, type BenchContext, type BenchResult } from "./lib/common.js";

interface Row {
  workload: string;
  n: number;
  value: string;
}

/** Comparisons per second of wall time, and per second of this process's CPU time (steadier on a loaded machine). */
function perSecond(n: number, run: (i: number) => void): { wall: number; cpu: number } {
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) run(i);
  return { wall: n / ((performance.now() - started) / 1000), cpu: n / (cpuSince(cpu) / 1e6) };
}

const rate = (r: { wall: number; cpu: number }) => `${Math.round(r.wall).toLocaleString("en")} /s (${Math.round(r.cpu).toLocaleString("en")} per CPU-second)`;

/** Milliseconds a fresh Node process spends importing the check and on its first comparison. */
function firstComparison(): { importMs: number; firstMs: number; secondMs: number } {
  const script = [
    "const t0 = performance.now();",
    "const { mathEquivalent } = await import('./src/checks/math/equivalent.ts');",
    "const t1 = performance.now();",
    "mathEquivalent('so $\\\\boxed{\\\\frac{1}{2}}$', '0.5');",
    "const t2 = performance.now();",
    "mathEquivalent('so $\\\\boxed{\\\\frac{2}{3}}$', '\\\\frac{4}{6}');",
    "const t3 = performance.now();",
    "console.log(JSON.stringify({ importMs: t1 - t0, firstMs: t2 - t1, secondMs: t3 - t2 }));",
  ].join("\n");
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop()!);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs the math benchmark. */
export async function math(ctx: BenchContext): Promise<BenchResult<Row>> {
  const rows: Row[] = [];
  const cold = Array.from({ length: ctx.quick ? 1 : 5 }, firstComparison);
  rows.push({ workload: "first comparison in a fresh process (loads mathjs), median", n: cold.length, value: `${round(median(cold.map((c) => c.firstMs)), 0)} ms` });
  rows.push({ workload: "importing the check module (mathjs not loaded), median", n: cold.length, value: `${round(median(cold.map((c) => c.importMs)), 0)} ms` });
  rows.push({ workload: "second comparison in that process", n: cold.length, value: `${round(median(cold.map((c) => c.secondMs)), 2)} ms` });

  // Warm: every case once (loads mathjs, compiles the references), then timed rounds.
  const options = CASES.map((c) => ({ ...c.options, timeoutMs: 5000 }));
  const runCase = (i: number) => void mathEquivalent(CASES[i % CASES.length].response, CASES[i % CASES.length].reference, options[i % CASES.length]);
  for (let i = 0; i < CASES.length; i++) runCase(i);
  const reps = ctx.quick ? 3 : 20;
  const tableRate = perSecond(CASES.length * reps, runCase);
  rows.push({ workload: `case table, warm (${CASES.length} cases × ${reps}: upstream suites, formats, traps)`, n: CASES.length * reps, value: rate(tableRate) });

  const n = ctx.quick ? 1000 : 10_000;
  const symbolic = (i: number): [string, string] => {
    const k = i + 2;
    switch (i % 5) {
      case 0: return [`so the answer is $\\boxed{\\frac{${k}}{${k + 1}}}$.`, `${k}/${k + 1}`];
      case 1: return [`\\boxed{${k}\\sqrt{${(i % 7) + 2}}}`, `\\sqrt{${k * k * ((i % 7) + 2)}}`];
      case 2: return [`\\boxed{(${k}, \\frac{\\pi}{${(i % 5) + 2}})}`, `(${k}, \\pi/${(i % 5) + 2})`];
      case 3: return [`$\\boxed{x = ${k}} \\quad \\text{and} \\quad \\boxed{y = ${-k}}$`, `x = ${k}, y = ${-k}`];
      default: return [`\\boxed{x^2+${2 * k}x+${k * k}}`, `(x+${k})^2`];
    }
  };
  const symbolicRate = perSecond(n, (i) => {
    const [response, reference] = symbolic(i);
    if (!mathEquivalent(response, reference).equivalent) throw new Error(`bench: ${response} should equal ${reference}`);
  });
  rows.push({ workload: "distinct symbolic answers (fractions, radicals, tuples, systems, polynomials; nothing cached)", n, value: rate(symbolicRate) });
  const numericRate = perSecond(n, (i) => void mathEquivalent(`She has ${i} apples, so she pays ${i * 3} dollars.\n#### ${i * 3}`, `#### ${i * 3}`));
  rows.push({ workload: "distinct GSM8K-style numbers (plain-number path)", n, value: rate(numericRate) });

  return {
    title: "math check: warm comparisons per second and first-comparison cost",
    rows,
    columns: [
      { label: "workload", value: "workload" },
      { label: "n", value: "n", numeric: true },
      { label: "result", value: "value" },
    ],
    notes: [
      "Synchronous; every formula is read and compared in the guard's worker thread (src/checks/guarded-worker.ts), the caller blocked meanwhile, so the per-CPU-second figure counts both threads. mathjs loads in that worker, on the first formula and outside its time limit; the calling thread never loads it (tests/checks/math.test.ts). Plain numbers are compared in place.",
      "First-comparison figures come from fresh `node --import tsx` child processes (tsx transpiles on import, so the import figure includes that).",
    ],
    extra: { cold, tableRate, symbolicRate, numericRate },
  };
}
