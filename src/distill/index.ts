/** Distillation: filter scored rollouts and export SFT and preference data. */
export { runDistill, joinResults } from "./run.js";
export { generateRollouts } from "./generate.js";
export { sortByGroup } from "./sort.js";
export type { SortOptions } from "./sort.js";
export type { GenerateOptions } from "./generate.js";
export type { DistillRunOptions, DistillRunResult } from "./run.js";
export { Distiller, topFractionCut, dedupText, isPair } from "./pipeline.js";
export type { Unit, DistillerOptions } from "./pipeline.js";
export { rowDropReason, meetsRequirement, bestFirst, worstFirst } from "./filters.js";
export { normalizeRow, splitConversation, toChatLine, groupKey, completionTokens, sampleForRubric, isScored } from "./rows.js";
export { NearDupIndex, ExactDupIndex, minhashSignature, signatureSimilarity, lshParams } from "./minhash.js";
export type { NearDupOptions } from "./minhash.js";
export { hash64, hashHex, Hash64Set } from "./hash.js";
export {
  FORMAT_SCHEMAS,
  OpenAIChatLineSchema,
  TrlMessagesLineSchema,
  TrlPromptCompletionLineSchema,
  TrlPreferenceLineSchema,
  OpenAIPreferenceLineSchema,
  sftLine,
  pairLine,
} from "./formats.js";
export { buildReport, distillMarkdown, distillHtml, reportHeadline } from "./report.js";
export type { DistillReport } from "./report.js";
export type { SideStats, StageCounts, RewardDistribution, CriterionCounts } from "./stats.js";
export { FORMATS, isPreferenceFormat } from "./types.js";
export type { ChatLine, DistillRow, RowVerdict, PreferencePair, ExportFormat, FilterOptions, RowOptions } from "./types.js";
