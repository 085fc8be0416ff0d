import type { Sample } from "../types.js";

/** What a check function sees besides the text it checks. */
export interface CheckContext {
  sample: Sample;
  /** The `args` written in the rubric for a `custom` check. */
  args: Record<string, unknown>;
  /** The folder of the rubric file, to resolve files shipped beside it (e.g. a SQLite database). */
  rubricDir?: string;
}

/** A check's outcome: a bare boolean, or with a reason shown in feedback; `forfeit` as in `CheckResult` (the response made the check unable to answer). */
export type CheckOutcome = boolean | { pass: boolean; reasoning?: string; forfeit?: boolean };

/**
 * A custom check: code that answers a criterion. Throwing yields an error verdict, never a "no".
 * @example score(rubric, samples, { checks: { "even-length": (text) => text.length % 2 === 0 } })
 */
export type CheckFunction = (text: string, context: CheckContext) => CheckOutcome | Promise<CheckOutcome>;
