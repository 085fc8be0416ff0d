export { runCheck, normalizeText, type RunCheckOptions } from "./run.js";
export { registerCheck, unregisterCheck, getCheck } from "./registry.js";
export { extractNumber, parseNumber } from "./number.js";
export type { CheckContext, CheckFunction, CheckOutcome } from "./types.js";
export { registerSqlCheck, sqlResultMatches, extractSql, readOnlyProblem, sameResults, SQL_CHECK_NAME, type SqlCheckArgs } from "./sql.js";
