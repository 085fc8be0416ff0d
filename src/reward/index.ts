export { aggregate, isGood, type ErrorPolicy, type Outcome } from "./aggregate.js";
export { buildFeedback } from "./feedback.js";
export { meanWithInterval, quantile, seededRandom, type MeanWithInterval } from "./stats.js";
export { SummaryBuilder, formatSummary, type RunSummary } from "./summary.js";
export { rewardFunction, type RewardFunction, type RewardFunctionOptions } from "./function.js";
