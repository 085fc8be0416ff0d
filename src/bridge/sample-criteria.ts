/**
 * What a client may add to a sample as its own `criteria` (per-sample rubrics). A client never
 * names server files or server code: `custom` checks run registered functions (e.g.
 * `sql-result-matches`, which opens a database path given in `args`), so they are refused
 * whatever the setting. Pure checks (regex, contains, equals, json_schema, number, length) are
 * allowed; LLM questions cost the operator money and are off unless `--allow-sample-questions`.
 */
import { HttpError } from "./http.js";

/** "off": no sample criteria; "checks": pure checks only (default); "questions": pure checks and LLM questions. */
export type SampleCriteriaPolicy = "off" | "checks" | "questions";

/** The 400 for the first sample criterion the policy refuses, or undefined. */
export function refusedSampleCriterion(samples: unknown[], policy: SampleCriteriaPolicy): HttpError | undefined {
  for (const [i, sample] of samples.entries()) {
    if (!sample || typeof sample !== "object" || !("criteria" in sample)) continue;
    const field = `samples.${i}.criteria`;
    if (policy === "off") return new HttpError(400, "SAMPLE_CRITERIA_REFUSED", `${field}: this server scores only its rubric's criteria (started with --no-sample-criteria)`, field);
    const criteria = (sample as { criteria: unknown }).criteria;
    if (!Array.isArray(criteria)) continue; // scoring reports the malformed list as that sample's error
    for (const [j, criterion] of criteria.entries()) {
      if (!criterion || typeof criterion !== "object") continue;
      const at = `${field}.${j}`;
      const check = (criterion as { check?: unknown }).check;
      if (check && typeof check === "object" && "custom" in check) {
        return new HttpError(400, "SAMPLE_CHECK_REFUSED", `${at}.check.custom: clients may not run server code (custom checks can read server files); use a pure check (regex, contains, equals, json_schema, number, length)`, `${at}.check`);
      }
      if ("question" in criterion && policy !== "questions") {
        return new HttpError(400, "SAMPLE_QUESTIONS_REFUSED", `${at}.question: client-added judge questions are paid by this server and are off (the operator can start it with --allow-sample-questions)`, `${at}.question`);
      }
    }
  }
  return undefined;
}
