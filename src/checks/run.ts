import { RubricateError, toRubricateError } from "../errors.js";
import type { Check } from "./schema.js";
import type { Sample, Verdict } from "../types.js";
import type { CustomChecks } from "./custom.js";
import type { CheckMemo } from "./memo.js";
import { kindOf } from "./registry.js";
import { tagContent } from "./format.js";

export { normalizeText } from "./kinds/equals.js";

/** Options of `runCheck`: the default field, the rubric folder, custom checks. */
export interface RunCheckOptions {
  /** The input a check reads when it names no `field` (the rubric's `response_field`, default "response"). */
  defaultField?: string;
  rubricDir?: string;
  /** Custom check functions by name, for `check: { custom: name }` (the built-ins need not be passed). */
  checks?: CustomChecks;
  /**
   * The check came from a client (a reward server's per-sample criteria): its regexes and
   * json_schema patterns run on RE2 only, so no text can hold the server's event loop.
   */
  fromClient?: boolean;
  /**
   * Work the checks of one sample share (score.ts passes one per sample): a non-string input's JSON, a text folded once.
   * @internal
   */
  memo?: CheckMemo;
}

/**
 * Answers a code check on a sample. Throws `RubricateError` (a check that throws, a missing input)
 * so callers record an error verdict, never a "no".
 * @example await runCheck({ contains: "Paris" }, { response: "It is Paris." }) // { pass: true, source: "check" }
 */
export async function runCheck(check: Check, sample: Sample, options: RunCheckOptions = {}): Promise<Verdict> {
  const field = check.field ?? options.defaultField ?? "response";
  const value = sample[field];
  if (value === undefined || value === null) {
    throw new RubricateError("MISSING_INPUT", `the sample has no "${field}" input for this check`);
  }
  const text = typeof value === "string" ? value : options.memo ? options.memo.jsonOf(value) : JSON.stringify(value);
  try {
    const outcome = await evaluate(check, text, sample, options);
    const forfeit = outcome.forfeit === true && !outcome.pass ? { forfeit: true } : {};
    const unshown = outcome.unshown === true && !outcome.pass ? { unshown: true } : {};
    return { pass: outcome.pass, reasoning: outcome.reasoning, source: "check", ...(outcome.score !== undefined ? { score: outcome.score } : {}), ...forfeit, ...unshown };
  } catch (e) {
    const error = toRubricateError(e, "CHECK_FAILED");
    if (error.code === "INTERNAL") throw new RubricateError("CHECK_FAILED", error.message, { cause: e });
    throw error;
  }
}

async function evaluate(check: Check, text: string, sample: Sample, options: RunCheckOptions): Promise<{ pass: boolean; reasoning?: string; score?: number; forfeit?: boolean; unshown?: boolean }> {
  const named = kindOf(check);
  if (!named) throw new RubricateError("INTERNAL", `no runner for the check kind ${Object.keys(check).join(", ")}`);
  // One normalisation for every kind that takes `tag`: the check reads that section only.
  if (typeof check.tag === "string") {
    const content = tagContent(text, check.tag);
    if (content === undefined) return { pass: false, reasoning: `no <${check.tag}>…</${check.tag}> in the text` };
    text = content;
  }
  return named.kind.run(named.spec, { text, sample, options: named.options, rubricDir: options.rubricDir, checks: options.checks, fromClient: options.fromClient, memo: options.memo });
}
