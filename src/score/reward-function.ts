import { resolveJudge, score, scoreSample, type ScoreOptions } from "./score.js";
import type { Rubric } from "../rubric/schema.js";
import type { Sample, ScoreResult } from "../types.js";

/** Options of `rewardFunction`. */
export type RewardFunctionOptions = Omit<ScoreOptions, "order" | "onProgress">;

/** A reward function: a number in [0, 1], or null when the reward could not be computed. */
export interface RewardFunction {
  (sample: Sample): Promise<number | null>;
  /** Rewards for many samples, in order (scored concurrently). */
  batch(samples: Sample[]): Promise<(number | null)[]>;
  /** Full results (verdicts, feedback) for one sample. */
  detailed(sample: Sample): Promise<ScoreResult>;
  /** Releases a judge the function built from a config (its cache file). */
  close(): Promise<void>;
}

/**
 * Turns a rubric into a reward function for RL loops and evaluations. A judge given as a config
 * or file is built once and shared by every call (one cache, one scheduler).
 * @example const reward = rewardFunction(rubric, { judge: "openai-small" }); await reward({ question, response }) // 0.8
 */
export function rewardFunction(rubric: Rubric, options: RewardFunctionOptions = {}): RewardFunction {
  const owned = resolveJudge(options);
  const shared = { ...options, judge: owned.judge };
  const fn = async (sample: Sample) => (await scoreSample(rubric, sample, shared)).reward;
  return Object.assign(fn, {
    batch: async (samples: Sample[]) => (await score(rubric, samples, shared)).map((r) => r.reward),
    detailed: (sample: Sample) => scoreSample(rubric, sample, shared),
    close: owned.close,
  });
}
