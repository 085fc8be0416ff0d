/**
 * `regex`: the text matches a regular expression (RE2 where it can run the pattern, else
 * JavaScript's engine under a deadline; a test estimated costly awaited from a worker thread: see
 * regex.ts).
 *
 * rubric:  check: { regex: { pattern: "^\\d+$", flags: i } }
 */
import * as z from "zod";
import { compileRegex } from "../compile.js";
import { defineCheck, type CheckResult } from "../kind.js";
import { undisguisedOnce } from "../memo.js";
import { REGEX_LINEAR_DEADLINE_MS, regexTextFault } from "../regex.js";
import { regexCost } from "../regex-cost.js";
import { schemaProblem } from "./problems.js";

export const RegexSpec = z.union([z.string(), z.strictObject({ pattern: z.string(), flags: z.string().regex(/^[gimsuy]*$/).optional() })]);
export type RegexSpec = z.infer<typeof RegexSpec>;

/**
 * RE2 program units (regex-cost.ts) from which an unanchored pattern is slow on long texts. Measured
 * on 64,000 characters of prose: `.{0,500}\d{3}` (~17,000 units) ~2 s, `(?:\S+\s+){0,100}answer`
 * (~13,500) ~0.7 s, `(?:\w+\W+){0,50}conclusion` (~2,500) ~0.1 s.
 */
const SLOW_UNITS = 8192;

/** Anchored at the text's start (no m flag, no alternative that escapes the ^): RE2 tries one start, not every position. */
const anchoredAtStart = (pattern: string, flags: string) => pattern.startsWith("^") && !flags.includes("m") && !pattern.includes("|");

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
  lint(spec) {
    const { pattern, flags } = parts(spec);
    const units = regexCost(pattern, flags);
    if (units < SLOW_UNITS || anchoredAtStart(pattern, flags)) return [];
    return [
      {
        rule: "regex-slow-on-long-text",
        severity: "warning",
        message: `RE2's program for /${pattern.length > 60 ? `${pattern.slice(0, 60)}…` : pattern}/ is ~${units.toLocaleString("en-US")} units: searched for anywhere in a long response, a counted repetition this large can take seconds (\`.{0,500}\\d{3}\` took ~2 s on 64,000 characters of prose), in a worker thread, but its sample waits for it, and a test past ${REGEX_LINEAR_DEADLINE_MS / 1000} s of CPU fails the criterion`,
        suggestion: "Lower the repetition's bound, anchor the pattern (^…), or gate the criterion with `when:` a `length` check so long responses never reach it.",
      },
    ];
  },
  fix: (_spec, { criterionId }) => `Code check "${criterionId}" matches the form, not the content: anchor the pattern to the expected answer or gate it with \`when:\` a correctness criterion.`,
  run(spec, { text, fromClient, memo }) {
    const { pattern, flags } = parts(spec);
    const compiled = compileRegex(pattern, flags, { linearOnly: fromClient });
    // The text as a reader gets it too (text/markup.ts): "March 12" only in an HTML comment, or a
    // "!" written `&#33;`, would decide the verdict unseen. Where the two readings differ, a
    // requirement is unmet and a pitfall hit (`unshown`, score.ts).
    const page = undisguisedOnce(text, memo);
    let answers: (boolean | Promise<boolean>)[];
    try {
      // A test estimated costly answers later, from a worker: the event loop turns meanwhile.
      answers = page === text ? [compiled.testOffThread(text)] : [compiled.testOffThread(text), compiled.testOffThread(page)];
    } catch (e) {
      return faulted(e);
    }
    if (answers.every((a): a is boolean => typeof a === "boolean")) return verdict(answers, pattern);
    return Promise.all(answers).then((read) => verdict(read, pattern), faulted);
  },
});

/** The verdict from the test of the text as written and, when it differs, of the text a page shows. */
function verdict([written, shown = written]: boolean[], pattern: string): CheckResult {
  if (written === shown) return { pass: written, reasoning: written ? `matches /${pattern}/` : `does not match /${pattern}/` };
  const only = written ? "as written, not as a page shows it (a comment, a hidden element or a character reference decides it)" : "as a page shows it, not as written";
  return { pass: false, reasoning: `matches /${pattern}/ only ${only}`, unshown: true };
}

/** A text built to make the pattern backtrack past its deadline, or keep RE2 past its limit, is the response's no, not an error. */
function faulted(e: unknown): CheckResult {
  const fault = regexTextFault(e);
  if (fault === undefined) throw e;
  return { pass: false, reasoning: fault, forfeit: true };
}
