/**
 * SummHay's evaluation benchmark (Laban et al., "Summary of a Haystack", 2024;
 * salesforce/summary-of-a-haystack, Apache-2.0): 200 summaries × their reference insights, 1,419
 * items, each with a human coverage label (fully, partially or not covered) and the predictions
 * of 6 evaluator setups (`prompted_<model>` and `9fs_gpt-4o`, named as in the source's
 * `predictions_<setup>` keys). Pointwise: one question per insight, the task a rubric judge does.
 *
 * Three classes become two binary criteria, one per reading of "does the summary cover the
 * insight?": `covered-fully` (only full coverage is yes) and `covered` (full or partial is yes).
 * Each item appears once per criterion, so a pooled figure counts it twice; read per criterion.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { RubricateError } from "../errors.js";
import type { HumanLabel, JudgeVerdict, VerdictSet } from "./inputs.js";
import { jsonl } from "./datasets.js";
import { pearson } from "../stats/correlation.js";

/** The two binary readings of a three-class coverage label. */
export const SUMMHAY_CRITERIA = ["covered-fully", "covered"] as const;

type Coverage = "full" | "partial" | "none";

/** A coverage label as either side writes it (`fully_covered` / `FULL_COVERAGE`, …); null when it is neither. */
function coverageOf(label: unknown): Coverage | null {
  const s = String(label ?? "").toLowerCase();
  if (s === "fully_covered" || s === "full_coverage") return "full";
  if (s === "partially_covered" || s === "partial_coverage") return "partial";
  if (s === "not_covered" || s === "no_coverage") return "none";
  return null;
}

const READINGS: Record<(typeof SUMMHAY_CRITERIA)[number], (c: Coverage) => boolean> = {
  "covered-fully": (c) => c === "full",
  covered: (c) => c !== "none",
};

interface CoverageRow {
  insight_id: string;
  coverage: unknown;
}

function summhayFile(dir: string): string {
  const file = join(dir, "summhay", "samples.jsonl");
  if (!existsSync(file)) throw new RubricateError("FILE_NOT_FOUND", `no SummHay data in ${join(dir, "summhay")}`);
  return file;
}

/** The stored evaluator setups, named as in the source's `predictions_<setup>` keys: prompted_gpt-4o, 9fs_gpt-4o, … */
export function summhayJudges(dir: string): string[] {
  const [first] = jsonl(summhayFile(dir));
  return Object.keys(first ?? {})
    .filter((k) => k.startsWith("predictions_"))
    .map((k) => k.slice("predictions_".length))
    .sort();
}

/**
 * SummHay with one stored evaluator, for `calibrate`: the human coverage label as the label, the
 * evaluator's prediction as the verdict, under both readings (`SUMMHAY_CRITERIA`). A sample is
 * one summary × insight (`<subtopic_id>/<summkey>/<insight_id>`). A label or prediction that is
 * none of the three classes, or a missing prediction, is an error naming the line.
 * @example loadSummhay(packagedDatasetsDir(), "prompted_gpt-4o").labels.length // 2838 (1,419 items × 2 readings)
 */
