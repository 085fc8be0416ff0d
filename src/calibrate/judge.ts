/**
 * Computing verdicts now: the labelled samples scored with a rubric and a judge through the
 * engine's `score()` (cached like every other call), turned into a `VerdictSet` for `calibrate`.
 */
import type { CustomChecks } from "../checks/custom.js";
import { score } from "../score/score.js";
import { RubricateError } from "../errors.js";
import type { Judge } from "../judge/types.js";
import type { Rubric } from "../rubric/schema.js";
import type { Sample, ScoreResult } from "../types.js";
import type { HumanLabel, JudgeVerdict, VerdictSet } from "./inputs.js";

/**
 * The distinct labelled samples, each with its inputs and its id; labels without `sample` inputs are a `BAD_INPUT` error.
 * @example labelledSamples([{ sampleId: "s1", criterion: "c", label: true, sample: { response: "hi" } }]) // [{ id: "s1", response: "hi" }]
 */
export function labelledSamples(labels: readonly HumanLabel[]): Sample[] {
  const samples = new Map<string, Sample>();
  const missing = new Set<string>();
  for (const l of labels) {
    if (samples.has(l.sampleId)) continue;
    if (!l.sample) {
      missing.add(l.sampleId);
      continue;
    }
    samples.set(l.sampleId, { ...l.sample, id: l.sampleId });
  }
  for (const id of missing) {
    if (!samples.has(id)) {
      throw new RubricateError("BAD_INPUT", `sample ${id} has labels but no \`sample\` inputs to score; give them in the labels file or use --verdicts`);
    }
  }
  return [...samples.values()];
}

/** A scored result's verdicts as calibration verdicts (the sample id is the result's). */
export function resultVerdicts(sampleId: string, result: Pick<ScoreResult, "verdicts">): JudgeVerdict[] {
  return result.verdicts.map((v) => {
    const out: JudgeVerdict = { sampleId, criterion: v.id, status: v.status };
    if (v.probability !== undefined) out.probability = v.probability;
    if (v.reasoning !== undefined) out.reasoning = v.reasoning;
    return out;
  });
}

/**
 * Scores every labelled sample with `rubric` and `judge`, and returns the verdicts and what they cost.
 * @example const set = await scoreLabelled(rubric, labels, createJudge("judges/openai-small.yaml")); calibrate({ labels, verdicts: set })
 */
export async function scoreLabelled(
  rubric: Rubric,
  labels: readonly HumanLabel[],
  judge: Judge,
  opts: { name?: string; signal?: AbortSignal; concurrency?: number; checks?: CustomChecks } = {},
): Promise<VerdictSet> {
  const samples = labelledSamples(labels);
  const before = judge.usage().costUsd;
  const results = await score(rubric, samples, { judge, signal: opts.signal, concurrency: opts.concurrency, checks: opts.checks });
  const verdicts = results.flatMap((r) => resultVerdicts(String(samples[r.index].id), r));
  return { judge: opts.name ?? judge.id, verdicts, costUsd: judge.usage().costUsd - before };
}
