/** Scoring: a rubric × samples → rewards, verdicts and feedback; aggregation and reward functions. */
export { score, scoreSample, scoreStream, type ScoreOptions, type IndexedResult } from "./score.js";
export { aggregate, isGood, type ErrorPolicy, type Outcome } from "./aggregate.js";
export { buildFeedback } from "./feedback.js";
export { meanWithInterval, type MeanWithInterval } from "../stats/interval.js";
export { quantile } from "../stats/quantile.js";
export { seededRandom } from "../stats/rng.js";
export { SummaryBuilder, formatSummary, type RunSummary } from "./summary.js";
export { rewardFunction, type RewardFunction, type RewardFunctionOptions } from "./reward-function.js";
export { scoreGroups } from "./score.js";
export { groupRewards, passAtKEstimate, attachGroups, advantagesByPrompt, type GroupBy, type GroupOptions, type GroupResults, type GroupSummary, type AdvantageScale } from "./group.js";
export { reasoningView, type ReasoningMode } from "./reasoning-view.js";
