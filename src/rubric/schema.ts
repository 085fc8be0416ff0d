import * as z from "zod";
import { CheckSchema } from "../checks/schema.js";

export { CheckSchema, type Check } from "../checks/schema.js";


/** A worked example for a criterion: a response and the verdict an expert gives it. */
export const ExampleSchema = z.strictObject({
  response: z.string(),
  answer: z.boolean().describe("true when the criterion's answer for this response is yes"),
  reason: z.string().optional(),
  inputs: z.record(z.string(), z.string()).optional().describe("Other sample inputs for this example"),
});
/** A worked example for a criterion: a response and the verdict an expert gives it. */
export type Example = z.infer<typeof ExampleSchema>;

export const IdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "ids use letters, digits, '-', '_' and '.'");

/**
 * The largest `points` (either sign) and `weight` of a criterion. Sums of larger ones can overflow
 * to Infinity, and the reward to NaN: a criterion a client added (points 1e308, twice) made a
 * reward server's /get_reward a 500 for its whole batch.
 */
const MAX_POINTS = 1_000_000;

/** One binary criterion: an LLM question or a code check. */
export const CriterionSchema = z
  .strictObject({
    id: IdSchema,
    question: z.string().min(1).optional().describe("A yes/no question for the judge; {{var}} fills from the sample"),
    check: CheckSchema.optional(),
    points: z.number().min(-MAX_POINTS).max(MAX_POINTS).default(1).describe("Negative points mark a pitfall: 'yes' costs points"),
    weight: z.number().positive().max(MAX_POINTS).optional().describe("For the weighted method (default 1)"),
    required: z.boolean().default(false).describe("A gate: failing it makes the reward 0"),
    when: IdSchema.optional().describe("Ask only if this criterion passed"),
    tags: z.array(z.string()).optional(),
    examples: z.array(ExampleSchema).optional(),
    judge_mode: z
      .enum(["batched", "single"])
      .optional()
      .describe("single: always asked in a call of its own; batched: may share a call with other criteria (default: the rubric's judge_mode)"),
    threshold: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe("Met when the judge's P(yes) is at least this (a per-criterion threshold, e.g. the one `rubricate calibrate` suggests); without a probability the verdict stands"),
    quote: z
      .boolean()
      .optional()
      .describe("The judge must quote, word for word, the span of the sample its verdict rests on; a quote not found in the sample is asked again"),
    version: z.union([z.number(), z.string()]).optional().describe("Bump to invalidate cached verdicts"),
    reasoning: z
      .enum(["strip", "keep", "only"])
      .optional()
      .describe("What of a reasoning model's <think>…</think> (or separate reasoning_content) the criterion sees: strip (default) grades the answer alone, keep the whole output, only the reasoning"),
  })
  .refine((c) => c.question === undefined || c.check === undefined, {
    message: "a criterion has both `question` and `check`; keep one (a question for the judge, or a check answered by code)",
  })
  .refine((c) => c.question !== undefined || c.check !== undefined, {
    message: "a criterion needs a `question` (for the judge) or a `check` (answered by code)",
  });
/** One criterion of a loaded rubric: a yes/no judge question or a code check, with its points. */
export type Criterion = z.infer<typeof CriterionSchema>;
/** A criterion as written in YAML (before defaults apply). */
export type CriterionInput = z.input<typeof CriterionSchema>;

/** The zod schema of a rubric's `scoring:` section. */
export const ScoringSchema = z.strictObject({
  method: z.enum(["points", "mean", "all", "weighted"]).default("points"),
  pass_threshold: z.number().min(0).max(1).optional(),
});
/** How a rubric's verdicts become a reward (points, mean, all, weighted) and its pass threshold. */
export type Scoring = z.infer<typeof ScoringSchema>;

/** The rubric file format. The JSON Schema in schema/rubric.schema.json is generated from this. */
export const RubricSchema = z.strictObject({
  id: IdSchema,
  version: z.union([z.number(), z.string()]).default(1),
  description: z.string().optional(),
  context: z.string().optional().describe("Background for the judge, shown before the sample"),
  inputs: z.array(z.string().min(1)).default(["response"]).describe("Variables a sample must provide"),
  response_field: z.string().optional().describe("The input holding the graded response (default: response)"),
  judge: z.string().optional().describe("A judge id or judge file, overridable at run time"),
  scoring: ScoringSchema.default({ method: "points" }),
  judge_mode: z
    .enum(["batched", "single", "auto"])
    .optional()
    .describe("How the judge is asked: batched (a sample's questions share calls, the default), single (one call per question) or auto (pitfalls and required criteria alone, the rest batched); a criterion's own judge_mode wins"),
  max_criteria: z.number().int().positive().optional().describe("At most this many questions in one batched call (default: no limit)"),
  extends: z.union([z.string(), z.array(z.string())]).optional().describe("Rubric files whose criteria come first"),
  criteria: z.array(CriterionSchema).default([]),
  criteria_from_samples: z
    .boolean()
    .optional()
    .describe("Every criterion comes with each sample (its `criteria` list, HealthBench-style); the file may then have none of its own"),
});
/** A rubric file as written (before `extends` and defaults). */
export type RubricFile = z.infer<typeof RubricSchema>;

/** A loaded rubric: `extends` resolved, criteria validated. */
export interface Rubric extends Omit<RubricFile, "extends"> {
  /** The file it came from, when it came from one. */
  source?: string;
}
