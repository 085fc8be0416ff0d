/**
 * `regex`: the text matches a regular expression (RE2 where it can run the pattern, else
 * JavaScript's engine under a deadline: see regex.ts).
 *
 * rubric:  check: { regex: { pattern: "^\\d+$", flags: i } }
 */
import * as z from "zod";
import { compileRegex } from "../compile.js";
import { defineCheck } from "../kind.js";
import { regexTextFault } from "../regex.js";
import { schemaProblem } from "./problems.js";

export const RegexSpec = z.union([z.string(), z.strictObject({ pattern: z.string(), flags: z.string().regex(/^[gimsuy]*$/).optional() })]);
export type RegexSpec = z.infer<typeof RegexSpec>;

const parts = (spec: RegexSpec) => (typeof spec === "string" ? { pattern: spec, flags: "" } : { pattern: spec.pattern, flags: spec.flags ?? "" });

export const regex = defineCheck<RegexSpec>({
  key: "regex",
  spec: RegexSpec,
  summary: "the text matches a regular expression (linear-time RE2, or a deadline)",
  pure: true,
  validate(spec) {
    const { pattern, flags } = parts(spec);
    return schemaProblem(() => compileRegex(pattern, flags), []);
  },
  passesEmpty(spec) {
    const { pattern, flags } = parts(spec);
    try {
      return compileRegex(pattern, flags).test("");
    } catch {
      return false;
    }
  },
  fix: (_spec, { criterionId }) => `Code check "${criterionId}" matches the form, not the content: anchor the pattern to the expected answer or gate it with \`when:\` a correctness criterion.`,
  run(spec, { text, fromClient }) {
    const { pattern, flags } = parts(spec);
    const compiled = compileRegex(pattern, flags, { linearOnly: fromClient });
    let pass: boolean;
    try {
      pass = compiled.test(text);
    } catch (e) {
      // A text built to make the pattern backtrack past its deadline is the response's no, not an error.
      const fault = regexTextFault(e);
      if (fault === undefined) throw e;
      return { pass: false, reasoning: fault, forfeit: true };
    }
    return { pass, reasoning: pass ? `matches /${pattern}/` : `does not match /${pattern}/` };
  },
});
