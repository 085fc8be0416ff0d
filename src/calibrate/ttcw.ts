/**
 * TTCW ("Art or Artifice?", Chakrabarty et al., CHI 2024; salesforce/creativity_eval): 48 short
 * stories × 14 yes/no Torrance tests, three expert verdicts each, and the stored answers of 7 LLM
 * judges. Pointwise: one binary question per criterion, the task a rubric judge does. Loads as
 * calibration labels and verdicts (criterion `ttcw-test<n>`), and computes the authors' own
 * figures (balanced accuracy, precision, recall, F1 and correlation against the expert majority,
 * Evaluating_LLM.ipynb) so they can be checked against what was published.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { RubricateError } from "../errors.js";
import { majority } from "./agreement.js";
import type { HumanLabel, JudgeVerdict, VerdictSet } from "./inputs.js";
import { jsonl } from "./datasets.js";
import { confusionFrom, f1Positive, precision, tnr, tpr } from "./metrics.js";
import { pearson } from "../stats/correlation.js";

/** One story × test with its experts' verdicts. */
export interface TtcwItem {
  id: string;
  storyId: string;
  test: number;
  category: string;
  question: string;
  /** The experts' verdicts: true for "Yes". */
  experts: { expert: number; verdict: boolean; explanation: string }[];
}


const yes = (v: unknown, where: string): boolean => {
  if (v === "Yes") return true;
  if (v === "No") return false;
  throw new RubricateError("BAD_INPUT", `${where}: an expert verdict must be "Yes" or "No", not ${JSON.stringify(v)}`);
};

/** The 672 TTCW items (datasets/ttcw/samples.jsonl). */
export function readTtcwItems(dir: string): TtcwItem[] {
  const file = join(dir, "ttcw", "samples.jsonl");
  return jsonl(file).map((row) => ({
    id: String(row.id),
    storyId: String(row.story_id),
    test: Number(row.ttcw_idx),
    category: String(row.category),
    question: String(row.question),
    experts: (row.experts as { expert: number; verdict: string; explanation: string }[]).map((e) => ({ expert: e.expert, verdict: yes(e.verdict, `${file}: ${String(row.id)}`), explanation: e.explanation })),
  }));
}

/** The stored TTCW judges, named as in the source files (`annotations_<name>.jsonl`): cgpt, claude3-opus, gpt4, … */
export function ttcwJudges(dir: string): string[] {
  const folder = join(dir, "ttcw");
  if (!existsSync(folder)) throw new RubricateError("FILE_NOT_FOUND", `no TTCW data in ${folder}`);
  return readdirSync(folder)
    .filter((f) => f.startsWith("verdicts-") && f.endsWith(".jsonl"))
    .map((f) => f.slice("verdicts-".length, -".jsonl".length))
    .sort();
}

/**
 * A stored judge's answers by item id, read as the authors read them: yes when the answer starts
 * with "yes" (any case), else no.
 */
export function readTtcwAnswers(dir: string, judge: string): Map<string, { verdict: boolean; text: string }> {
  const file = join(dir, "ttcw", `verdicts-${judge}.jsonl`);
  if (!existsSync(file)) throw new RubricateError("FILE_NOT_FOUND", `TTCW has no stored judge "${judge}" (has: ${ttcwJudges(dir).join(", ")})`);
  const out = new Map<string, { verdict: boolean; text: string }>();
  for (const row of jsonl(file)) {
    const text = String(row.response ?? "");
    out.set(String(row.id), { verdict: text.toLowerCase().startsWith("yes"), text });
  }
  return out;
}

/**
 * TTCW with one stored judge, for `calibrate`: each expert's verdict a label (annotator
 * `expert-<n>`, so the expert majority is the reference), the judge's answer a verdict. An item
 * the judge never answered has no verdict (the authors count it as "no"; see `ttcwFigures`).
 * @example loadTtcw(packagedDatasetsDir(), "claude3-opus").labels.length // 2016
 */
export function loadTtcw(dir: string, judge: string): { labels: HumanLabel[]; verdicts: VerdictSet } {
  const answers = readTtcwAnswers(dir, judge);
  const labels: HumanLabel[] = [];
  const verdicts: JudgeVerdict[] = [];
  for (const item of readTtcwItems(dir)) {
    const criterion = `ttcw-test${item.test}`;
    for (const e of item.experts) labels.push({ sampleId: item.storyId, criterion, label: e.verdict, annotator: `expert-${e.expert}` });
    const a = answers.get(item.id);
    if (a) verdicts.push({ sampleId: item.storyId, criterion, status: a.verdict ? "met" : "unmet", reasoning: a.text });
  }
  return { labels, verdicts: { judge: `${judge} (TTCW)`, verdicts } };
}

