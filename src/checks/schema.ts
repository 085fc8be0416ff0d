import { z } from "zod";

const field = z.string().min(1).describe("Which sample input the check reads (default: response)");

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
]);
export type Check = z.infer<typeof CheckSchema>;
