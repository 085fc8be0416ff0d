/** Distillation: filter scored rollouts and export SFT and preference data. */
export { runDistill } from "./run.js";
export { generateRollouts } from "./generate.js";
export type { GenerateOptions } from "./generate.js";
export type { DistillRunOptions, DistillRunResult } from "./run.js";
export { FORMAT_SCHEMAS, OpenAIChatLineSchema, TrlMessagesLineSchema, TrlPromptCompletionLineSchema, TrlPreferenceLineSchema, OpenAIPreferenceLineSchema } from "./formats.js";
export { distillMarkdown, distillHtml, reportHeadline } from "./report.js";
export type { DistillReport } from "./report.js";
export type { SideStats, StageCounts, RewardDistribution, CriterionCounts } from "./stats.js";
export { FORMATS } from "./types.js";
export type { ChatLine, DistillRow, RowVerdict, PreferencePair, ExportFormat, FilterOptions, RowOptions } from "./types.js";
