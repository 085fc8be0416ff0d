/**
 * Child process of the million-row test: writes N generated sample rows (4 rollouts per prompt,
 * unscored) to a temp file on the fly, distills them with a code-check rubric (no judge), and
 * prints one JSON line: counts, seconds, CPU seconds and peak RSS (`process.resourceUsage().maxRSS`, KiB).
 * Run: npx tsx tests/distill/million.child.ts [rows=1000000] [dir] [max rows per tag=40000] [rubric]
 * (the rubric defaults to tests/fixtures/distill/checks-rubric.yaml; tests/distill/million.ts runs
 * this file bundled into node_modules/.cache, from where that default is not found, so it names it).
 */
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRubricSync } from "../../src/rubric/load.js";
import { runDistill } from "../../src/distill/run.js";

const n = Number(process.argv[2] ?? 1_000_000);
const dir = process.argv[3] ?? mkdtempSync(join(tmpdir(), "rubricate-million-"));
const maxPerTag = Number(process.argv[4] ?? 40_000);
const rubricFile = process.argv[5] ?? join(import.meta.dirname, "..", "fixtures", "distill", "checks-rubric.yaml");
const input = join(dir, "samples.jsonl");
const SYLLABLES = "ka lo mi ne ru sa ti vo be da fe gi ho ju ki la mo nu pe ra".split(" ");

/** A pseudo-word for (p, k, i) from 20³ = 8000 (deterministic, well mixed). */
function pick(p: number, k: number, i: number): string {
  let h = Math.imul(p + 1, 0x9e3779b1) ^ Math.imul(k + 7, 0x85ebca6b) ^ Math.imul(i + 13, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h >>>= 0;
  return SYLLABLES[h % 20] + SYLLABLES[(h >>> 8) % 20] + SYLLABLES[(h >>> 16) % 20];
}

/**
 * A response for rollout k of prompt p: rollout 3 gives up (a pitfall), rollout 2 sometimes names
 * the wrong city. Every 100th prompt repeats the one before it word for word (an exact duplicate
 * once best-of picks the same answer).
 */
function response(p: number, k: number): string {
  const q = p % 100 === 99 ? p - 1 : p;
  if (k === 3) return `I don't know, ${pick(q, k, 0)} ${pick(q, k, 1)}.`;
  const city = k === 2 && q % 3 === 0 ? "Lyon" : "Paris";
  const words = Array.from({ length: 14 }, (_, i) => pick(q, k, i)).join(" ");
  return `The capital is ${city}. ${words}.`;
}
const question = (p: number) => `What is the capital of France? (#${p % 100 === 99 ? p - 1 : p})`;

async function generate(): Promise<void> {
  const out = createWriteStream(input, { highWaterMark: 1 << 20 });
  let buf = "";
  for (let i = 0; i < n; i++) {
    const p = Math.floor(i / 4);
    buf += `${JSON.stringify({ prompt_id: `p${p}`, question: question(p), response: response(p, i % 4), tags: [`family-${p % 5}`] })}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await new Promise<void>((r) => out.once("drain", () => r()));
      buf = "";
    }
  }
  out.write(buf);
  await new Promise<void>((r) => out.end(r));
}

const t0 = Date.now();
await generate();
const t1 = Date.now();
const rubric = loadRubricSync(rubricFile);
const result = await runDistill({
  input,
  output: join(dir, "sft.jsonl"),
  rubric,
  format: "openai",
  filters: { minReward: 0.5, bestOf: 1, dedup: "near", maxPerTag },
  concurrency: Number(process.env.DISTILL_CONCURRENCY ?? 64),
});
const t2 = Date.now();
if (process.env.DISTILL_HEAP) { (globalThis as any).gc?.(); console.error(process.memoryUsage()); }
process.stdout.write(
  `${JSON.stringify({ rows: result.report.rows, kept: result.report.kept, dropped: result.report.dropped, generateSeconds: (t1 - t0) / 1000, distillSeconds: (t2 - t1) / 1000, maxRssKiB: process.resourceUsage().maxRSS, cpuSeconds: Math.round((process.cpuUsage().user + process.cpuUsage().system) / 1e4) / 100 })}\n`,
);
if (!process.argv[3]) rmSync(dir, { recursive: true, force: true });
