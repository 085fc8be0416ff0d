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

export const CustomSpec = z.string().min(1).describe("The name of a custom check function: a built-in (sql-result-matches), or one passed as score(…, { checks }) or in an environment's hooks");

export const custom = defineCheck<string>({
  key: "custom",
  spec: CustomSpec,
  summary: "a named check function passed where the rubric is scored (or built in: sql-result-matches)",
  options: { args: z.record(z.string(), z.unknown()).optional() },
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
