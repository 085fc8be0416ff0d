/**
 * Rows per second through `runDistill` (parse, normalise, best-of-1, min-reward, near-dedup,
 * export) in three cases: rows that carry their scores; rows re-scored by code checks; and rows
 * re-scored by a 10-question LLM judge whose every answer is already in a SQLite cache (cached
 * verdicts: no call made). Each rate is also given as a share of the ideal for a JSONL
 * consumer: reading and JSON-parsing the same file and nothing else.
 * Run: npx tsx bench/distill.ts [--quick]   (or, once registered, npm run bench distill)
 */
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { runDistill } from "../src/distill/run.js";
import { createJudge } from "../src/judge/create.js";
import { loadRubricSync } from "../src/rubric/load.js";
import { scriptedJudge } from "./cache.js";
import { machine, report, ROOT, round, tenQuestions, type BenchContext, type BenchResult } from "./lib/common.js";

interface Row {
  case: string;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  ofIdeal: number;
  judgeCalls: number;
}

/** Rows of `groups` prompts × 4 answers; with `scored`, each carries reward and verdicts. */
function writeRows(path: string, groups: number, scored: boolean): void {
  const lines: string[] = [];
  for (let g = 0; g < groups; g++) {
    for (let k = 0; k < 4; k++) {
      const response = `${k === 3 ? "I don't know" : k === 2 && g % 3 === 0 ? "It is Lyon" : "It is Paris"}, answer number ${g}-${k}, checked against the atlas of ${g * 7 + k}.`;
      const row: Record<string, unknown> = { id: `${g}-${k}`, prompt_id: `p${g}`, question: `Where is the capital of France? (${g})`, response, tags: [`family-${g % 5}`] };
      if (scored) {
        row.reward = k === 3 ? 0 : k === 2 ? 0.66 : 1;
        row.verdicts = [{ id: "names-paris", status: k < 2 || (k === 2 && g % 3 !== 0) ? "met" : "unmet", points: 2 }, { id: "gives-up", status: k === 3 ? "met" : "unmet", points: -2 }];
      }
      lines.push(JSON.stringify(row));
    }
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
}

/** The ideal: seconds to read and JSON.parse every line. */
async function readParseSeconds(path: string): Promise<number> {
  const t0 = performance.now();
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) if (line) JSON.parse(line);
  return (performance.now() - t0) / 1000;
}

/** The distill benchmark (registered in bench/run.ts as `distill`). */
export async function distill(ctx: BenchContext): Promise<BenchResult<Row>> {
  const dir = mkdtempSync(join(tmpdir(), "rubricate-bench-distill-"));
  const rows: Row[] = [];
  const filters = { minReward: 0.5, bestOf: 1, dedup: "near" as const };
  try {
    const measure = async (name: string, input: string, options: Partial<Parameters<typeof runDistill>[0]>, calls: () => number = () => 0) => {
      const ideal = await readParseSeconds(input);
      const t0 = performance.now();
      const result = await runDistill({ input, output: join(dir, "out.jsonl"), filters, ...options });
      const seconds = (performance.now() - t0) / 1000;
      rows.push({ case: name, rows: result.report.rows, seconds: round(seconds), rowsPerSecond: Math.round(result.report.rows / seconds), ofIdeal: round(ideal / seconds, 3), judgeCalls: calls() });
    };

    const scored = join(dir, "scored.jsonl");
    writeRows(scored, ctx.quick ? 5_000 : 50_000, true);
    await measure("scores carried in the rows", scored, {});

    const plain = join(dir, "plain.jsonl");
    writeRows(plain, ctx.quick ? 2_500 : 25_000, false);
    await measure("re-scored by code checks", plain, { rubric: loadRubricSync(join(ROOT, "tests/fixtures/distill/checks-rubric.yaml")) });

    const judged = join(dir, "judged.jsonl");
    writeRows(judged, ctx.quick ? 250 : 2_500, false);
    const cache = join(dir, "cache.db");
    const config = { provider: "openai-compatible" as const, base_url: "http://127.0.0.1:9/v1", model: "bench-judge", max_concurrency: 64 };
    const warm = createJudge(config, { provider: scriptedJudge(), cache });
    await runDistill({ input: judged, rubric: tenQuestions(), judge: warm, filters });
    warm.close?.();
    const judge = createJudge(config, { provider: scriptedJudge(), cache });
    await measure("10 judge questions, all cached", judged, { rubric: tenQuestions(), judge }, () => judge.engine.stats().usage.calls);
    judge.close?.();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    title: "Distillation: rows per second through the filter",
    rows,
    columns: [
      { label: "case", value: "case" },
      { label: "rows", value: "rows", numeric: true },
      { label: "seconds", value: "seconds", numeric: true },
      { label: "rows/s", value: "rowsPerSecond", numeric: true },
      { label: "of read+parse ideal", value: "ofIdeal", numeric: true },
      { label: "judge calls", value: "judgeCalls", numeric: true },
    ],
    notes: [
      "Filters: min-reward 0.5, best-of 1 per prompt (4 rows each), exact and near-duplicate removal (MinHash LSH), OpenAI export written to disk.",
      "'of read+parse ideal' = time to only read and JSON.parse the same file ÷ time of the distill run (1.0 would be free filtering).",
      "Judge calls must be 0 in the cached case: every verdict comes from the SQLite cache.",
    ],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes("--quick");
  const m = machine();
  process.stdout.write(`${m.cpu}, ${m.cores} cores, Node ${m.node}; load average ${m.loadavg.join(" ")}\n`);
  const t0 = performance.now();
  report("distill", await distill({ quick }), { quick }, (performance.now() - t0) / 1000);
}
