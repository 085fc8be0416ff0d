/**
 * Distillation end to end, offline: a scripted teacher plays the capitals environment 6 times
 * per task, code checks score every rollout as it finishes, and distill keeps the best answer per
 * task (required criterion met, reward ≥ 0.8, at most 3 per region) as OpenAI fine-tuning JSONL,
 * then makes DPO pairs (best vs worst, margin ≥ 0.5) from the same rollouts, replayed from the
 * cache. Reports land beside the exports.
 * Run: npx tsx examples/distill/run.ts [out-dir]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openCache } from "rubricate/engine";
import { createEngine } from "rubricate/engine";
import { loadEnvironment } from "rubricate/env";
import { createPolicy } from "rubricate/env";
import { generateRollouts } from "rubricate/distill";
import { distillHtml, distillMarkdown, reportHeadline } from "rubricate/distill";
import { runDistill } from "rubricate/distill";
import { scriptedTeacher } from "./teacher.js";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? join(tmpdir(), "rubricate-distill-example");
mkdirSync(out, { recursive: true });

const env = await loadEnvironment(join(here, "env.yaml"));
const teacher = scriptedTeacher();
const policy = createPolicy({ provider: "openai-compatible", model: "scripted-teacher", base_url: "http://127.0.0.1:9/v1" }, { provider: teacher.provider });
// One engine for the teacher: its cache (memory here; a file in real runs) replays rollouts for free.
const engine = createEngine({ cache: openCache({ path: false }), limits: { maxConcurrency: 8, maxRetries: 0, timeoutMs: 60_000 } });
// One rollout at a time keeps the scripted teacher's styles in rollout order.
const rollouts = () => generateRollouts({ env, policy, engine, rollouts: 6, concurrency: 1 });

const sft = await runDistill({
  input: rollouts,
  output: join(out, "sft.openai.jsonl"),
  format: "openai",
  filters: { minReward: 0.8, require: ["names-capital"], bestOf: 1, maxPerTag: 3, dedup: "near" },
});
console.log(`SFT: ${reportHeadline(sft.report)}  (teacher calls so far: ${teacher.calls()})`);
for (const stage of sft.report.funnel) console.log(`  ${stage.stage.padEnd(8)} ${stage.in} → ${stage.out}  ${JSON.stringify(stage.dropped)}`);

const dpo = await runDistill({ input: rollouts, output: join(out, "pairs.dpo.jsonl"), format: "dpo", filters: { margin: 0.5 }, withMetadata: true });
console.log(`DPO: ${reportHeadline(dpo.report)}  (teacher calls so far: ${teacher.calls()}, the second pass was served by the cache)`);

writeFileSync(join(out, "sft-report.md"), distillMarkdown(sft.report));
writeFileSync(join(out, "sft-report.html"), distillHtml(sft.report));
writeFileSync(join(out, "dpo-report.md"), distillMarkdown(dpo.report));
engine.close();
console.log(`exports and reports in ${out}`);
