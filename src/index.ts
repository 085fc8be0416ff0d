/**
 * rubricate: YAML rubrics of binary judge questions, answered by cached parallel LLM judges and
 * code checks, turned into rewards. Subpaths (`rubricate/rubric`, `rubricate/judge`, …) export
 * each area on its own.
 */
export { RubricateError, isRubricateError, type ErrorCode, type SourceLocation } from "./errors.js";
export type { CriterionResult, Sample, ScoreResult, Usage, Verdict } from "./types.js";
export { loadRubric, loadRubricSync, parseRubric, rubricJsonSchema, renderTemplate } from "./rubric/index.js";
export type { Check, Criterion, Example, Rubric, Scoring } from "./rubric/index.js";
export { registerCheck, runCheck } from "./checks/index.js";
export type { CheckFunction } from "./checks/index.js";
export { aggregate, rewardFunction, meanWithInterval, SummaryBuilder, formatSummary } from "./score/index.js";
export type { ErrorPolicy, RewardFunction, RunSummary } from "./score/index.js";
export { score, scoreSample, scoreStream, type ScoreOptions, type IndexedResult } from "./score/score.js";
export { scoreGroups, groupRewards, passAtKEstimate, type GroupBy, type GroupOptions } from "./score/index.js";
export { mathEquivalent, rougeL, editSimilarity } from "./checks/index.js";
export { splitReasoning } from "./text/reasoning.js";
export { createEngine, openCache, type Engine } from "./engine/index.js";
export { createJudge, createLLMJudge, loadJudgeConfig, parseJudgeConfig, createProvider, createScriptedProvider } from "./judge/index.js";
export type { Judge, JudgeConfig, JudgeConfigInput, Provider, CompletionRequest, CompletionResponse } from "./judge/index.js";
export { loadEnvironment, rollout, runEval, createPolicy, compareModels } from "./env/index.js";
export type { Environment, Policy, RolloutRecord } from "./env/index.js";
export { calibrate, rankJudges } from "./calibrate/index.js";
export { optimize, randomSearch } from "./optimize/index.js";
export { runDistill, distillMarkdown, distillHtml, generateRollouts } from "./distill/index.js";
export { probe } from "./probe/index.js";
export { createRewardServer } from "./bridge/index.js";
