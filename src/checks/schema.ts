import { z } from "zod";
import { TestsSpec } from "./code/check.js";
import { FinalAnswerSpec, TagsSpec } from "./format.js";
import { MathSpec } from "./math/check.js";
import { SimilaritySpec } from "./similarity.js";
import { ToolCallsSpec } from "./tools.js";

const field = z.string().min(1).describe("Which sample input the check reads (default: response)");
const tag = z.string().regex(/^[A-Za-z][\w.-]*$/, "a tag name is letters, digits, '_', '-', '.'").describe("Check only the content of the last <tag>…</tag> in the text (e.g. answer)");

/** A check answered by code, no LLM. Exactly one kind per check. */
export const CheckSchema = z.union([
  z.strictObject({
    regex: z.union([z.string(), z.strictObject({ pattern: z.string(), flags: z.string().regex(/^[gimsuy]*$/).optional() })]),
    field: field.optional(),
  }),
  z.strictObject({
    contains: z.union([z.string(), z.array(z.string()).min(1)]),
    match: z.enum(["any", "all"]).optional(),
    case_sensitive: z.boolean().optional(),
    field: field.optional(),
  }),
  z.strictObject({
    not_contains: z.union([z.string(), z.array(z.string()).min(1)]),
    case_sensitive: z.boolean().optional(),
    field: field.optional(),
  }),
  z.strictObject({
    equals: z.union([z.string(), z.number(), z.boolean()]),
    normalize: z.boolean().optional().describe("Trim, collapse white space, lower-case, drop trailing punctuation (default true)"),
    field: field.optional(),
  }),
  z.strictObject({
    json_schema: z.record(z.string(), z.unknown()).describe("A JSON Schema the response must parse as JSON and satisfy"),
    field: field.optional(),
  }),
  z.strictObject({
    number: z.strictObject({
      expected: z.union([z.number(), z.string()]).describe("A number, or a {{variable}} holding one"),
      tolerance: z.number().nonnegative().optional(),
      relative: z.boolean().optional(),
      pick: z.enum(["last", "first", "boxed"]).optional().describe("Which number in the text is the answer (default: boxed if any, else last)"),
    }),
    field: field.optional(),
  }),
  z.strictObject({
    length: z
      .strictObject({ min: z.number().int().nonnegative().optional(), max: z.number().int().nonnegative().optional(), unit: z.enum(["chars", "words"]).optional() })
      .refine((v) => v.min !== undefined || v.max !== undefined, "length needs min or max")
      .refine((v) => v.min === undefined || v.max === undefined || v.min <= v.max, "length min is greater than max, so no response can pass"),
    field: field.optional(),
  }),
  z.strictObject({
    custom: z.string().min(1).describe("The name of a custom check function: a built-in (sql-result-matches), or one passed as score(…, { checks }) or in an environment's hooks"),
    args: z.record(z.string(), z.unknown()).optional(),
    field: field.optional(),
  }),
  // Built-in kinds with one signature (checks/kind.ts); `tag` reads one tagged section of the text.
  z.strictObject({ math: MathSpec, field: field.optional(), tag: tag.optional() }),
  z.strictObject({ tags: TagsSpec, field: field.optional() }),
  z.strictObject({ final_answer: FinalAnswerSpec, field: field.optional(), tag: tag.optional() }),
  z.strictObject({ tool_calls: ToolCallsSpec, field: field.optional(), tag: tag.optional() }),
  z.strictObject({ similarity: SimilaritySpec, field: field.optional(), tag: tag.optional() }),
  z.strictObject({ tests: TestsSpec, field: field.optional(), tag: tag.optional() }),
]);
/** A check answered by code, no LLM (exactly one kind per check). */
export type Check = z.infer<typeof CheckSchema>;
