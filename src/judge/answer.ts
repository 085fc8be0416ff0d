/**
 * The judge's answer format, once: the zod schema below is what parsing validates against, and
 * the JSON Schema sent to providers for structured output is generated from it. Add a field to
 * `ANSWER_FIELDS` and it is asked for, required in strict mode, validated and returned. Strict
 * mode requires every field: a field a model may leave out is `.nullable()`, not `.optional()`
 * (tests/judge/answer.test.ts compares with the OpenAI SDK's own strict converter).
 */
import * as z from "zod";
import { sharedCanonical } from "../text/canonical-json.js";

/**
 * The fields of one answer with a reason before the verdict (`reasoning: before`); `answerFields`
 * moves the reason after the verdict or drops it (`after`, `none`: the default judge answers
 * with the verdict only, see docs/judging.md).
 */
export const ANSWER_FIELDS = {
  /** A short reason, one or two sentences. */
  reason: z.string(),
  /** true for yes, false for no. */
  verdict: z.boolean(),
};

/** One answer to one question (single mode). */
export const AnswerSchema = z.strictObject(ANSWER_FIELDS);
export type Answer = z.output<typeof AnswerSchema>;

/**
 * Fields a rubric may add to the answer, asked for only when one of its questions wants them:
 * the span that decides the verdict (`quote: true`) and a stated P(yes) (`probability: confidence`).
 */
export interface AnswerExtras {
  quote?: boolean;
  confidence?: boolean;
  /** Where the reason goes: before the verdict (default here, the original format), after it, or nowhere. */
  reasoning?: "before" | "after" | "none";
}

/**
 * The answer's fields with the asked extras, in writing order (structured output generates
 * them in this order): quote, confidence, verdict, with the reason before or after them or not at all.
 */
export function answerFields(extras: AnswerExtras = {}) {
  const reasoning = extras.reasoning ?? "before";
  return {
    ...(reasoning === "before" ? { reason: ANSWER_FIELDS.reason } : {}),
    ...(extras.quote ? { quote: z.string() } : {}),
    ...(extras.confidence ? { confidence: z.number() } : {}),
    verdict: ANSWER_FIELDS.verdict,
    ...(reasoning === "after" ? { reason: ANSWER_FIELDS.reason } : {}),
  };
}

/** One answer in a batched reply: the question's id, then the answer's fields. */
export function batchedEntrySchema(ids: readonly string[], extras: AnswerExtras = {}) {
  return z.strictObject({ id: z.enum(ids as [string, ...string[]]), ...answerFields(extras) });
}

/** A batched reply: one entry per question id. */
export function batchedAnswerSchema(ids: readonly string[], extras: AnswerExtras = {}) {
  return z.strictObject({ answers: z.array(batchedEntrySchema(ids, extras)) });
}

/**
 * A JSON Schema of an answer schema as structured output wants it: every object closed
 * (`additionalProperties: false`) and every field required, as OpenAI's strict mode demands;
 * no `$schema` line (it is not part of the answer format, and would change every cache key).
 */
export function toStructuredOutputSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "output", unrepresentable: "throw" }) as Record<string, unknown>;
  return json;
}

const extrasKey = (extras: AnswerExtras) => `${extras.quote ? "q" : ""}${extras.confidence ? "c" : ""}${extras.reasoning ?? "before"}`;
// Built on first use, not at import: converting a schema to JSON Schema costs ~2 ms that
// `import "rubricate"` should not pay (issue 31).
const singleSchemas = new Map<string, Record<string, unknown>>();

/** JSON Schema of a single answer with the asked extras (none: `{ reason, verdict }`); one frozen object, shared by every request. */
export function singleAnswerJsonSchema(extras: AnswerExtras = {}): Record<string, unknown> {
  const key = extrasKey(extras);
  let schema = singleSchemas.get(key);
  if (!schema) singleSchemas.set(key, (schema = sharedCanonical(toStructuredOutputSchema(z.strictObject(answerFields(extras))))));
  return schema;
}

const batchedSchemas = new Map<string, Record<string, unknown>>();

/** JSON Schema of a batched answer for these ids (and extras); one frozen object per id list, remembered (bounded). */
export function batchedAnswerJsonSchema(ids: readonly string[], extras: AnswerExtras = {}): Record<string, unknown> {
  const key = `${extrasKey(extras)}\0${ids.join("\0")}`;
  let schema = batchedSchemas.get(key);
  if (!schema) {
    // Bounded: a long run with per-sample criteria must not grow this without limit.
    if (batchedSchemas.size >= 1000) batchedSchemas.clear();
    batchedSchemas.set(key, (schema = sharedCanonical(toStructuredOutputSchema(batchedAnswerSchema(ids, extras)))));
  }
  return schema;
}
