#!/usr/bin/env node
/**
 * Converts TTCW ("Art or Artifice?", salesforce/creativity_eval, folder Art_or_Artifice/) to the
 * JSONL of datasets/ttcw/. Usage: node scripts/ttcw-convert.mjs <Art_or_Artifice folder> datasets/ttcw
 * Text is unchanged; only the layout changes (one line per story × test; experts' verdicts and
 * explanations with it; one verdicts file per stored LLM judge, its answer as written).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [src, out] = process.argv.slice(2);
if (!src || !out) {
  process.stderr.write("usage: node scripts/ttcw-convert.mjs <Art_or_Artifice folder> <out folder>\n");
  process.exit(2);
}
const read = (p) => JSON.parse(readFileSync(join(src, p), "utf8"));
const stories = read("stories/ttcw_short_stories.json");
const tests = read("tests/ttcw_all_tests.json");
const annotations = read("annotations/ttcw_annotations.json");
mkdirSync(out, { recursive: true });

const lines = [];
for (const story of stories) {
  for (const test of tests) {
    const experts = annotations
      .filter((a) => a.story_id === story.story_id && a.ttcw_idx === test.ttcw_idx)
      .map((a) => ({ expert: a.expert_idx, verdict: a.binary_verdict, explanation: a.explanation }));
    lines.push({
      // The id the authors' evaluation uses (Evaluating_LLM.ipynb): story_<story_id>_test<ttcw_idx>.
      id: `story_${story.story_id}_test${test.ttcw_idx}`,
      story_id: story.story_id,
      story_name: story.story_name,
      ttcw_idx: test.ttcw_idx,
      torrance_dimension: test.torrance_dimension,
      category: test.category,
      question: test.question,
      experts,
    });
  }
}
writeFileSync(join(out, "samples.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
// Each story once (its text unchanged; the 12 New Yorker stories are links: the authors may not distribute their text).
writeFileSync(join(out, "stories.jsonl"), stories.map((s) => JSON.stringify(s)).join("\n") + "\n");
writeFileSync(join(out, "tests.jsonl"), tests.map((t) => JSON.stringify(t)).join("\n") + "\n");
for (const f of readdirSync(join(src, "data")).filter((f) => f.startsWith("annotations_") && f.endsWith(".jsonl")).sort()) {
  const judge = f.slice("annotations_".length, -".jsonl".length);
  writeFileSync(join(out, `verdicts-${judge}.jsonl`), readFileSync(join(src, "data", f)));
}
process.stdout.write(`${lines.length} items, ${tests.length} tests\n`);
