#!/usr/bin/env node
// Converts the judge verdicts stored in a checkout of princeton-nlp/LLMBar (MIT licence; commit
// 900616b) to the JSONL format of datasets/llmbar: one file per subset, judge
// and strategy, `{id, winner_in_order_12, winner_in_order_21}` (+ `score_1`, `score_2` for the
// rating strategies), winners already in the original numbering as LLMBar stores them.
// Usage: node scripts/llmbar-verdicts.mjs <LLMBar checkout> <out dir> [--skip-existing <dir>]
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [root, out] = process.argv.slice(2);
if (!root || !out) {
  console.error("usage: node scripts/llmbar-verdicts.mjs <LLMBar checkout> <out dir>");
  process.exit(2);
}
const SUBSETS = {
  natural: "Dataset/LLMBar/Natural",
  neighbor: "Dataset/LLMBar/Adversarial/Neighbor",
  gptinst: "Dataset/LLMBar/Adversarial/GPTInst",
  gptout: "Dataset/LLMBar/Adversarial/GPTOut",
  manual: "Dataset/LLMBar/Adversarial/Manual",
  "mt-bench": "Dataset/Processed/MT-Bench",
};
const judgeName = (dir) => dir.toLowerCase();
const strategyName = (dir) => dir.toLowerCase().replace(/_/g, "-");
const first = (v) => (Array.isArray(v) ? v[0] : v);

let files = 0;
for (const [subset, path] of Object.entries(SUBSETS)) {
  const evaluators = join(root, path, "evaluators");
  if (!existsSync(evaluators)) continue;
  for (const judge of readdirSync(evaluators).sort()) {
    for (const strategy of readdirSync(join(evaluators, judge)).sort()) {
      const file = join(evaluators, judge, strategy, "result.json");
      if (!existsSync(file)) continue;
      const items = JSON.parse(readFileSync(file, "utf8"));
      const lines = items.map((item, i) => {
        // Metrics/Reference strategies store their auxiliary generations first; the verdicts are in the last entry.
        const r = item.results.findLast((x) => x && typeof x === "object" && !Array.isArray(x) && "swap = False" in x);
        if (!r) throw new Error(`${file}: item ${i} has no verdicts`);
        const row = { id: `${subset}-${i}`, winner_in_order_12: r["swap = False"]?.winner ?? null, winner_in_order_21: r["swap = True"]?.winner ?? null };
        if (r.score_1 !== undefined) Object.assign(row, { score_1: first(r.score_1), score_2: first(r.score_2) });
        // Written as Python's json.dumps does (", " and ": "), like the files converted before.
        return `{${Object.entries(row).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(", ")}}`;
      });
      mkdirSync(join(out, subset), { recursive: true });
      writeFileSync(join(out, subset, `verdicts-${judgeName(judge)}-${strategyName(strategy)}.jsonl`), `${lines.join("\n")}\n`);
      files++;
    }
  }
}
// LLMBar's own figures for each file (statistics.json), to check our calibration code against.
const published = {};
for (const [subset, path] of Object.entries(SUBSETS)) {
  const evaluators = join(root, path, "evaluators");
  if (!existsSync(evaluators)) continue;
  for (const judge of readdirSync(evaluators).sort()) {
    for (const strategy of readdirSync(join(evaluators, judge)).sort()) {
      const file = join(evaluators, judge, strategy, "statistics.json");
      if (!existsSync(file)) continue;
      const stats = JSON.parse(readFileSync(file, "utf8"));
      const pct = (v) => Number(String(v).replace(/^.*=/, "").replace(/%$/, ""));
      (published[subset] ??= {})[`${judgeName(judge)}-${strategyName(strategy)}`] = { correct_average: pct(stats.correct_average), equal: pct(stats.equal) };
    }
  }
}
writeFileSync(join(out, "published-statistics.json"), `${JSON.stringify(published, null, 1)}\n`);
console.log(`wrote ${files} files to ${out}`);
