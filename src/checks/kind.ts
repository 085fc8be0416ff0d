import type { z } from "zod";
import type { Sample } from "../types.js";

/** What a built-in check kind sees: the text it grades (already read from its field, reasoning and tags applied) and the sample. */
export interface CheckInput {
  text: string;
  sample: Sample;
  /** The folder of the rubric file, to resolve files shipped beside it. */
  rubricDir?: string;
}

/** A check's answer: pass or not, why, and for partial credit the share met (tests passed, similarity). */
export interface CheckResult {
  pass: boolean;
  reasoning?: string;
  /** In [0, 1]: how much of the criterion's points it earns; default 1 when it passes, 0 when not. */
  score?: number;
}

/**
 * A built-in check kind: its key in the rubric (`math:`), the zod schema of its settings, and
 * the function that runs it. One signature for all of them, so a new kind is one small file.
 */
export interface CheckKind<Spec> {
  key: string;
  spec: z.ZodType<Spec>;
  /** One line for `rubricate lint` and the docs: when to use this check. */
  summary: string;
  run(spec: Spec, input: CheckInput): CheckResult | Promise<CheckResult>;
}

/** Identity helper that keeps a kind's Spec type attached to its `run`. */
export const defineCheck = <Spec>(kind: CheckKind<Spec>): CheckKind<Spec> => kind;