export function loadSummhay(dir: string, judge: string): { labels: HumanLabel[]; verdicts: VerdictSet } {
  const file = summhayFile(dir);
  const known = summhayJudges(dir);
  if (!known.includes(judge)) throw new RubricateError("BAD_INPUT", `SummHay has no stored judge "${judge}" (has: ${known.join(", ")})`);
  const labels: HumanLabel[] = [];
  const verdicts: JudgeVerdict[] = [];
  jsonl(file).forEach((row, i) => {
    const location = { file, line: i + 1 };
    const predictions = new Map(((row[`predictions_${judge}`] ?? []) as CoverageRow[]).map((p) => [p.insight_id, p.coverage]));
    for (const a of (row.annotation ?? []) as CoverageRow[]) {
      const sampleId = `${String(row.subtopic_id)}/${String(row.summkey)}/${a.insight_id}`;
      const human = coverageOf(a.coverage);
      if (human === null) throw new RubricateError("BAD_INPUT", `SummHay ${sampleId}: unknown human coverage ${JSON.stringify(a.coverage)}`, { location });
      if (!predictions.has(a.insight_id)) throw new RubricateError("BAD_INPUT", `SummHay ${sampleId}: ${judge} has no prediction for this insight`, { location });
      const predicted = coverageOf(predictions.get(a.insight_id));
      if (predicted === null) throw new RubricateError("BAD_INPUT", `SummHay ${sampleId}: ${judge} predicted ${JSON.stringify(predictions.get(a.insight_id))}, not a coverage class`, { location });
      for (const criterion of SUMMHAY_CRITERIA) {
        const read = READINGS[criterion];
        labels.push({ sampleId, criterion, label: read(human) });
        verdicts.push({ sampleId, criterion, status: read(predicted) ? "met" : "unmet", reasoning: `predicted ${String(predictions.get(a.insight_id))}` });
      }
    }
  });
  return { labels, verdicts: { judge: `${judge} (SummHay)`, verdicts } };
}

/** The evaluators whose bias the authors printed, in their order. */
export const SUMMHAY_BIAS_JUDGES = ["prompted_gpt-4o", "prompted_claude3-opus", "prompted_gemini-1.5-pro"] as const;

/** One evaluator's bias as the authors measured it: predicted minus annotated coverage score. */
export interface SummhayBias {
  judge: string;
  /** Mean over the summaries of each summarizing model of (mean predicted − mean annotated score). */
  bySummarizer: Record<string, number>;
  /** Mean of `bySummarizer` ("Avg. Summarizer Bias"). */
  average: number;
  /** Pearson r of a summary's delta with its words per bullet ("Length <-> Delta"). */
  lengthVsDelta: number;
  /** Pearson r of a summary's mean predicted score with its words per bullet ("Length <-> Score"). */
  lengthVsScore: number;
}

/**
 * What the authors printed (Eval_Benchmarking.ipynb, "3. Auto-Eval Bias Analysis", commit
 * 4353172), three decimals. The notebook's other table (instance-level correlation, linking
 * accuracy, cost: the paper's Table 1) is a pandas Styler whose numbers the notebook does not save.
 */
export const SUMMHAY_PUBLISHED_BIAS: Record<(typeof SUMMHAY_BIAS_JUDGES)[number], Omit<SummhayBias, "judge">> = {
  "prompted_gpt-4o": {
    bySummarizer: { "claude3-sonnet": 0.027, "gemini-1.5-flash": 0.032, "claude3-opus": 0.04, "gpt3.5": 0.009, "gemini-1.5-pro": 0.057, "gpt4-turbo": 0.063, "claude3-haiku": 0.057, "gpt-4o": 0.07, "command-r-plus": 0.064 },
    average: 0.047,
    lengthVsDelta: 0.023,
    lengthVsScore: -0.119,
  },
  "prompted_claude3-opus": {
    bySummarizer: { "claude3-sonnet": -0.001, "gemini-1.5-flash": 0.009, "claude3-opus": 0.011, "gpt3.5": 0.05, "gemini-1.5-pro": 0.042, "gpt4-turbo": 0.08, "claude3-haiku": 0.088, "gpt-4o": 0.078, "command-r-plus": 0.128 },
    average: 0.054,
    lengthVsDelta: -0.047,
    lengthVsScore: -0.169,
  },
  "prompted_gemini-1.5-pro": {
    bySummarizer: { "claude3-sonnet": -0.012, "gemini-1.5-flash": -0.025, "claude3-opus": 0.019, "gpt3.5": 0.048, "gemini-1.5-pro": 0.041, "gpt4-turbo": 0.042, "claude3-haiku": 0.052, "gpt-4o": 0.08, "command-r-plus": 0.071 },
    average: 0.035,
    lengthVsDelta: -0.078,
    lengthVsScore: -0.175,
  },
};

/** The authors' coverage score: full 1, partial 0.5, none 0. */
const SCORE: Record<Coverage, number> = { full: 1, partial: 0.5, none: 0 };

