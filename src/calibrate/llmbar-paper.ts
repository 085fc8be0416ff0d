/**
 * LLMBar's own metrics (Zeng et al., ICLR 2024), computed from the stored verdicts so that
 * `calibrate --compare` can put two stored strategies side by side the way the paper does:
 * accuracy averaged over both presentation orders, position agreement (the same pick in both
 * orders, with LLMBar's convention that an item unreadable in both orders counts as "equal"),
 * each per subset and then averaged over the subsets (not pooled over items). LLMBar's published
 * per-file figures (datasets/llmbar/published-statistics.json) are printed beside them.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadLlmbar } from "./datasets.js";
import type { PairwiseItem } from "./pairwise.js";

/** Share of items with the same pick in both orders; an item unreadable in both counts as the same (LLMBar's "equal"). */
export function llmbarPositionAgreement(items: readonly PairwiseItem[]): number | null {
  if (items.length === 0) return null;
  const equal = items.filter((i) => i.order12 === i.order21).length;
  return equal / items.length;
}

/** Accuracy averaged over both orders (an unreadable pick is wrong), as LLMBar's `correct_average`. */
export function llmbarAccuracy(items: readonly PairwiseItem[]): number | null {
  if (items.length === 0) return null;
  const right = items.reduce((s, i) => s + ((i.order12 === i.human ? 1 : 0) + (i.order21 === i.human ? 1 : 0)) / 2, 0);
  return right / items.length;
}

/** One stored judge's paper metrics, per subset and averaged over subsets, in percent, with LLMBar's published ones. */
export interface LlmbarPaperMetrics {
  judge: string;
  subsets: { subset: string; accuracy: number; positionAgreement: number; published?: { accuracy: number; positionAgreement: number } }[];
  accuracy: number;
  positionAgreement: number;
  /** Means of LLMBar's own figures over the same subsets, when it published all of them. */
  published?: { accuracy: number; positionAgreement: number };
}

type Published = Record<string, Record<string, { correct_average: number; equal: number }>>;

function readPublished(dir: string): Published {
  const file = join(dir, "llmbar", "published-statistics.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Published) : {};
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The paper's metrics of one stored judge over some LLMBar subsets.
 * @example llmbarPaperMetrics(dir, ["neighbor", "gptinst", "gptout", "manual"], "gpt-4-vanilla").accuracy // 80.8…
 */
export function llmbarPaperMetrics(dir: string, subsets: readonly string[], judge: string): LlmbarPaperMetrics {
  const published = readPublished(dir);
  const rows = subsets.map((subset) => {
    const items = loadLlmbar(dir, subset, judge).pairwise;
    const p = published[subset]?.[judge];
    return {
      subset,
      accuracy: 100 * (llmbarAccuracy(items) ?? Number.NaN),
      positionAgreement: 100 * (llmbarPositionAgreement(items) ?? Number.NaN),
      ...(p ? { published: { accuracy: p.correct_average, positionAgreement: p.equal } } : {}),
    };
  });
  const all = rows.every((r) => r.published);
  return {
    judge,
    subsets: rows,
    accuracy: mean(rows.map((r) => r.accuracy)),
    positionAgreement: mean(rows.map((r) => r.positionAgreement)),
    ...(all ? { published: { accuracy: mean(rows.map((r) => r.published!.accuracy)), positionAgreement: mean(rows.map((r) => r.published!.positionAgreement)) } } : {}),
  };
}

/** Two stored judges under the paper's metrics: A, B, B − A, and LLMBar's published A → B. */
export function llmbarCompareMarkdown(a: LlmbarPaperMetrics, b: LlmbarPaperMetrics): string {
  const f = (x: number) => x.toFixed(1);
  const signed = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(1)}`;
  const row = (label: string, key: "accuracy" | "positionAgreement") =>
    `| ${label} | ${f(a[key])} | ${f(b[key])} | ${signed(b[key] - a[key])} | ${a.published && b.published ? `${f(a.published[key])} → ${f(b.published[key])}` : "–"} |`;
  return [
    `### LLMBar's metrics: ${a.judge} (A) → ${b.judge} (B), mean over ${a.subsets.map((s) => s.subset).join(", ")}`,
    "",
    "Accuracy is averaged over both presentation orders; position agreement counts an item unreadable in both orders as equal (LLMBar's convention); each is computed per subset, then averaged over the subsets, as the paper reports.",
    "",
    "| metric | A | B | B − A | published (LLMBar's statistics.json) |",
    "| --- | ---: | ---: | ---: | ---: |",
    row("accuracy (both orders)", "accuracy"),
    row("position agreement", "positionAgreement"),
    "",
  ].join("\n");
}
