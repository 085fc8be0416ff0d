/**
 * The rubric schema of a check, derived from the table of kinds (kinds.ts): one strict branch per
 * kind with its key, its settings, its options, `field`, and `tag` where the kind reads one.
 */
import * as z from "zod";
import type { AnyCheckKind } from "./kind.js";
import { CHECK_KINDS } from "./kinds.js";

const field = z.string().min(1).describe("Which sample input the check reads (default: response)");
const tag = z.string().regex(/^[A-Za-z][\w.-]*$/, "a tag name is letters, digits, '_', '-', '.'").describe("Check only the content of the last <tag>…</tag> in the text (e.g. answer)");

/**
 * A check answered by code, no LLM: exactly one kind's key with its settings, the kind's options,
 * `field` (the input it reads) and, for kinds that take one, `tag`.
 */
export type Check = { field?: string; tag?: string } & { [setting: string]: unknown };

/** The schema of one kind's checks: `{ <key>: settings, ...options, field?, tag? }`, nothing else. */
export function checkBranch(kind: AnyCheckKind): z.ZodObject {
  return z.strictObject({ [kind.key]: kind.spec, ...kind.options, field: field.optional(), ...(kind.tag ? { tag: tag.optional() } : {}) });
}

/** Each kind's branch by key, in the table's order. */
export const CHECK_BRANCHES: ReadonlyMap<string, z.ZodObject> = new Map(CHECK_KINDS.map((kind) => [kind.key, checkBranch(kind)]));

/** A check answered by code, no LLM. Exactly one kind per check. */
export const CheckSchema = z.union([...CHECK_BRANCHES.values()] as [z.ZodObject, ...z.ZodObject[]]) as unknown as z.ZodType<Check>;
