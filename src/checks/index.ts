/** Code checks: the check kinds a rubric's `check:` names, and running one against a sample. */
export { runCheck, type RunCheckOptions } from "./run.js";
export { BUILTIN_CHECKS, type CustomChecks } from "./custom.js";
export type { CheckContext, CheckFunction, CheckOutcome } from "./types.js";
export { sqlResultMatches, SQL_CHECK_NAME, type SqlCheckArgs } from "./sql.js";
export { CHECK_KINDS } from "./kinds.js";
export { mathEquivalent, type MathOptions, type MathVerdict } from "./math/equivalent.js";
export { extractAnswer, type AnswerExtraction } from "./math/extract.js";
export { editSimilarity, rougeL } from "./similarity.js";
export { setCodeRunner, UNSAFE_NO_SANDBOX_ENV } from "./code/spec.js";
export { childProcessRunner, sandboxCodeRunner, bubblewrapCodeRunner, type CodeRunner, type StartRequest, type StartedProcess, type SandboxLike } from "./code/runner.js";

// Types the exports above name in their signatures, so callers can name them too.
export type { SandboxRequestLimits } from "./code/runner.js";
export type { AnyCheckKind, CheckHack, CheckInput, CheckKind, CheckProblem, CheckResult, FixContext, HackCase, KindFinding } from "./kind.js";
export type { DecimalComma } from "./math/equivalent.js";
