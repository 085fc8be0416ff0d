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
