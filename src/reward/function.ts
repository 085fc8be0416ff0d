import { score, scoreSample, type ScoreOptions } from "../engine/score.js";
import type { Rubric } from "../rubric/schema.js";
import type { Sample, ScoreResult } from "../types.js";

export type RewardFunctionOptions = Omit<ScoreOptions, "order" | "onProgress">;

/** A reward function: a number in [0, 1], or null when the reward could not be computed. */
export interface RewardFunction {
  (sample: Sample): Promise<number | null>;
  /** Rewards for many samples, in order (scored concurrently). */
  batch(samples: Sample[]): Promise<(number | null)[]>;
  /** Full results (verdicts, feedback) for one sample. */
  detailed(sample: Sample): Promise<ScoreResult>;
}

/**
 * Turns a rubric into a reward function for RL loops and evaluations.
 * @example const reward = rewardFunction(rubric, { judge }); await reward({ question, response }) // 0.8
 */
export function rewardFunction(rubric: Rubric, options: RewardFunctionOptions = {}): RewardFunction {
  const fn = async (sample: Sample) => (await scoreSample(rubric, sample, options)).reward;
  return Object.assign(fn, {
    batch: async (samples: Sample[]) => (await score(rubric, samples, options)).map((r) => r.reward),
    detailed: (sample: Sample) => scoreSample(rubric, sample, options),
  });
}
