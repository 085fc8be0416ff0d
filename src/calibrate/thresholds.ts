/**
 * Per-criterion thresholds from calibration: where a judge gives P(yes), the threshold that
 * best separates the human labels (Youden's J) becomes the criterion's `threshold:`, so scoring
 * uses it (a verdict is met when P(yes) reaches it).
 */
import { editCriteriaYaml } from "../rubric/edit-yaml.js";
import type { CalibrationResult } from "./calibrate.js";

/**
 * The suggested threshold of every criterion whose verdicts carried probabilities and whose
 * labels hold both classes (Youden's J; the prevalence-matching rule is in the report).
 * @example suggestedThresholds(calibrate({ labels, verdicts })) // { "cites-source": 0.62 }
 */
export function suggestedThresholds(result: CalibrationResult): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of result.criteria) {
    const s = c.probability?.youden;
    if (s && s.youdenJ !== null) out[c.criterion] = Number(s.threshold.toFixed(4));
  }
  return out;
}

/**
 * A rubric file's YAML with `threshold:` set on the given criteria, everything else (comments,
 * order, other fields) kept. A criterion the file does not define itself is a `BAD_INPUT` error.
 * @example rubricWithThresholds(readFileSync("r.yaml", "utf8"), { "cites-source": 0.62 })
 */
export function rubricWithThresholds(yamlText: string, thresholds: Record<string, number>, filename = "rubric"): string {
  return editCriteriaYaml(yamlText, Object.keys(thresholds), (item, id) => item.set("threshold", thresholds[id]), filename);
}
