/** Environments: dataset + harness + rubric; policy rollouts, evals across models, comparisons and reports. */
export { loadEnvironment, parseEnvironment } from "./load.js";
export { rollout, policySchedulerId, renderTranscript, lastAssistantText, type RolloutOptions } from "./rollout.js";
export { runEval, readRollouts, tripleKey, type EvalOptions, type EvalResult } from "./eval.js";
export { createPolicy, defaultPolicyId, parseModelSpec, loadPolicyConfig, resolveModelArg, type Policy } from "./policy.js";
export { executeToolCall, MAX_TOOL_RESULT_CHARS } from "./tools.js";
export { isRolloutRecord, sampleOfRollout, samplesOfRows } from "./records.js";
export { openEpisode, sandboxLimitsOf, type Episode, type EpisodeClosed, type EpisodeOptions } from "./episode.js";
export { TERMINAL_TOOLS, TERMINAL_TOOL_NAMES, type TerminalToolName } from "./terminal.js";
export { installHookGuard } from "./isolation.js";
export { compareModels, passAtK, passHatK, pairedBootstrap, taskMeans, failedCriteria, criterionOk } from "./stats.js";
export type { CompareOptions, EvalComparison, ModelStats, PairComparison } from "./stats.js";
export { evalReportHtml, evalMarkdown, shortModelNames, REWARD_BINS, type ReportInfo } from "./report.js";
export { EnvironmentSchema, PolicyConfigSchema, HarnessSchema, TaskSchema, ToolDeclSchema, SandboxConfigSchema, StateProbeSchema } from "./schema.js";
export type { EnvironmentFile, Harness, PolicyConfig, PolicyConfigInput, PolicyDefaults, ToolDecl, SandboxConfig, StateProbe } from "./schema.js";
export type {
  EnvHooks,
  EnvPackage,
  EnvReply,
  EnvResponseContext,
  Environment,
  FinalizeContext,
  HookContext,
  HookJudge,
  HookLlm,
  HookLlmRequest,
  PolicyUsage,
  ResolvedSandboxConfig,
  RolloutRecord,
  StopReason,
  Task,
  ToolCallRecord,
  ToolImpl,
} from "./types.js";
