/**
 * Loaders for the public human-labelled judge datasets shipped in `datasets/` (converted to
 * JSONL; sources, licences and commits in datasets/README.md): LLMBar (Zeng et al., ICLR 2024; pairwise, gold labels, stored
 * GPT-4/ChatGPT verdicts in both orders) and PandaLM (Wang et al.; pairwise with ties, three
 * annotators, stored GPT-3.5 and PandaLM-7B verdicts). Each loads as a binary criterion
 * ("is output 1 better?") for `calibrate`, and as pairwise items for `pairwiseAgreement`.
 */
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { RubricateError } from "../errors.js";
import { jsonLineValue } from "../config/jsonl.js";
import type { AnnotatedItem } from "./agreement.js";
import { majority } from "./agreement.js";
import { type HumanLabel, type JudgeVerdict, type VerdictSet, readText } from "./inputs.js";
import { type PairwiseItem, type Winner, parseWinner } from "./pairwise.js";

/** The LLMBar subsets. */
export const LLMBAR_SUBSETS = ["natural", "neighbor", "gptinst", "gptout", "manual", "mt-bench"] as const;

/** The stored PandaLM judges. */
export const PANDALM_JUDGES = ["gpt-3.5-turbo", "pandalm-7b"] as const;

/** A dataset loaded for calibration: labels, one judge's verdicts, and the same as pairwise items. */
export interface LoadedDataset {
  labels: HumanLabel[];
  verdicts: VerdictSet;
  pairwise: PairwiseItem[];
  /** Per-item annotator labels (1, 2 or 0 = tie), when the dataset has several annotators. */
  annotators?: AnnotatedItem<number>[];
  /** Items left out of the pairwise view because the annotators had no majority. */
  noMajority?: number;
}

/** The datasets folder: `$RUBRICATE_DATASETS`, else the `datasets/` folder shipped with the package. */
export function defaultDatasetsDir(): string {
  if (process.env.RUBRICATE_DATASETS) return resolve(process.env.RUBRICATE_DATASETS);
  return packagedDatasetsDir();
}

/** The `datasets/` folder shipped with the package (LLMBar and PandaLM, see its README). */
export function packagedDatasetsDir(): string {
  // Walk up from this module to the package root (src/calibrate in development, dist/ when built).
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "datasets"))) return join(dir, "datasets");
    dir = dirname(dir);
  }
  return resolve("datasets");
}

/** The rows of a shipped dataset's JSONL file; a bad line is an error naming its line (blank lines counted). */
export function jsonl(path: string): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const [i, line] of readText(path).split(/\r?\n/).entries()) {
    if (line.trim() === "") continue;
    rows.push(jsonLineValue(line, path, i + 1) as Record<string, unknown>);
  }
  return rows;
}

/** The stored judges of an LLMBar subset, as `<judge>-<strategy>` names (from its verdicts files). */
export function llmbarJudges(dir: string, subset: string): string[] {
  const folder = join(dir, "llmbar", subset);
  if (!existsSync(folder)) throw new RubricateError("FILE_NOT_FOUND", `no LLMBar subset "${subset}" in ${join(dir, "llmbar")}`);
  return readdirSync(folder)
    .filter((f) => f.startsWith("verdicts-") && f.endsWith(".jsonl"))
    .map((f) => f.slice("verdicts-".length, -".jsonl".length))
    .sort();
}

function describeOrders(o12: Winner, o21: Winner, row: Record<string, unknown>): string {
  const scores = row.score_1 !== undefined ? `; scores ${String(row.score_1)} vs ${String(row.score_2)}` : "";
  return `order 1-2 picked ${o12 ?? "?"}, order 2-1 picked ${o21 ?? "?"}${scores}`;
}

/**
 * One LLMBar subset with one stored judge (e.g. "gpt-4-vanilla"). As a binary criterion
 * `output_1-better@<subset>`: human yes when label = 1; judge met when it picked output 1 with
 * output 1 shown first (order 1-2); its probability is the share of the two orders picking 1.
 * @example loadLlmbar(packagedDatasetsDir(), "natural", "gpt-4-vanilla").labels.length // 100
 */
