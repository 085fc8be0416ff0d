import type { z } from "zod";

/** A schema problem at a path inside the document. */
export interface PathIssue {
  path: PropertyKey[];
  message: string;
  /** Point at this key of the map at `path` rather than at the map. */
  key?: string;
}

/** How to explain the issues of one kind of document. */
export interface ExplainOptions {
  /** The keys allowed at a path, for "did you mean" (tried after `schema`). */
  keysAt?: (path: PropertyKey[]) => string[] | undefined;
  /** The document's root schema: allowed keys are found by walking it along the data. */
  schema?: unknown;
  /** A document-specific explanation of a failed union at a path (e.g. a rubric's check kinds). */
  explainUnion?: (value: unknown, path: PropertyKey[]) => PathIssue[] | undefined;
  /** Where `data` sits in the document, so messages name the full path (e.g. criteria.0.check.number.pick). */
  prefix?: PropertyKey[];
}

/**
 * Turns zod issues into messages people can act on, with "did you mean" for misspelt keys.
 * @example explainIssues(JudgeConfigSchema.safeParse(data).error!, data, { schema: JudgeConfigSchema })
 */
export function explainIssues(error: z.ZodError, data: unknown, options: ExplainOptions = {}): PathIssue[] {
  const prefix = options.prefix ?? [];
  const out: PathIssue[] = [];
  for (const issue of error.issues) {
    const path = issue.path as PropertyKey[];
    const union = issue.code === "invalid_union" ? options.explainUnion?.(valueAt(data, path), path) : undefined;
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const known = (options.schema !== undefined ? keysInSchema(options.schema, data, path) : undefined) ?? options.keysAt?.(path);
        const hint = known ? suggestion(key, known) : "";
        out.push({ path, key, message: `unknown key "${key}"${hint}` });
      }
    } else if (union) {
      out.push(...union);
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

/** Options of `issueLines`. */
export interface IssueLinesOptions {
  /** What a path-less issue is about ("task", "the answer"); without it such a message stands alone. */
  root?: string;
  /** Where the value sits, written before every path (`["data"]` gives "data.spec.version"). */
  prefix?: readonly PropertyKey[];
  /** At most this many issues (default: all): one mistake repeated 2,000 times helps nobody. */
  max?: number;
}

/**
 * Zod issues as "path: message" lines, for a value whose problems are told in one sentence (a
 * request body, a queued job, a line of a dataset) rather than at file:line:col (`explainIssues`).
 * @example issueLines(parsed.error, { root: "task" }).join("; ") // "inputs.question: Required"
 */
export function issueLines(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }, options: IssueLinesOptions = {}): string[] {
  const { root, prefix = [], max = Infinity } = options;
  return error.issues.slice(0, max).map((issue) => {
    const where = [...prefix, ...issue.path].map(String).join(".") || root;
    return where === undefined ? issue.message : `${where}: ${issue.message}`;
  });
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
        // The branch the data names by a key no other branch has (a check's kind, say).
        const keys = value && typeof value === "object" ? Object.keys(value) : [];
        const own = (o: Walkable) => keys.some((k) => k in o.shape! && objects.filter((other) => k in other.shape!).length === 1);
        current = objects.find(own) ?? (objects.length === 1 ? objects[0] : undefined);
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

/** " (did you mean "x"?)" when a candidate is close to the word, else "". */
export function suggestion(word: string, candidates: string[]): string {
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
