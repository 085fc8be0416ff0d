/** CLI cold start: `rubricate --version` and `rubricate validate <rubric>` from the built dist, against bare `node`. */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT, median, round, type BenchContext, type BenchResult } from "./lib/common.js";

interface Row {
  command: string;
  runs: number;
  medianMs: number;
  p90Ms: number;
  overNodeMs: number;
}

function time(args: string[], runs: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    out.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  }
  return out;
}

/** Runs the CLI cold-start benchmark. */
export async function cli(ctx: BenchContext): Promise<BenchResult<Row>> {
  const main = join(ROOT, "dist", "cli", "main.js");
  if (!existsSync(main)) {
    const b = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
    if (b.status !== 0) throw new Error("npm run build failed");
  }
  const runs = ctx.quick ? 5 : 15;
  const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];
  const node = time(["-e", ""], runs);
  const base = median(node);
  const rows: Row[] = [{ command: "node -e '' (floor)", runs, medianMs: round(base, 1), p90Ms: round(p90(node), 1), overNodeMs: 0 }];
  for (const [label, args] of [
    ["rubricate --version", [main, "--version"]],
    ["rubricate validate rubrics/math-answer.yaml", [main, "validate", "rubrics/math-answer.yaml"]],
  ] as const) {
    const t = time([...args], runs);
    rows.push({ command: label, runs, medianMs: round(median(t), 1), p90Ms: round(p90(t), 1), overNodeMs: round(median(t) - base, 1) });
  }
  return {
    title: "CLI cold start (dist/cli/main.js)",
    rows,
    columns: [
      { label: "command", value: "command" },
      { label: "runs", value: "runs", numeric: true },
      { label: "median ms", value: "medianMs", numeric: true },
      { label: "p90 ms", value: "p90Ms", numeric: true },
      { label: "over bare node, ms", value: "overNodeMs", numeric: true },
    ],
  };
}
