/**
 * rubricate: YAML rubrics of binary judge questions, answered by cached parallel LLM judges and
 * code checks, turned into rewards. The root exports what most programs need; each area has its
 * own subpath (`rubricate/rubric`, `rubricate/judge`, `rubricate/env`, …) and test doubles live
 * in `rubricate/testing`.
 * @example
 * import { loadRubric, score } from "rubricate";
 * const results = await score(await loadRubric("rubrics/math-answer.yaml"), samples, { judge: "openai-small" });
 */
export { ERROR_CODES, RubricateError, isErrorCode, isRubricateError, type ErrorCode, type SourceLocation } from "./errors.js";
export type { CriterionResult, ErrorPolicy, Sample, ScoreResult, Usage, Verdict } from "./types.js";
export { loadRubric, loadRubricSync, parseRubric } from "./rubric/index.js";
export type { Check, Criterion, Example, Rubric, Scoring } from "./rubric/index.js";
export type { CheckFunction, CustomChecks } from "./checks/index.js";
export { score, scoreSample, scoreStream, scoreGroups, rewardFunction, SummaryBuilder, formatSummary, type ScoreOptions, type IndexedResult, type RewardFunction, type RunSummary } from "./score/index.js";
export { createJudge, loadJudgeConfig } from "./judge/index.js";
export type { Judge, JudgeConfig, JudgeConfigInput } from "./judge/index.js";
export { createProvider, type Provider, type CompletionRequest, type CompletionResponse } from "./providers/index.js";
export { createEngine, openCache, type Engine } from "./engine/index.js";
export { loadEnvironment, rollout, runEval, createPolicy } from "./env/index.js";
// Hook types for environment packages (`import type { EnvHooks } from "rubricate"`).
export type { Environment, EnvHooks, EnvPackage, EnvResponseContext, FinalizeContext, HookContext, Policy, RolloutRecord, Task } from "./env/index.js";
export { loadEnvironmentSpec, checkEnvPackage, initEnvPackage, runSuite } from "./hub/index.js";
export { calibrate } from "./calibrate/index.js";
export { optimize } from "./optimize/index.js";
export { runDistill } from "./distill/index.js";
export { probe } from "./probe/index.js";
export { createRewardServer } from "./bridge/index.js";
