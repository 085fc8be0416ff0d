/**
 * The one way rubricate reads a configuration file: YAML (with limits) → plain data → a zod
 * schema, every problem named by file:line:col. Rubrics, judges, environments, policies and
 * probe attacks all load through here.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import { RubricateError, type ErrorCode, type SourceLocation } from "../errors.js";
import { explainIssues, type ExplainOptions, type PathIssue } from "./issues.js";
import { joinIssues, MAX_YAML_BYTES, parseYamlSource, type YamlSource } from "./yaml-source.js";
import { decodeUtf8, invalidUtf8Message } from "../text/utf8.js";

/** A problem with its place in a file. */
export interface LocatedIssue {
  message: string;
  location: SourceLocation;
}

/** Throws one `RubricateError` listing every issue, located at the first. */
export function failWith(code: ErrorCode, issues: LocatedIssue[]): never {
  throw new RubricateError(code, joinIssues(issues), { location: issues[0]?.location, issues });
}

/** Options of `parseConfig`. */
export interface ParseConfigOptions {
  /** Named in every error. */
  filename?: string;
  maxBytes?: number;
  /** The error code of a schema problem (default "SCHEMA"). */
  code?: ErrorCode;
  /** How to explain zod's issues ("did you mean", union branches); default: walk `schema`. */
  explain?: ExplainOptions | ((error: z.ZodError, data: unknown) => PathIssue[]);
  /** When set, a document that is not a mapping fails with this message before validation. */
  mappingRequired?: string;
  /** Problems of the document's own kind found beside the schema's (reported together, in file order). */
  moreIssues?: (source: YamlSource, explained: PathIssue[]) => LocatedIssue[];
}

/** A validated document and its source, for locating later checks of your own. */
export interface ParsedConfig<T> {
  value: T;
  source: YamlSource;
}

/**
 * Parses YAML text and validates it against `schema`; errors name file:line:col.
 * An empty document is validated as `{}`.
 * @example parseConfig("provider: openai\nmodel: m\n", JudgeConfigSchema, { filename: "j.yaml", code: "JUDGE_CONFIG" }).value
 */
export function parseConfig<S extends z.ZodType>(text: string, schema: S, options: ParseConfigOptions = {}): ParsedConfig<z.output<S>> {
  const source = parseYamlSource(text, { filename: options.filename, maxBytes: options.maxBytes });
  const data = source.data;
  if (options.mappingRequired !== undefined && (typeof data !== "object" || data === null || Array.isArray(data))) {
    failWith("SCHEMA", [{ message: options.mappingRequired, location: source.locate([]) }]);
  }
  const parsed = schema.safeParse(data ?? {});
  if (!parsed.success) {
    const explain = options.explain ?? { schema };
    const issues = typeof explain === "function" ? explain(parsed.error, data) : explainIssues(parsed.error, data, explain);
    const located = issues.map((i) => ({ message: i.message, location: source.locate(i.path, { key: i.key }) }));
    if (options.moreIssues) {
      located.push(...options.moreIssues(source, issues));
      located.sort((a, b) => (a.location.line ?? 0) - (b.location.line ?? 0) || (a.location.col ?? 0) - (b.location.col ?? 0));
    }
    failWith(options.code ?? "SCHEMA", located);
  }
  return { value: parsed.data, source };
}

/**
 * The text of a configuration file, refusing what is not a regular file (a folder, /dev/zero)
 * and what is over the size limit before reading it. `shown` is how errors name the file.
 * @example readConfigText("rubrics/math.yaml", { what: "rubric" })
 */
export function readConfigText(path: string, options: { what: string; shown?: string; maxBytes?: number }): string {
  const shown = options.shown ?? path;
  const maxBytes = options.maxBytes ?? MAX_YAML_BYTES;
  const cannotRead = (e: unknown): never => {
    const why = (e as NodeJS.ErrnoException).code;
    // Only a path with nothing there is "not found": a folder or a device is there, and the wrong thing.
    const code = why === "ENOENT" || why === "ENOTDIR" ? "FILE_NOT_FOUND" : "BAD_INPUT";
    throw new RubricateError(code, `cannot read ${options.what} file ${shown}: ${why === "EISDIR" ? "it is a folder" : (why ?? (e as Error).message)}`, { cause: e });
  };
  let size = 0;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw Object.assign(new Error("not a regular file"), { code: stat.isDirectory() ? "EISDIR" : "not a regular file" });
    size = stat.size;
  } catch (e) {
    cannotRead(e);
  }
  if (size > maxBytes) throw new RubricateError("YAML_TOO_LARGE", `file is ${size} bytes; the limit is ${maxBytes}`, { location: { file: shown } });
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    return cannotRead(e);
  }
  const read = decodeUtf8(bytes);
  if ("bad" in read) throw new RubricateError("BAD_INPUT", invalidUtf8Message(read.bad.byte), { location: { file: shown, line: read.bad.line, col: read.bad.col } });
  return read.text;
}

/**
 * A folder shipped with the package (`judges`, `probes`, …): found by walking up from this module
 * to the package root (src/config in development, dist/ when built); else `name` in the cwd.
 * @example packagedDir("judges")
 */
export function packagedDir(name: string): string {
  return join(packageRoot() ?? process.cwd(), name);
}

/** The package's root folder (the one with package.json and judges/), or undefined when it cannot be found. */
export function packageRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "judges"))) return dir;
    dir = dirname(dir);
  }
  return undefined;
}

/** The package's version from its package.json, "0.0.0" when it cannot be read. */
export function packageVersion(): string {
  const root = packageRoot();
  if (!root) return "0.0.0";
  try {
    return (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "0.0.0";
  }
}

