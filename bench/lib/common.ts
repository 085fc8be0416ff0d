/** Shared pieces of the benchmarks: rubrics, samples, judges, tables and result files. */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createJudge, type EngineJudge } from "../../src/judge/create.js";
import type { JudgeConfigInput } from "../../src/judge/config.js";
import { loadRubricSync, parseRubric } from "../../src/rubric/load.js";
import type { Rubric } from "../../src/rubric/schema.js";
import { markdownTable } from "../../src/report/markdown.js";
import type { Column } from "../../src/report/html.js";
import type { Sample } from "../../src/types.js";
import { createScriptedProvider } from "../../src/providers/index.js";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Options every benchmark receives. */
export interface BenchContext {
  /** Smaller sizes for a fast smoke run (`--quick`). */
  quick: boolean;
}

/** What a benchmark hands back: rows for the table, plus anything else worth keeping in the JSON. */
export interface BenchResult<Row = Record<string, unknown>> {
  title: string;
  rows: Row[];
  columns: Column<Row>[];
  /** Lines printed under the table (what the figures mean, verdicts against the targets). */
  notes?: string[];
  extra?: Record<string, unknown>;
}

/** The 10-question rubric of the tests (one LLM question per criterion). */
export const tenQuestions = (): Rubric => loadRubricSync(join(ROOT, "tests/fixtures/rubrics/ten-questions.yaml"));

/** A rubric of 10 code checks, no judge. */
export const codeOnly = (): Rubric =>
  parseRubric(
    `id: code-only
inputs: [question, response, json]
criteria:
  - { id: c1, check: { contains: Paris }, points: 2 }
  - { id: c2, check: { not_contains: [London, Berlin] }, points: 1 }
  - { id: c3, check: { regex: { pattern: "\\\\bnumber \\\\d+", flags: i } }, points: 1 }
  - { id: c4, check: { length: { min: 10, max: 2000, unit: chars } }, points: 1 }
  - { id: c5, check: { length: { max: 400, unit: words } }, points: 1 }
  - { id: c6, check: { number: { expected: 7, tolerance: 1000000 } }, points: 1 }
  - { id: c7, check: { contains: [France, Seine], match: any, case_sensitive: false }, points: 1 }
  - { id: c8, check: { equals: "nope" }, points: -1 }
  - { id: c9, check: { regex: "^It" }, points: 1 }
  - { id: c10, check: { json_schema: { type: object, required: [answer] }, field: json }, points: 1 }
`,
    { filename: "code-only.yaml" },
  );

/** A sample of about `chars` characters of response text; distinct per index. */
export function sample(i: number, chars = 600): Sample {
  const filler = " The river Seine crosses the city, and the answer has been checked against two atlases.";
  let response = `It is in Paris, France (answer number ${i}).`;
  while (response.length < chars) response += filler;
  return { id: i, question: "Where is the Eiffel Tower?", response: response.slice(0, chars), json: `{"answer": ${i}}` };
}

/** `n` distinct samples, generated lazily. */
export function* samples(n: number, chars?: number, from = 0): Generator<Sample> {
  for (let i = from; i < from + n; i++) yield sample(i, chars);
}

/** A judge on the benchmark server, with its own engine (memory cache unless told). */
export function benchJudge(url: string, config: Partial<JudgeConfigInput> = {}, cache: string | false | null = null): EngineJudge {
  return createJudge({ provider: "openai-compatible", base_url: url, model: "bench-judge", max_retries: 5, timeout_ms: 30_000, ...config }, { cache });
}

/** The built CLI's entry (dist/cli/main.js), built first when it is missing. */
export function builtCli(): string {
  const main = join(ROOT, "dist", "cli", "main.js");
  if (!existsSync(main)) {
    const b = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" });
    if (b.status !== 0) throw new Error("npm run build failed");
  }
  return main;
}

/** Where autoevals, the throughput peer, is installed (bench/peer.ts says how): bench/peer/ or RUBRICATE_BENCH_PEER_DIR. */
export const PEER_DIR = process.env.RUBRICATE_BENCH_PEER_DIR ?? join(ROOT, "bench", "peer");

/** Why the peer's rows are empty, or undefined when autoevals is installed in PEER_DIR. */
export const peerMissing = (): string | undefined => (existsSync(join(PEER_DIR, "node_modules", "autoevals")) ? undefined : `autoevals not installed in ${PEER_DIR} (see bench/peer.ts)`);

/** Total CPU (user + system) of this process since `from`, in microseconds. */
export function cpuSince(from: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(from);
  return u.user + u.system;
}

/** Prints a benchmark's table and notes, and writes `bench/results/<name>.json`. */
export function report<Row>(name: string, result: BenchResult<Row>, ctx: BenchContext, seconds: number): void {
  const out = [`\n## ${result.title}`, "", markdownTable(result.rows, result.columns), ...(result.notes?.length ? ["", ...result.notes.map((n) => `- ${n}`)] : [])];
  process.stdout.write(`${out.join("\n")}\n`);
  const dir = join(ROOT, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const json = { name, title: result.title, quick: ctx.quick, date: new Date().toISOString(), seconds: round(seconds, 1), machine: machine(), rows: result.rows, notes: result.notes ?? [], ...result.extra };
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(json, null, 2)}\n`);
}

/** The machine the figures come from. */
export function machine(): { cpu: string; cores: number; node: string; platform: string; loadavg: number[] } {
  return { cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length, node: process.version, platform: `${process.platform}-${process.arch}`, loadavg: loadavg().map((x) => round(x, 2)) };
}

/** Rounds to `digits` decimals. */
export const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The median of numbers. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The scripted judge's answer to a batched request: yes to q1, q3, q5. */
export function scriptedJudge(): ReturnType<typeof createScriptedProvider> {
  return createScriptedProvider((req) => {
    const text = typeof req.messages[0].content === "string" ? req.messages[0].content : req.messages[0].content.map((p) => p.text).join("");
    const ids = [...text.matchAll(/^- id: (\S+)$/gm)].map((m) => m[1]);
    return JSON.stringify({ answers: ids.map((id) => ({ id, reason: `${id} checked`, verdict: ["q1", "q3", "q5"].includes(id) })) });
  });
}

/** A row of a benchmark that reports mixed measures: each with its unit, the ideal and the ratio to it. */
export interface MeasureRow {
  measure: string;
  value: number;
  unit: string;
  ideal: string;
  ratio: string;
}

/** The table columns of `MeasureRow`s. */
export const MEASURE_COLUMNS: Column<MeasureRow>[] = [
  { label: "measure", value: "measure" },
  { label: "value", value: "value", numeric: true },
  { label: "unit", value: "unit" },
  { label: "ideal / goal", value: "ideal" },
  { label: "ratio", value: "ratio" },
];