export function loadLlmbar(dir: string, subset: string, judge: string): LoadedDataset {
  const folder = join(dir, "llmbar", subset);
  const file = join(folder, `verdicts-${judge}.jsonl`);
  if (!existsSync(file)) {
    throw new RubricateError("FILE_NOT_FOUND", `LLMBar ${subset} has no stored judge "${judge}" (has: ${llmbarJudges(dir, subset).join(", ")})`);
  }
  const criterion = `output_1-better@${subset}`;
  const labels: HumanLabel[] = [];
  const human = new Map<string, "1" | "2">();
  for (const s of jsonl(join(folder, "samples.jsonl"))) {
    const id = String(s.id);
    const label = s.label === 1 || s.label === "1" ? "1" : s.label === 2 || s.label === "2" ? "2" : null;
    if (label === null) throw new RubricateError("BAD_INPUT", `LLMBar sample ${id}: label must be 1 or 2`);
    human.set(id, label);
    labels.push({ sampleId: id, criterion, label: label === "1" });
  }
  const verdicts: JudgeVerdict[] = [];
  const pairwise: PairwiseItem[] = [];
  for (const row of jsonl(file)) {
    const id = String(row.id);
    const o12 = parseWinner(row.winner_in_order_12);
    const o21 = parseWinner(row.winner_in_order_21);
    const readable = [o12, o21].filter((w) => w !== null);
    const v: JudgeVerdict = {
      sampleId: id,
      criterion,
      status: o12 === null ? "error" : o12 === "1" ? "met" : "unmet",
      reasoning: describeOrders(o12, o21, row),
    };
    if (readable.length) v.probability = readable.filter((w) => w === "1").length / readable.length;
    verdicts.push(v);
    const h = human.get(id);
    if (h) pairwise.push({ id, human: h, order12: o12, order21: o21 });
  }
  return { labels, verdicts: { judge: `${judge} (LLMBar ${subset})`, verdicts }, pairwise };
}

/** How to read a stored verdict that could not be parsed (GPT-3.5's 25 "garbage" answers on PandaLM). */
export interface PandalmOptions {
  /**
   * "error" (the default): an unreadable verdict is an error, left out of the metrics and counted;
   * "tie": PandaLM's own convention, under which its published figures were computed.
   */
  unreadable?: "error" | "tie";
}

/**
 * PandaLM's test set with one stored judge ("gpt-3.5-turbo" or "pandalm-7b"). As a binary
 * criterion `response_1-better`: each of the three annotators says yes when they picked
 * response 1 (a tie or response 2 is no); the judge is met when it picked response 1, unmet for
 * 2 or a tie, an error when unreadable (or a tie, with `unreadable: "tie"`). Pairwise items use
 * the annotators' majority (0 = tie); `pairwiseClassMetrics` of them with `unreadable: "tie"`
 * gives PandaLM's published accuracy, precision, recall and F1 (datasets/README.md).
 * @example loadPandalm(packagedDatasetsDir(), "pandalm-7b").annotators?.length // 999
 */
export function loadPandalm(dir: string, judge: string, options: PandalmOptions = {}): LoadedDataset {
  const folder = join(dir, "pandalm");
  const file = join(folder, `verdicts-${judge}.jsonl`);
  if (!existsSync(file)) throw new RubricateError("FILE_NOT_FOUND", `PandaLM has no stored judge "${judge}" (has: ${PANDALM_JUDGES.join(", ")})`);
  const criterion = "response_1-better";
  const labels: HumanLabel[] = [];
  const annotators: AnnotatedItem<number>[] = [];
  const human = new Map<string, "1" | "2" | "tie">();
  let noMajority = 0;
  for (const s of jsonl(join(folder, "samples.jsonl"))) {
    const id = String(s.id);
    const raw = s.annotators;
    if (!Array.isArray(raw) || raw.some((a) => a !== 0 && a !== 1 && a !== 2)) {
      throw new RubricateError("BAD_INPUT", `PandaLM sample ${id}: annotators must be 0, 1 or 2`);
    }
    const item: AnnotatedItem<number> = { id, labels: {} };
    (raw as number[]).forEach((a, i) => {
      item.labels[`annotator-${i + 1}`] = a;
      labels.push({ sampleId: id, criterion, label: a === 1, annotator: `annotator-${i + 1}` });
    });
    annotators.push(item);
    const m = majority(raw as number[]);
    if (m === null) noMajority++;
    else human.set(id, m === 0 ? "tie" : m === 1 ? "1" : "2");
  }
  const verdicts: JudgeVerdict[] = [];
  const pairwise: PairwiseItem[] = [];
  for (const row of jsonl(file)) {
    const id = String(row.id);
    const read = parseWinner(row.winner);
    const w = read === null && options.unreadable === "tie" ? "tie" : read;
    const v: JudgeVerdict = { sampleId: id, criterion, status: w === null ? "error" : w === "1" ? "met" : "unmet" };
    if (typeof row.reason === "string" && row.reason !== "") v.reasoning = row.reason;
    else if (read === null) v.reasoning = `unreadable verdict ${JSON.stringify(row.winner)}${w === "tie" ? ", read as a tie (PandaLM's convention)" : ""}`;
    verdicts.push(v);
    const h = human.get(id);
    if (h) pairwise.push({ id, human: h, order12: w });
  }
  const name = options.unreadable === "tie" ? `${judge} (PandaLM, unreadable = tie)` : `${judge} (PandaLM)`;
  return { labels, verdicts: { judge: name, verdicts }, pairwise, annotators, noMajority };
}
