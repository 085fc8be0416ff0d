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
