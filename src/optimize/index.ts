/** GEPA: reflective text evolution with a per-instance Pareto front, and a random-search baseline. */
export { optimize } from "./optimize.js";
export { randomSearch } from "./random-search.js";
export { parseProposal, longestCommonSubstring, copiesInput, guaranteedProposals, budgetWarning } from "./guards.js";
export type { ParsedProposal } from "./guards.js";
export { instanceFronts, removeDominated, frontFrequencies, selectParent } from "./pareto.js";
export { proposeMerge, mergeComponents, mergeSubsample } from "./merge.js";
export { buildReflectionPrompt, formatReflectiveDataset } from "./reflection.js";
export { lineDiff, formatDiff } from "./diff.js";
export type { DiffLine } from "./diff.js";
export { loadState } from "./state.js";
export type { OptimizeState } from "./state.js";
export { Rng } from "../stats/rng.js";
export type {
  Candidate, EvalResult, Evaluate, ReflectiveRecord, Reflect, StopConditions, ProposalFailure, ProgressEvent,
  CandidateRecord, CurvePoint, StopReason, FailedProposal, OptimizeResult, OptimizeOptions,
} from "./types.js";
export { progressLine } from "./progress.js";
export { reportMarkdown, reportHtml, lineageLines, bestDiffs } from "./report.js";
export type { ReportOptions } from "./report.js";
export {
  policyPromptTarget, judgeQuestionTarget, createReflector, questionProblems, questionReflectionPrompt, rewriteRubricQuestions, splitTrainVal, SYSTEM_COMPONENT,
} from "./targets/index.js";
export type {
  PolicyPromptOptions, PolicyPromptTarget, JudgeQuestionOptions, JudgeQuestionTarget, LabelledItem, Reflector, ReflectorOptions, ReflectionPrompt,
} from "./targets/index.js";
