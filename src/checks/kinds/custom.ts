/**
 * `custom`: a named check function, passed where the rubric is scored (`score(…, { checks })`,
 * an environment's hooks) or built in (`sql-result-matches`). It runs server code, so a client
 * may never send one (not pure).
 *
 * rubric:  check: { custom: sql-result-matches, args: { database: sql/shop.sql } }
 */
import * as z from "zod";
import { RubricateError } from "../../errors.js";
import { findCheck } from "../custom.js";
import { defineCheck } from "../kind.js";
import { SQL_CHECK_NAME } from "../sql.js";

export const CustomSpec = z.string().min(1).describe("The name of a custom check function: a built-in (sql-result-matches), or one passed as score(…, { checks }) or in an environment's hooks");

export const custom = defineCheck<string>({
  key: "custom",
  spec: CustomSpec,
  summary: "a named check function passed where the rubric is scored (or built in: sql-result-matches)",
  options: { args: z.record(z.string(), z.unknown()).optional() },
  lint(name, options) {
    const database = (options.args as Record<string, unknown> | undefined)?.database;
    if (name !== SQL_CHECK_NAME || (Array.isArray(database) && database.length > 1)) return [];
    return [
      {
        rule: "sql-one-database",
        severity: "warning",
        message: "sql-result-matches compares results on one database: a query that hard-codes the answer's rows (SELECT 'Ada' UNION ALL SELECT 'Alan') or returns them by luck (a wrong filter that happens to select the same rows) passes",
        suggestion: "Give `database:` a list of two or more databases with the same schema and other rows (test-suite accuracy, Zhong et al. 2020): a query must then compute its answer to match on each.",
      },
    ];
  },
  async run(name, { text, sample, options, rubricDir, checks }) {
    const fn = findCheck(name, checks);
    const outcome = await fn(text, { sample, args: (options.args as Record<string, unknown> | undefined) ?? {}, rubricDir });
    if (typeof outcome === "boolean") return { pass: outcome };
    if (typeof outcome !== "object" || outcome === null || typeof outcome.pass !== "boolean") {
      throw new RubricateError("CHECK_FAILED", `custom check "${name}" returned ${JSON.stringify(outcome)}, not a boolean or { pass }`);
    }
    return outcome;
  },
});
