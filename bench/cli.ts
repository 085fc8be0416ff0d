/**
 * Start-up: `import("rubricate")`, `rubricate --version`, `--help`, `validate`, a one-sample
 * code-check `score` and a one-sample `score` with an openai-compatible judge in batched mode (the
 * start every batched CLI run pays: the fake judge of bench/lib/server.ts in its own process, no
 * latency) from the built dist, against a bare `node -e 0` run in the same loop (interleaved, so
 * the machine's load weighs on all of them alike). Targets as ratios to bare node: import ≤ 2.5×,
 * one-sample score ≤ 4×, --help ≤ 3×.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, builtCli, median, round, type BenchContext, type BenchResult } from "./lib/common.js";
import { startServerChild } from "./lib/server.js";

interface Row {
  command: string;
  runs: number;
  medianMs: number;
  p10Ms: number;
  p90Ms: number;
  ratio: number;
  target: string;
}

const TARGETS: Record<string, number> = { "import('rubricate')": 2.5, "rubricate --help": 3, "rubricate score (1 sample, code checks)": 4 };

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];

/** Runs the start-up benchmark. */
export async function cli(ctx: BenchContext): Promise<BenchResult<Row>> {
  const main = builtCli();
  const dir = mkdtempSync(join(tmpdir(), "rubricate-bench-cli-"));
  const rubric = join(dir, "code.yaml");
  writeFileSync(rubric, "id: code-only\ninputs: [response]\ncriteria:\n  - { id: c1, check: { contains: Paris }, points: 2 }\n  - { id: c2, check: { regex: \"^It\" }, points: 1 }\n  - { id: c3, check: { length: { max: 400, unit: words } }, points: 1 }\n");
  writeFileSync(join(dir, "one.jsonl"), '{"question":"Where is the Eiffel Tower?","response":"It is in Paris."}\n');
  const server = await startServerChild({ latencyMs: 0 });
  writeFileSync(join(dir, "judge.yaml"), `provider: openai-compatible\nmodel: m\nbase_url: ${server.url}\nmode: batched\n`);
  const cases: [string, string[]][] = [
    ["node -e 0 (floor)", ["-e", "0"]],
    ["import('rubricate')", ["--input-type=module", "-e", `await import(${JSON.stringify(join(ROOT, "dist", "index.js"))})`]],
    ["rubricate --version", [main, "--version"]],
    ["rubricate --help", [main, "--help"]],
    ["rubricate validate rubrics/math-answer.yaml", [main, "validate", "rubrics/math-answer.yaml"]],
    ["rubricate score (1 sample, code checks)", [main, "score", rubric, join(dir, "one.jsonl"), "--no-cache", "-q"]],
    ["rubricate score (1 sample, LLM judge, batched)", [main, "score", join(ROOT, "tests/fixtures/rubrics/ten-questions.yaml"), join(dir, "one.jsonl"), "--judge", join(dir, "judge.yaml"), "--no-cache", "-q"]],
  ];
  const runs = ctx.quick ? 5 : 15;
  const times = new Map<string, number[]>(cases.map(([label]) => [label, []]));
  try {
    for (let i = 0; i < runs; i++) {
      for (const [label, args] of cases) {
        const t0 = performance.now();
        const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
        times.get(label)!.push(performance.now() - t0);
        if (r.status !== 0) throw new Error(`${label} exited ${r.status}: ${r.stderr}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
  const base = median(times.get(cases[0][0])!);
  const rows: Row[] = cases.map(([label]) => {
    const t = times.get(label)!;
    const ratio = round(median(t) / base, 2);
    const target = TARGETS[label];
    return { command: label, runs, medianMs: round(median(t), 1), p10Ms: round(quantile(t, 0.1), 1), p90Ms: round(quantile(t, 0.9), 1), ratio, target: target === undefined ? "" : `≤ ${target}× ${ratio <= target ? "met" : "NOT met"}` };
  });
  return {
    title: "Start-up (dist/, interleaved with bare node)",
    rows,
    columns: [
      { label: "command", value: "command" },
      { label: "runs", value: "runs", numeric: true },
      { label: "median ms", value: "medianMs", numeric: true },
      { label: "p10 ms", value: "p10Ms", numeric: true },
      { label: "p90 ms", value: "p90Ms", numeric: true },
      { label: "× bare node", value: "ratio", numeric: true },
      { label: "target", value: "target" },
    ],
    notes: ["Ratios are of medians to `node -e 0` in the same interleaved loop; under load every process slows, so compare ratios, not milliseconds."],
  };
}
