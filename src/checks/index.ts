export { runCheck, normalizeText, type RunCheckOptions } from "./run.js";
export { BUILTIN_CHECKS, findCheck, type CustomChecks } from "./custom.js";
export { extractNumber, parseNumber } from "./number.js";
export type { CheckContext, CheckFunction, CheckOutcome } from "./types.js";
export { sqlResultMatches, extractSql, readOnlyProblem, sameResults, SQL_CHECK_NAME, type SqlCheckArgs } from "./sql.js";
// Built-in check kinds with one signature (issue 19): math, tags, final_answer, tool_calls, similarity, tests.
export { CHECK_KINDS } from "./kinds.js";
export type { CheckKind, CheckInput, CheckResult } from "./kind.js";
export { mathEquivalent, type MathOptions, type MathVerdict } from "./math/equivalent.js";
export { extractAnswer, type AnswerExtraction } from "./math/extract.js";
export { tagContent } from "./format.js";
export { readTrajectory, type TrajectoryCall } from "./tools.js";
export { editSimilarity, rougeL } from "./similarity.js";
export { setCodeRunner, extractCode, UNSAFE_NO_SANDBOX_ENV } from "./code/check.js";
export { childProcessRunner, sandboxCodeRunner, type CodeRunner, type RunRequest, type RunResult, type SandboxLike } from "./code/runner.js";
