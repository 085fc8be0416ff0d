import type { z } from "zod";
import { explainIssues, keysByName, suggestion, type PathIssue } from "../config/issues.js";
import { CriterionSchema, ExampleSchema, RubricSchema, ScoringSchema } from "./schema.js";
import { CHECK_BRANCHES } from "../checks/schema.js";

const knownKeys = keysByName(RubricSchema, { scoring: ScoringSchema, examples: ExampleSchema, criteria: CriterionSchema });

/**
 * A rubric document's schema issues, explained: "did you mean" follows the schema into check kinds
 * and examples, and a failed check names the kinds it may have.
 * @example explainRubricIssues(RubricSchema.safeParse(data).error!, data)
 */
export function explainRubricIssues(error: z.ZodError, data: unknown): PathIssue[] {
  return explainIssues(error, data, { schema: RubricSchema, keysAt: knownKeys, explainUnion: (value, path) => (path.at(-1) === "check" ? explainCheck(value, path) : undefined) });
}

function explainCheck(check: unknown, path: PropertyKey[]): PathIssue[] {
  const kindKeys = [...CHECK_BRANCHES.keys()];
  if (typeof check !== "object" || check === null || Array.isArray(check)) {
    return [{ path, message: `a check is a mapping with one of: ${kindKeys.join(", ")}` }];
  }
  const kinds = kindKeys.filter((k) => k in check);
  if (kinds.length === 0) {
    const first = Object.keys(check)[0] ?? "";
    return [{ path, key: first || undefined, message: `unknown check kind "${first}"${suggestion(first, [...kindKeys])}; expected one of: ${kindKeys.join(", ")}` }];
  }
  if (kinds.length > 1) return [{ path, key: kinds[1], message: `a check has exactly one kind; found ${kinds.join(" and ")}` }];
  const branch = CHECK_BRANCHES.get(kinds[0]);
  const result = branch?.safeParse(check);
  if (!result || result.success) return [{ path, message: "invalid check" }];
  // "Did you mean" inside a kind's settings too (math: { expeted: … } → expected).
  const keys = (inner: PropertyKey[]) => {
    let schema: unknown = branch;
    for (const key of inner) schema = unwrapOptional((schema as { shape?: Record<PropertyKey, unknown> } | undefined)?.shape?.[key]);
    const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
    return shape ? Object.keys(shape) : undefined;
  };
  return explainIssues(result.error, check, { keysAt: keys, prefix: path }).map((i) => ({ ...i, path: [...path, ...i.path] }));
}

/** The schema inside `.optional()`, or the schema itself. */
function unwrapOptional(schema: unknown): unknown {
  const inner = schema as { unwrap?: () => unknown; def?: { type?: string } } | undefined;
  return inner?.def?.type === "optional" && inner.unwrap ? inner.unwrap() : schema;
}
