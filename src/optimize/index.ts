/** GEPA: reflective text evolution with a per-instance Pareto front, and a random-search baseline. */
export { optimize } from "./optimize.js";
export { randomSearch } from "./random-search.js";
export { parseProposal } from "./guards.js";
export type { ParsedProposal } from "./guards.js";
export { loadState } from "./state.js";
export type { OptimizeState } from "./state.js";
export type { Candidate, EvalResult, Evaluate, ReflectiveRecord, Reflect, StopConditions, ProposalFailure, ProgressEvent, CandidateRecord, CurvePoint, StopReason, FailedProposal, OptimizeResult, OptimizeOptions } from "./types.js";
export { reportMarkdown, reportHtml } from "./report.js";
export type { ReportOptions } from "./report.js";
export { policyPromptTarget, judgeQuestionTarget, createReflector, rewriteRubricQuestions, splitTrainVal } from "./targets/index.js";
export type { PolicyPromptOptions, PolicyPromptTarget, JudgeQuestionOptions, JudgeQuestionTarget, LabelledItem, Reflector, ReflectorOptions, ReflectionPrompt } from "./targets/index.js";
