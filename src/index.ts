/**
 * rubricate: YAML rubrics of binary judge questions, answered by cached parallel LLM judges and
 * code checks, turned into rewards. Subpaths (`rubricate/rubric`, `rubricate/judge`, …) export
 * each area on its own.
 */
export { RubricateError, isRubricateError, type ErrorCode, type SourceLocation } from "./errors.js";
export type { CriterionResult, Sample, ScoreResult, Usage, Verdict } from "./types.js";
export { loadRubric, loadRubricSync, parseRubric, rubricJsonSchema, renderTemplate } from "./rubric/index.js";
export type { Check, Criterion, Example, Rubric, Scoring } from "./rubric/index.js";
export { runCheck } from "./checks/index.js";
export type { CheckFunction, CustomChecks } from "./checks/index.js";
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
// Hook types for environment packages (`import type { EnvHooks } from "rubricate"`), and the hub.
export type { EnvHooks, EnvPackage, EnvResponseContext, FinalizeContext, HookContext, Task } from "./env/index.js";
export { loadEnvironmentSpec, resolveEnvSpec, checkEnvPackage, initEnvPackage, loadSuite, runSuite } from "./hub/index.js";
export { openEpisode, sampleOfRollout } from "./env/index.js";
export type { Episode } from "./env/index.js";
export { createSandbox } from "./sandbox/index.js";
export type { Sandbox, SandboxBackend, SandboxLimits, SandboxOptions, ExecResult } from "./sandbox/index.js";
export { calibrate, rankJudges } from "./calibrate/index.js";
export { optimize, randomSearch } from "./optimize/index.js";
export { runDistill, distillMarkdown, distillHtml, generateRollouts } from "./distill/index.js";
export { probe } from "./probe/index.js";
export { createRewardServer } from "./bridge/index.js";
