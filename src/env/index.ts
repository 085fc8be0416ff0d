/** Environments: dataset + harness + rubric; policy rollouts, evals across models, comparisons and reports. */
export { loadEnvironment, parseEnvironment } from "./load.js";
export { rollout, type RolloutOptions } from "./rollout.js";
export { runEval, readRollouts, type EvalOptions, type EvalResult } from "./eval.js";
export { createPolicy, parseModelSpec, loadPolicyConfig, type Policy } from "./policy.js";
export { sampleOfRollout } from "./records.js";
export { openEpisode, type Episode, type EpisodeOptions } from "./episode.js";
export { type TerminalToolName } from "./terminal.js";
export { installHookGuard } from "./isolation.js";
export { compareModels, failedCriteria, passAtK, passHatK, pairedBootstrap } from "./stats.js";
export type { CompareOptions, EvalComparison, ModelStats, PairComparison } from "./stats.js";
export { evalReportHtml, evalMarkdown, type ReportInfo } from "./report.js";
export { EnvironmentSchema } from "./schema.js";
export type { EnvironmentFile, Harness, PolicyConfig, PolicyConfigInput, PolicyDefaults, ToolDecl, SandboxConfig, StateProbe } from "./schema.js";
export type { EnvHooks, EnvPackage, EnvReply, EnvResponseContext, Environment, FinalizeContext, HookContext, HookJudge, HookLlm, PolicyUsage, RolloutRecord, StopReason, Task, ToolCallRecord, ToolImpl } from "./types.js";
// Trainers drive environments (serve --env): turn-by-turn sessions and rollouts against a trainer's policy endpoint.
export { startSession, Session, type SessionOptions, type SessionScore, type AssistantTurn, type StepResult } from "./session.js";
export { createSessionManager, type CallKey, type KeyedOutcome, type SessionManager, type SessionManagerOptions, type TaskRef } from "./sessions.js";
export { runRemoteRollouts, RemotePolicySchema, type RemotePolicy, type RemoteRolloutOptions } from "./remote.js";
export { loadChecks } from "./load.js";
