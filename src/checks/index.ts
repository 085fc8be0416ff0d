export { runCheck, normalizeText, type RunCheckOptions } from "./run.js";
export { BUILTIN_CHECKS, findCheck, type CustomChecks } from "./custom.js";
export { extractNumber, parseNumber } from "./number.js";
export type { CheckContext, CheckFunction, CheckOutcome } from "./types.js";
export { sqlResultMatches, extractSql, readOnlyProblem, sameResults, SQL_CHECK_NAME, type SqlCheckArgs } from "./sql.js";
