/**
 * Calibration on real human-labelled data: the stored verdicts of published LLM judges against
 * human labels, with rubricate's calibration API.
 *
 * Data (shipped in datasets/, converted to JSONL, text unchanged; see datasets/README.md):
 * - LLMBar — princeton-nlp/LLMBar (MIT), commit 900616b. Zeng et al., "Evaluating Large Language
 *   Models at Evaluating Instruction Following", ICLR 2024. Gold labels; GPT-4 and ChatGPT
 *   verdicts stored in both presentation orders.
 * - PandaLM — WeOpenML/PandaLM (Apache-2.0), commit 3871806. Wang et al., "PandaLM: An Automatic
 *   Evaluation Benchmark for LLM Instruction Tuning Optimization". Three annotators per item
 *   (ties allowed); GPT-3.5 and PandaLM-7B verdicts.
 *
 * Each dataset is read as one binary criterion, "is response 1 better than response 2?", so the
 * judge's pick (in order 1-2) is its verdict and the human label the reference.
 *
 * Run: npx tsx examples/calibration/run.ts [--datasets <dir>] [--resamples <n>] [--report cal.html]
 */
import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type CalibrationResult,
  LLMBAR_SUBSETS,
  PANDALM_JUDGES,
  annotatorAgreement,
  calibrate,
  calibrationHtml,
  llmbarJudges,
  loadLlmbar,
  loadPandalm,
  packagedDatasetsDir,
  pairwiseAgreement,
  pairwiseClassMetrics,
  llmbarPositionAgreement,
  type PairwiseSummary,
} from "rubricate/calibrate";

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const here = dirname(fileURLToPath(import.meta.url));
const datasets = resolve(flag("--datasets") ?? process.env.RUBRICATE_DATASETS ?? packagedDatasetsDir());
const SEED = 2026;
// Bootstrap resamples per interval: 1000 by default; fewer only widen the printed intervals' noise
// (examples/calibration/run.test.ts checks the counts, and that each interval holds its point, with 200).
const RESAMPLES = Number(flag("--resamples") ?? 1000);
if (!Number.isInteger(RESAMPLES) || RESAMPLES < 1) throw new Error(`--resamples wants a positive integer, got ${flag("--resamples")}`);

const f4 = (v: number | null | undefined) => (v === null || v === undefined ? "n/a" : v.toFixed(4));
const rows: string[][] = [];
const results: CalibrationResult[] = [];
const pairwise: { name: string; summary: PairwiseSummary }[] = [];

function add(dataset: string, judge: string, r: CalibrationResult, p: PairwiseSummary, position: number | null = null): void {
  const m = r.overall.metrics;
  rows.push([
    dataset,
    judge,
    String(r.overall.n),
    f4(m.accuracy.value),
    f4(m.kappa.value),
    f4(m.tpr.value),
    f4(m.tnr.value),
    f4(m.balancedF1.value),
    `[${f4(m.balancedF1.lo)}, ${f4(m.balancedF1.hi)}]`,
    f4(p.agreement.value),
    f4(position),
    String(r.overall.errors),
  ]);
  results.push(r);
  pairwise.push({ name: r.judge, summary: p });
}

for (const subset of LLMBAR_SUBSETS) {
  for (const judge of llmbarJudges(datasets, subset)) {
    const d = loadLlmbar(datasets, subset, judge);
    const r = calibrate({ labels: d.labels, verdicts: d.verdicts, seed: SEED, resamples: RESAMPLES });
    add(`llmbar/${subset}`, judge, r, pairwiseAgreement(d.pairwise, { seed: SEED, resamples: RESAMPLES }), llmbarPositionAgreement(d.pairwise));
  }
}
let ceiling = "";
const pct = (v: number | null) => (v === null ? "n/a" : (v * 100).toFixed(2));
const pandalmConvention = [
  "PandaLM's convention (majority reference, classes 1/2/tie, unreadable verdict = tie, macro averages), in percent:",
];
for (const judge of PANDALM_JUDGES) {
  const m = pairwiseClassMetrics(loadPandalm(datasets, judge, { unreadable: "tie" }).pairwise);
  pandalmConvention.push(`  ${judge}: accuracy ${pct(m.accuracy)}, precision ${pct(m.precision)}, recall ${pct(m.recall)}, F1 ${pct(m.f1)}`);
}
for (const judge of PANDALM_JUDGES) {
  const d = loadPandalm(datasets, judge);
  const r = calibrate({ labels: d.labels, verdicts: d.verdicts, seed: SEED, resamples: RESAMPLES });
  // The pairwise column under PandaLM's own convention (an unreadable verdict is a tie), as its paper reports.
  add("pandalm", judge, r, pairwiseAgreement(loadPandalm(datasets, judge, { unreadable: "tie" }).pairwise, { seed: SEED, resamples: RESAMPLES }));
  if (!ceiling && d.annotators) {
    const three = annotatorAgreement(d.annotators);
    const binary = r.overall.humanAgreement;
    ceiling = [
      "PandaLM human agreement (the ceiling):",
      `  3-class (1/2/tie) mean pairwise kappa ${f4(three.meanPairwiseKappa)}, mean annotator-vs-others kappa ${f4(three.meanVsMajorityKappa)}`,
      `  binary ("response 1 better") mean pairwise kappa ${f4(binary?.meanPairwiseKappa)}, mean annotator-vs-others kappa ${f4(binary?.meanVsMajorityKappa)}`,
    ].join("\n");
  }
}

const header = ["dataset", "judge", "n", "accuracy", "kappa", "TPR", "TNR", "balancedF1", "balancedF1 95% CI", "pairwise agreement", "position agreement", "errors"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
const out = [
  `Judge calibration on stored verdicts (seed ${SEED}, ${RESAMPLES} bootstrap resamples).`,
  `Binary criterion: "is response 1 better?"; judge verdict = its pick with response 1 shown first (errors: unreadable picks, left out).`,
  `Pairwise agreement: the judge's pick (1, 2 or tie) equals the human's (PandaLM: the annotators' majority), averaged over the`,
  `orders asked, each paper's convention: LLMBar counts an unreadable pick wrong, PandaLM reads it as a tie.`,
  `Position agreement: same pick in both orders, an item unreadable in both counting as the same (LLMBar's convention; LLMBar only).`,
  "",
  line(header),
  `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
  ...rows.map(line),
  "",
  ceiling,
  "",
  ...pandalmConvention,
  "",
];
process.stdout.write(`${out.join("\n")}\n`);

const report = flag("--report");
if (report) {
  writeFileSync(report, calibrationHtml(results, { title: "Stored judges on LLMBar and PandaLM", pairwise }));
  process.stdout.write(`wrote ${report}\n`);
}
