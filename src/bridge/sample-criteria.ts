/**
 * What a client may add to a sample as its own `criteria` (per-sample rubrics). A client never
 * names server files or runs code: only the check kinds marked `pure` in the table of kinds
 * (checks/kinds.ts: they read the sample's text and nothing else) are allowed; `custom` runs
 * registered server functions (`sql-result-matches` opens a database path given in `args`),
 * `tests` runs code, and the other kinds are refused whatever the setting. LLM questions cost the
 * operator money and are off unless `--allow-sample-questions`.
 */
import { checkKind, pureCheckKinds } from "../checks/registry.js";
import { HttpError } from "./http.js";

/** "off": no sample criteria; "checks": pure checks only (default); "questions": pure checks and LLM questions. */
export type SampleCriteriaPolicy = "off" | "checks" | "questions";

/** The 400 for the first sample criterion the policy refuses, or undefined. */
export function refusedSampleCriterion(samples: unknown[], policy: SampleCriteriaPolicy): HttpError | undefined {
  const pure = pureCheckKinds();
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
      const refused = check && typeof check === "object" ? Object.keys(check).find((key) => checkKind(key) !== undefined && !pure.includes(key)) : undefined;
      if (refused !== undefined) {
        return new HttpError(400, "SAMPLE_CHECK_REFUSED", `${at}.check.${refused}: clients may send only pure checks, which read the sample's text and nothing else (${pure.join(", ")}); "${refused}" is not one (it can read server files, run code or cost the operator)`, `${at}.check`);
      }
      if ("question" in criterion && policy !== "questions") {
        return new HttpError(400, "SAMPLE_QUESTIONS_REFUSED", `${at}.question: client-added judge questions are paid by this server and are off (the operator can start it with --allow-sample-questions)`, `${at}.question`);
      }
    }
  }
  return undefined;
}