/** The authors' figures for one stored judge (Evaluating_LLM.ipynb, section 3.1). */
export interface TtcwFigures {
  judge: string;
  balancedAccuracy: number;
  precision: number;
  recall: number;
  f1: number;
  /** Pearson correlation of the 0/1 verdicts with the 0/1 expert majority. */
  correlation: number;
  /** Items the judge answered (of 672); the rest count as "no", as the authors count them. */
  found: number;
}

/**
 * The authors' measure: every item's expert majority (three experts, so always one) against the
 * judge's answer, a missing answer counted as "no"; sklearn's balanced_accuracy, precision,
 * recall and F1 of the "yes" class, and numpy's corrcoef.
 */
export function ttcwFigures(dir: string, judge: string): TtcwFigures {
  const answers = readTtcwAnswers(dir, judge);
  const human: boolean[] = [];
  const pred: boolean[] = [];
  let found = 0;
  for (const item of readTtcwItems(dir)) {
    const m = majority(item.experts.map((e) => e.verdict));
    if (m === null) throw new RubricateError("BAD_INPUT", `TTCW item ${item.id}: the experts have no majority`);
    human.push(m);
    const a = answers.get(item.id);
    if (a) found++;
    pred.push(a?.verdict ?? false);
  }
  const c = confusionFrom(human, pred);
  const recall = tpr(c) ?? 0;
  return {
    judge,
    balancedAccuracy: (recall + (tnr(c) ?? 0)) / 2,
    precision: precision(c) ?? 0,
    recall,
    f1: f1Positive(c) ?? 0,
    correlation: pearson(human.map(Number), pred.map(Number)),
    found,
  };
}

/**
 * The figures the authors printed (Art_or_Artifice/Evaluating_LLM.ipynb, the output of section
 * 3.1 "Individual Test Analysis", two decimals; the paper's section 6 discusses them).
 */
export const TTCW_PUBLISHED: Record<string, Omit<TtcwFigures, "judge">> = {
  "gemini-pro": { balancedAccuracy: 0.46, precision: 0.32, recall: 0.83, f1: 0.46, correlation: -0.12, found: 658 },
  cgpt: { balancedAccuracy: 0.49, precision: 0.33, recall: 0.66, f1: 0.44, correlation: -0.02, found: 672 },
  claudev2: { balancedAccuracy: 0.5, precision: 0.34, recall: 0.79, f1: 0.47, correlation: -0.0, found: 672 },
  claudev21: { balancedAccuracy: 0.52, precision: 0.35, recall: 0.86, f1: 0.5, correlation: 0.06, found: 672 },
  claudev13: { balancedAccuracy: 0.53, precision: 0.36, recall: 0.73, f1: 0.48, correlation: 0.06, found: 672 },
  gpt4: { balancedAccuracy: 0.54, precision: 0.36, recall: 0.85, f1: 0.51, correlation: 0.1, found: 672 },
  "claude3-opus": { balancedAccuracy: 0.58, precision: 0.39, recall: 0.83, f1: 0.53, correlation: 0.18, found: 672 },
};

/** The authors' figures as a markdown table, each beside the published one. */
export function ttcwMarkdown(rows: TtcwFigures[]): string {
  const f = (x: number) => (Number.isNaN(x) ? "–" : x.toFixed(2));
  const pub = (judge: string, key: keyof Omit<TtcwFigures, "judge">) => {
    const p = TTCW_PUBLISHED[judge];
    return p ? (key === "found" ? String(p[key]) : f(p[key])) : "–";
  };
  const lines = [
    "### TTCW: the authors' measure (expert majority; a missing answer counts as no)",
    "",
    "Published: Art_or_Artifice/Evaluating_LLM.ipynb, section 3.1 output (salesforce/creativity_eval). Each cell: rubricate (published).",
    "",
    "| judge | balanced accuracy | precision | recall | F1 | correlation | answered |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((r) => `| ${r.judge} | ${f(r.balancedAccuracy)} (${pub(r.judge, "balancedAccuracy")}) | ${f(r.precision)} (${pub(r.judge, "precision")}) | ${f(r.recall)} (${pub(r.judge, "recall")}) | ${f(r.f1)} (${pub(r.judge, "f1")}) | ${f(r.correlation)} (${pub(r.judge, "correlation")}) | ${r.found} (${pub(r.judge, "found")}) |`),
  ];
  return `${lines.join("\n")}\n`;
}
