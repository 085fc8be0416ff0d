/**
 * The offline quick start: scores five model answers with a rubric made only of code checks
 * (no LLM, no key, no network), then shows what the math rubric would cost with a real judge.
 * Run: npm run quickstart
 */
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { readFileSync } from "node:fs";
import { formatSummary, loadRubric, score, SummaryBuilder } from "rubricate";
import { emptyEstimate, estimateSample } from "rubricate/score";
import { loadJudgeConfig } from "rubricate/judge";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const readJsonl = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));

const rubric = await loadRubric(join(root, "rubrics/structured-output.yaml"));
const samples = readJsonl(join(here, "samples.jsonl"));
const results = await score(rubric, samples);
const summary = new SummaryBuilder();
for (const result of results) {
  summary.add(result);
  console.log(`sample ${String(result.id)}: reward ${result.reward?.toFixed(3)}`);
  if (result.reward !== 1) console.log(result.feedback.split("\n").slice(1).map((l) => `    ${l}`).join("\n"));
}
console.log(`\n${formatSummary(summary.finish())}`);

// With a judge the same call answers LLM questions; here we only price it, offline.
const math = await loadRubric(join(root, "rubrics/math-answer.yaml"));
const judge = loadJudgeConfig("openai-small", root);
const estimate = emptyEstimate();
for (const sample of readJsonl(join(here, "math-samples.jsonl"))) estimateSample(estimate, math, sample, judge);
console.log(`\nmath-answer with judge ${judge.id}: at most ${estimate.calls} calls, ~${estimate.inputTokens} input tokens, ~$${estimate.costUsd?.toFixed(4)}`);
console.log("To run it for real: export OPENAI_API_KEY=… and\n  npx rubricate score rubrics/math-answer.yaml examples/quickstart/math-samples.jsonl --judge openai-small");