/** Words per bullet as the authors count them: bullets joined by newlines, runs of 2+ spaces made one, spaces + 1. */
function wordsPerBullet(bullets: readonly string[]): number {
  const text = bullets.join("\n").replace(/\s{2,}/g, " ");
  return text.split(" ").length / bullets.length;
}

const meanOf = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * One evaluator's bias, computed as the authors' notebook does: per summary, the mean predicted
 * coverage score minus the mean annotated one; averaged per summarizing model (the last `_` part
 * of `summkey`), then over models; and the correlation of the delta, and of the predicted score,
 * with the summary's words per bullet.
 */
export function summhayBias(dir: string, judge: string): SummhayBias {
  const file = summhayFile(dir);
  const deltas = new Map<string, number[]>();
  const lengths: number[] = [];
  const delta: number[] = [];
  const predictedScore: number[] = [];
  jsonl(file).forEach((row, i) => {
    const location = { file, line: i + 1 };
    const predicted = new Map(((row[`predictions_${judge}`] ?? []) as CoverageRow[]).map((p) => [p.insight_id, coverageOf(p.coverage)]));
    const human: number[] = [];
    const pred: number[] = [];
    for (const a of (row.annotation ?? []) as CoverageRow[]) {
      const h = coverageOf(a.coverage);
      const p = predicted.get(a.insight_id);
      if (h === null || p === null || p === undefined) throw new RubricateError("BAD_INPUT", `SummHay insight ${a.insight_id}: no readable human label and ${judge} prediction`, { location });
      human.push(SCORE[h]);
      pred.push(SCORE[p]);
    }
    const d = meanOf(pred) - meanOf(human);
    const summarizer = String(row.summkey).split("_").at(-1)!;
    deltas.set(summarizer, [...(deltas.get(summarizer) ?? []), d]);
    delta.push(d);
    predictedScore.push(meanOf(pred));
    lengths.push(wordsPerBullet(row.summary as string[]));
  });
  const bySummarizer = Object.fromEntries([...deltas].map(([k, v]) => [k, meanOf(v)]));
  return { judge, bySummarizer, average: meanOf(Object.values(bySummarizer)), lengthVsDelta: pearson(delta, lengths), lengthVsScore: pearson(predictedScore, lengths) };
}

/** The bias table: one row per summarizing model, one column per evaluator, rubricate's figure then the published one. */
export function summhayBiasMarkdown(rows: readonly SummhayBias[]): string {
  const f = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? "–" : x.toFixed(3));
  const pub = (judge: string) => SUMMHAY_PUBLISHED_BIAS[judge as keyof typeof SUMMHAY_PUBLISHED_BIAS];
  const summarizers = [...new Set(rows.flatMap((r) => Object.keys(r.bySummarizer)))].sort();
  const cell = (r: SummhayBias, mine: number | undefined, published: number | undefined) => `${f(mine)} (${f(published)})`;
  return [
    "### SummHay: evaluator bias, predicted − annotated coverage score (full 1, partial 0.5, none 0)",
    "",
    "Published: Eval_Benchmarking.ipynb, \"3. Auto-Eval Bias Analysis\" output (salesforce/summary-of-a-haystack). Each cell: rubricate (published).",
    "",
    `| summarizing model | ${rows.map((r) => r.judge).join(" | ")} |`,
    `| --- | ${rows.map(() => "---:").join(" | ")} |`,
    ...summarizers.map((s) => `| ${s} | ${rows.map((r) => cell(r, r.bySummarizer[s], pub(r.judge)?.bySummarizer[s])).join(" | ")} |`),
    `| average over summarizers | ${rows.map((r) => cell(r, r.average, pub(r.judge)?.average)).join(" | ")} |`,
    `| r(words per bullet, delta) | ${rows.map((r) => cell(r, r.lengthVsDelta, pub(r.judge)?.lengthVsDelta)).join(" | ")} |`,
    `| r(words per bullet, predicted score) | ${rows.map((r) => cell(r, r.lengthVsScore, pub(r.judge)?.lengthVsScore)).join(" | ")} |`,
    "",
  ].join("\n");
}
