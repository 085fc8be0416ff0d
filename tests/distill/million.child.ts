/**
 * Child process of the million-row test: writes N generated sample rows (4 rollouts per prompt,
 * unscored) to a temp file on the fly, distills them with a code-check rubric (no judge), and
 * prints one JSON line: counts, seconds and peak RSS (`process.resourceUsage().maxRSS`, KiB).
 * Run: npx tsx tests/distill/million.child.ts [rows=1000000] [dir]
 */
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRubricSync } from "../../src/rubric/load.js";
import { runDistill } from "../../src/distill/run.js";

const n = Number(process.argv[2] ?? 1_000_000);
const dir = process.argv[3] ?? mkdtempSync(join(tmpdir(), "rubricate-million-"));
const input = join(dir, "samples.jsonl");
const WORDS = ["river", "stone", "lamp", "orbit", "maple", "quartz", "harbor", "violet", "ember", "delta", "cobalt", "meadow"];

/** A response for rollout k of prompt p: varied enough that near-dedup has real work. */
function response(p: number, k: number): string {
  const w = (i: number) => WORDS[(p * 7 + k * 3 + i) % WORDS.length];
  if (k === 3) return `I don't know, ${w(1)} ${p}.`;
  const city = k === 2 && p % 3 === 0 ? "Lyon" : "Paris";
  return `For question ${p}: the capital is ${city}. Also ${w(0)} ${w(1)} ${w(2)} ${p * 31 + k}, ${w(3)} and ${w(4)}.`;
}

async function generate(): Promise<void> {
  const out = createWriteStream(input, { highWaterMark: 1 << 20 });
  let buf = "";
  for (let i = 0; i < n; i++) {
    const p = Math.floor(i / 4);
    buf += `${JSON.stringify({ prompt_id: `p${p}`, question: `What is the capital of France? (#${p})`, response: response(p, i % 4), tags: [`family-${p % 5}`] })}\n`;
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
const rubric = loadRubricSync(join(import.meta.dirname, "..", "fixtures", "distill", "checks-rubric.yaml"));
const result = await runDistill({
  input,
  output: join(dir, "sft.jsonl"),
  rubric,
  format: "openai",
  filters: { minReward: 0.5, bestOf: 1, dedup: "near", maxPerTag: 40_000 },
});
const t2 = Date.now();
process.stdout.write(
  `${JSON.stringify({ rows: result.report.rows, kept: result.report.kept, dropped: result.report.dropped, generateSeconds: (t1 - t0) / 1000, distillSeconds: (t2 - t1) / 1000, maxRssKiB: process.resourceUsage().maxRSS })}\n`,
);
if (!process.argv[3]) rmSync(dir, { recursive: true, force: true });
