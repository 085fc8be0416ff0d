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
export { loadRubric, loadRubricSync, parseRubric } from "./rubric/load.js";
export type { Check, Criterion, Example, Rubric, Scoring } from "./rubric/index.js";
export type { CheckFunction, CustomChecks } from "./checks/index.js";
export { score, scoreSample, scoreStream, scoreGroups, type ScoreOptions, type IndexedResult } from "./score/score.js";
export { SummaryBuilder, formatSummary, type RunSummary } from "./score/summary.js";
export { rewardFunction, type RewardFunction } from "./score/reward-function.js";
export { createJudge } from "./judge/create.js";
export { loadJudgeConfig } from "./judge/load.js";
export type { Judge, JudgeConfig, JudgeConfigInput } from "./judge/index.js";
export { createProvider, type Provider, type CompletionRequest, type CompletionResponse } from "./providers/index.js";
export { createEngine, type Engine } from "./engine/engine.js";
export { openCache } from "./engine/cache/index.js";
// Hook types for environment packages (`import type { EnvHooks } from "rubricate"`).
export type { Environment, EnvHooks, EnvPackage, EnvResponseContext, FinalizeContext, HookContext, Policy, RolloutRecord, Task } from "./env/index.js";
// The synchronous entry points come from their own files, not their area's index, so the root
// loads only what they use (the values above likewise: an area's index is an entry of dist/ of its
// own, and importing it from here puts it in a chunk of a few bytes that every start-up reads).
export { createPolicy } from "./env/policy.js";
export { initEnvPackage } from "./hub/init.js";
export { calibrate } from "./calibrate/calibrate.js";
export { createRewardServer } from "./bridge/server.js";

// The asynchronous entry points of the feature areas load their area on first call: most programs
// score and never run an environment, a distillation or an optimizer, and `import "rubricate"`
// should not parse them (issue 31; tests/import-graph.test.ts pins which modules the root loads).
// Each keeps the signature and the documentation of the function it forwards to.
/** Reads an environment file: validates it, reads its tasks, loads its rubric and imports its hooks (see `rubricate/env`). */
export const loadEnvironment: typeof import("./env/index.js").loadEnvironment = async (...args) => (await import("./env/index.js")).loadEnvironment(...args);
/** Plays one task with a policy and scores the result (see `rubricate/env`). */
export const rollout: typeof import("./env/index.js").rollout = async (...args) => (await import("./env/index.js")).rollout(...args);
/** Runs every (task, model, rollout index) of the grid, saving each rollout as a JSONL line the moment it finishes (see `rubricate/env`). */
export const runEval: typeof import("./env/index.js").runEval = async (...args) => (await import("./env/index.js")).runEval(...args);
/** Resolves a spec (a file, a package, a registry id) and loads its environment, stamped with the package's name, version and integrity. */
export const loadEnvironmentSpec: typeof import("./hub/index.js").loadEnvironmentSpec = async (...args) => (await import("./hub/index.js")).loadEnvironmentSpec(...args);
/** What a maintainer runs before `npm publish`: checks an environment package's manifest, files, environment, rubric and scripted tests. */
export const checkEnvPackage: typeof import("./hub/index.js").checkEnvPackage = async (...args) => (await import("./hub/index.js")).checkEnvPackage(...args);
/** Runs every environment × every model of a suite on one engine, each saving its rollouts as it goes. */
export const runSuite: typeof import("./hub/index.js").runSuite = async (...args) => (await import("./hub/index.js")).runSuite(...args);
/** GEPA: evolves a candidate's text components by reflecting on feedback from minibatches (see `rubricate/optimize`). */
export const optimize: typeof import("./optimize/index.js").optimize = async (options) => (await import("./optimize/index.js")).optimize(options);
/** Filters and exports a stream of rollout rows, with memory bounded by the open group (see `rubricate/distill`). */
export const runDistill: typeof import("./distill/index.js").runDistill = async (...args) => (await import("./distill/index.js")).runDistill(...args);
/** Attacks a rubric with filled-in attacks per sample, scored by the judge, and summarises what won (see `rubricate/probe`). */
export const probe: typeof import("./probe/index.js").probe = async (...args) => (await import("./probe/index.js")).probe(...args);
