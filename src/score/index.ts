/** Scoring: a rubric × samples → rewards, verdicts and feedback; aggregation, summaries, reward functions, GRPO groups. */
export { score, scoreSample, scoreStream, scoreGroups, type ScoreOptions, type IndexedResult } from "./score.js";
export { aggregate, type ErrorPolicy, type Outcome } from "./aggregate.js";
export { meanWithInterval, type MeanWithInterval } from "../stats/interval.js";
export { SummaryBuilder, formatSummary, type RunSummary } from "./summary.js";
export { rewardFunction, type RewardFunction, type RewardFunctionOptions } from "./reward-function.js";
export { groupRewards, passAtKEstimate, advantagesByPrompt, type GroupBy, type GroupOptions, type GroupResults, type GroupSummary, type AdvantageScale } from "./group.js";
export type { ReasoningMode } from "./reasoning-view.js";
export { estimateSample, emptyEstimate, type RunEstimate } from "./estimate.js";
