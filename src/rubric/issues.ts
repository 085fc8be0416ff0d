import type { z } from "zod";
import { CheckSchema, CriterionSchema, ExampleSchema, RubricSchema, ScoringSchema } from "./schema.js";

/** A schema problem at a path inside the document. */
export interface PathIssue {
  path: PropertyKey[];
  message: string;
  /** Point at this key of the map at `path` rather than at the map. */
  key?: string;
}

const CHECK_KINDS = ["regex", "contains", "not_contains", "equals", "json_schema", "number", "length", "custom"] as const;

/** Turns zod issues into messages people can act on, with "did you mean" for misspelt keys. */
export function explainIssues(
  error: z.ZodError,
  data: unknown,
  keysAt: (path: PropertyKey[]) => string[] | undefined = knownKeys,
  /** Where `data` sits in the document, so messages name the full path (e.g. criteria.0.check.number.pick). */
  prefix: PropertyKey[] = [],
): PathIssue[] {
  const out: PathIssue[] = [];
  for (const issue of error.issues) {
    const path = issue.path as PropertyKey[];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        // Rubric documents: follow the schema (into check kinds, examples, …); other callers bring their own keys.
        const known = keysAt === knownKeys && prefix.length === 0 ? (keysInSchema(RubricSchema, data, path) ?? knownKeys(path)) : keysAt(path);
        const hint = known ? suggestion(key, known) : "";
        out.push({ path, key, message: `unknown key "${key}"${hint}` });
      }
    } else if (issue.code === "invalid_union" && isCheckPath(path)) {
      out.push(...explainCheck(valueAt(data, path), path));
    } else if (issue.code === "invalid_type" && valueAt(data, path) === undefined) {
      out.push({ path: path.slice(0, -1), message: `missing required key "${String(path.at(-1))}"` });
    } else if (issue.code === "custom") {
      // Our own refinements carry a complete message; the location already names the criterion.
      out.push({ path, message: issue.message });
    } else {
      const full = [...prefix, ...path];
      const where = full.length > 0 ? `${full.map(String).join(".")}: ` : "";
      out.push({ path, message: `${where}${issue.message}${booleanHint(issue, valueAt(data, path))}` });
    }
  }
  return out;
}

function explainCheck(check: unknown, path: PropertyKey[]): PathIssue[] {
  if (typeof check !== "object" || check === null || Array.isArray(check)) {
    return [{ path, message: `a check is a mapping with one of: ${CHECK_KINDS.join(", ")}` }];
  }
  const kinds = CHECK_KINDS.filter((k) => k in check);
  if (kinds.length === 0) {
    const first = Object.keys(check)[0] ?? "";
    return [{ path, key: first || undefined, message: `unknown check kind "${first}"${suggestion(first, [...CHECK_KINDS])}; expected one of: ${CHECK_KINDS.join(", ")}` }];
  }
  if (kinds.length > 1) return [{ path, key: kinds[1], message: `a check has exactly one kind; found ${kinds.join(" and ")}` }];
  const branch = CheckSchema.options.find((option) => kinds[0] in option.shape);
  const result = branch?.safeParse(check);
  if (!result || result.success) return [{ path, message: "invalid check" }];
  const keys = (inner: PropertyKey[]) => (inner.length === 0 && branch ? Object.keys(branch.shape) : undefined);
  return explainIssues(result.error, check, keys, path).map((i) => ({ ...i, path: [...path, ...i.path] }));
}

/**
 * The keys the schema allows at `path` (following the data through arrays and unions, e.g. into
 * the branch of a check whose kind the data names); undefined when the path leads nowhere known.
 */
function keysInSchema(schema: unknown, data: unknown, path: PropertyKey[]): string[] | undefined {
  type Walkable = { shape?: Record<string, unknown>; element?: unknown; options?: unknown[]; unwrap?: () => unknown };
  const settle = (s: unknown, value: unknown): Walkable | undefined => {
    let current = s as Walkable | undefined;
    for (let i = 0; i < 10 && current; i++) {
      if (current.shape || current.element) return current;
      if (Array.isArray(current.options)) {
        const objects = current.options.map((o) => settle(o, value)).filter((o): o is Walkable => Boolean(o?.shape));
        const keys = value && typeof value === "object" ? Object.keys(value) : [];
        current = objects.find((o) => keys.some((k) => k in o.shape! && CHECK_KINDS.includes(k as (typeof CHECK_KINDS)[number]))) ?? (objects.length === 1 ? objects[0] : undefined);
        continue;
      }
      current = typeof current.unwrap === "function" ? (current.unwrap() as Walkable) : undefined;
    }
    return current;
  };
  let node = settle(schema, data);
  let value = data;
  for (const part of path) {
    value = valueAt(value, [part]);
    if (typeof part === "number" && node?.element) node = settle(node.element, value);
    else if (typeof part === "string" && node?.shape) node = settle(node.shape[part], value);
    else return undefined;
  }
  return node?.shape ? Object.keys(node.shape) : undefined;
}

/** YAML 1.2 reads yes/no/on/off as strings: say how to write a boolean. */
function booleanHint(issue: z.core.$ZodIssue, value: unknown): string {
  const expectsBoolean = issue.code === "invalid_type" && issue.expected === "boolean";
  return expectsBoolean && typeof value === "string" && /^(yes|no|on|off|y|n|true|false)$/i.test(value) ? " (write true or false)" : "";
}

function isCheckPath(path: PropertyKey[]): boolean {
  return path.at(-1) === "check";
}

/** The value at a path in plain data, or undefined. */
export function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const part of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[part as string];
  }
  return current;
}

/**
 * Known keys at a path for "did you mean": the root schema's keys at the top level, else those of
 * the schema named after the path's last key (`criteria.3` → the criterion schema).
 */
export function keysByName(root: { shape: object }, named: Record<string, { shape: object }>): (path: PropertyKey[]) => string[] | undefined {
  return (path) => {
    if (path.length === 0) return Object.keys(root.shape);
    const last = path.filter((p) => typeof p === "string").at(-1);
    const schema = last === undefined ? undefined : named[last];
    return schema ? Object.keys(schema.shape) : undefined;
  };
}

const knownKeys = keysByName(RubricSchema, { scoring: ScoringSchema, examples: ExampleSchema, criteria: CriterionSchema });

function suggestion(word: string, candidates: string[]): string {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? ` (did you mean "${best}"?)` : "";
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const saved = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = saved;
    }
  }
  return row[b.length];
}
