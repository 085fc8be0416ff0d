import { statSync } from "node:fs";
import { dirname, isAbsolute, relative as relativePath, resolve } from "node:path";
import { RubricateError, type SourceLocation } from "../errors.js";
import type { Check } from "../checks/schema.js";
import { kindOf } from "../checks/registry.js";
import { validateCheckDefinition } from "../checks/validate.js";
import { valueAt } from "../config/issues.js";
import { explainRubricIssues } from "./issues.js";
import { whenCycle } from "./when.js";
import { RubricSchema, type Criterion, type Rubric, type RubricFile } from "./schema.js";
import { templateVariables } from "../text/template.js";
import type { YamlSource } from "../config/yaml-source.js";
import { failWith, parseConfig, readConfigText, type LocatedIssue } from "../config/load.js";

/** Options of `parseRubric`: the file name errors name, and where `extends` resolves. */
export interface ParseOptions {
  /** Named in every error; also the base for relative `extends`. */
  filename?: string;
  /** Folder that relative `extends` resolve against (default: the file's folder, else the cwd). */
  baseDir?: string;
  maxBytes?: number;
}

type Located = LocatedIssue;

/**
 * Parses rubric YAML text into a validated `Rubric`. Throws a `RubricateError` naming file:line:col.
 * @example const rubric = parseRubric(readFileSync("math.yaml", "utf8"), { filename: "math.yaml" })
 */
export function parseRubric(text: string, options: ParseOptions = {}): Rubric {
  return parseWithStack(text, options, []);
}

/**
 * Reads and parses a rubric file, resolving `extends` relative to it.
 * @example const rubric = await loadRubric("rubrics/math.yaml")
 */
export async function loadRubric(path: string, options: Omit<ParseOptions, "filename"> = {}): Promise<Rubric> {
  return loadRubricSync(path, options);
}

/** The synchronous form of `loadRubric`. */
export function loadRubricSync(path: string, options: Omit<ParseOptions, "filename"> = {}): Rubric {
  return loadWithStack(path, options, []);
}

function loadWithStack(path: string, options: Omit<ParseOptions, "filename">, stack: string[]): Rubric {
  const absolute = resolve(path);
  return parseWithStack(readConfigText(absolute, { what: "rubric", shown: path, maxBytes: options.maxBytes }), { ...options, filename: path, baseDir: dirname(absolute) }, stack);
}

function parseWithStack(text: string, options: ParseOptions, stack: string[]): Rubric {
  const { value: file, source } = parseConfig(text, RubricSchema, {
    filename: options.filename,
    maxBytes: options.maxBytes,
    mappingRequired: "a rubric file is a YAML mapping with at least `id` and `criteria`",
    explain: explainRubricIssues,
    // A schema error elsewhere must not hide a broken regex or JSON Schema in another criterion: report those too.
    moreIssues: (src, explained) => rawCheckIssues(src, new Set(explained.filter((i) => i.path[0] === "criteria").map((i) => i.path[1]))),
  });
  const own = file.criteria;
  checkCriteriaDefinitions(own, source);
  const base = resolveExtends(file, source, options, stack);
  const rubric = mergeRubric(base, file, source.data as Record<string, unknown>);
  rubric.source = options.filename;
  checkCrossReferences(rubric, own, source);
  return rubric;
}

function resolveExtends(file: RubricFile, source: YamlSource, options: ParseOptions, stack: string[]): Rubric[] {
  if (file.extends === undefined) return [];
  const list = Array.isArray(file.extends) ? file.extends : [file.extends];
  const baseDir = options.baseDir ?? (options.filename ? dirname(resolve(options.filename)) : process.cwd());
  const here = options.filename ? resolve(options.filename) : "<input>";
  return list.map((relative, index) => {
    const target = resolve(baseDir, relative);
    const location = source.locate(Array.isArray(file.extends) ? ["extends", index] : ["extends"]);
    if (target === here || stack.includes(target)) {
      const chain = [...stack, here, target].map((p) => p.replace(`${process.cwd()}/`, "")).join(" -> ");
      fail("EXTENDS_CYCLE", [{ message: `extends cycle: ${chain}`, location }]);
    }
    let isFile = false;
    try {
      isFile = statSync(target).isFile();
    } catch {
      fail("EXTENDS_NOT_FOUND", [{ message: `extends "${relative}": no such file (resolved to ${target})`, location }]);
    }
    if (!isFile) fail("EXTENDS_NOT_FOUND", [{ message: `extends "${relative}": not a file (resolved to ${target})`, location }]);
    // Errors inside the extended file name it as the user would (relative to the cwd when under it).
    const shown = relativePath(process.cwd(), target);
    return loadWithStack(shown && !shown.startsWith("..") && !isAbsolute(shown) ? shown : target, { maxBytes: options.maxBytes }, [...stack, here]);
  });
}

function mergeRubric(bases: Rubric[], file: RubricFile, raw: Record<string, unknown>): Rubric {
  const criteria: Criterion[] = [];
  for (const criterion of [...bases.flatMap((b) => b.criteria), ...file.criteria]) {
    const existing = criteria.findIndex((c) => c.id === criterion.id);
    // A child may redefine an inherited criterion (e.g. to change its points); it replaces it in place.
    if (existing >= 0) criteria[existing] = criterion;
    else criteria.push(criterion);
  }
  const inherited = <K extends keyof Rubric>(key: K): Rubric[K] | undefined => bases.map((b) => b[key]).find((v) => v !== undefined);
  const { extends: _extends, ...rest } = file;
  return {
    ...rest,
    inputs: mergeInputs(raw.inputs === undefined ? undefined : file.inputs, bases, file.inputs),
    judge: file.judge ?? inherited("judge"),
    context: file.context ?? inherited("context"),
    response_field: file.response_field ?? inherited("response_field"),
    scoring: raw.scoring === undefined ? (inherited("scoring") ?? file.scoring) : file.scoring,
    criteria,
  };
}

/** Declared inputs first, then inherited ones; the default applies only when neither exists. */
function mergeInputs(declared: string[] | undefined, bases: Rubric[], fallback: string[]): string[] {
  const inherited = bases.flatMap((b) => b.inputs);
  if (declared === undefined && inherited.length === 0) return fallback;
  return [...new Set([...(declared ?? []), ...inherited])];
}

/** Problems in the checks of a file that failed its schema, read from the raw data (what can be read of it). */
function rawCheckIssues(source: YamlSource, skip: Set<PropertyKey>): Located[] {
  const criteria = (source.data as { criteria?: unknown }).criteria;
  if (!Array.isArray(criteria)) return [];
  const issues: Located[] = [];
  criteria.forEach((criterion, index) => {
    if (skip.has(index)) return;
    const check = (criterion as { check?: unknown } | null)?.check;
    if (typeof check !== "object" || check === null) return;
    // Only settings its kind's schema accepts are judged here; the schema issues explain the rest.
    const named = kindOf(check);
    if (!named?.kind.spec.safeParse(named.spec).success) return;
    try {
      const problem = validateCheckDefinition(check as Check);
      if (problem) issues.push({ message: problem.message, location: source.locate(["criteria", index, "check", ...problem.path]) });
    } catch {
      // not readable enough to judge: the schema issues say why
    }
  });
  return issues;
}

function checkCriteriaDefinitions(criteria: Criterion[], source: YamlSource): void {
  const issues: Located[] = [];
  criteria.forEach((criterion, index) => {
    if (criterion.check) {
      const problem = validateCheckDefinition(criterion.check);
      if (problem) issues.push({ message: problem.message, location: source.locate(["criteria", index, "check", ...problem.path]) });
    }
  });
  if (issues.length > 0) fail("SCHEMA", issues);
}

function checkCrossReferences(rubric: Rubric, own: Criterion[], source: YamlSource): void {
  const ownIndex = (id: string) => own.findIndex((c) => c.id === id);
  const locate = (id: string, key: string) => {
    const i = ownIndex(id);
    return i >= 0 ? source.locate(["criteria", i, key]) : source.locate(["extends"]);
  };
  // Every problem is reported at once (validate's promise), under the first one's code.
  const problems: { code: CrossReferenceCode; issue: Located }[] = [];
  const problem = (code: CrossReferenceCode, issue: Located) => problems.push({ code, issue });
  const seen = new Map<string, number>();
  own.forEach((criterion, index) => {
    if (seen.has(criterion.id)) {
      problem("DUPLICATE_ID", { message: `duplicate criterion id "${criterion.id}" (first defined as criterion ${seen.get(criterion.id)! + 1})`, location: source.locate(["criteria", index, "id"]) });
    } else seen.set(criterion.id, index);
  });
  const ids = new Set(rubric.criteria.map((c) => c.id));
  for (const criterion of rubric.criteria) {
    if (criterion.when === undefined) continue;
    if (criterion.when === criterion.id) problem("WHEN_CYCLE", { message: `criterion "${criterion.id}" has \`when\` pointing to itself`, location: locate(criterion.id, "when") });
    else if (!ids.has(criterion.when)) {
      problem("WHEN_MISSING", { message: `\`when: ${criterion.when}\` names no criterion of this rubric`, location: locate(criterion.id, "when") });
    }
  }
  const cycle = problems.some((p) => p.code === "WHEN_CYCLE") ? undefined : whenCycle(rubric.criteria);
  if (cycle) problem("WHEN_CYCLE", { message: `\`when\` cycle: ${cycle.join(" -> ")}`, location: locate(cycle[0], "when") });
  const declared = new Set(rubric.inputs);
  own.forEach((criterion, index) => {
    const used = [...templateVariables(criterion.question ?? ""), ...checkVariables(criterion)];
    const missing = used.filter((v) => !declared.has(v.split(".")[0]));
    if (missing.length > 0) {
      problem("SCHEMA", { message: `criterion "${criterion.id}" uses {{${missing[0]}}}, which is not in \`inputs\` (${rubric.inputs.join(", ")})`, location: source.locate(["criteria", index, criterion.question ? "question" : "check"]) });
    }
  });
  if (rubric.scoring.method === "points" && rubric.criteria.length > 0 && !rubric.criteria.some((c) => c.points > 0)) {
    problem("NO_POSITIVE_POINTS", { message: "no criterion has positive points, so the `points` reward is undefined", location: source.locate(["criteria"]) });
  }
  if (rubric.criteria.length === 0 && !rubric.criteria_from_samples) {
    problem("SCHEMA", { message: "the rubric has no criteria", location: source.locate([], { key: "criteria" }) });
  }
  if (problems.length > 0) fail(problems[0].code, problems.map((p) => p.issue));
}

type CrossReferenceCode = "SCHEMA" | "DUPLICATE_ID" | "WHEN_MISSING" | "WHEN_CYCLE" | "NO_POSITIVE_POINTS";

function checkVariables(criterion: Criterion): string[] {
  const check = criterion.check as Record<string, unknown> | undefined;
  if (!check) return [];
  const vars: string[] = [];
  if (typeof check.field === "string") vars.push(check.field);
  const expected = valueAt(check, ["number", "expected"]);
  if (typeof expected === "string") vars.push(...templateVariables(expected));
  if (typeof check.equals === "string") vars.push(...templateVariables(check.equals));
  return vars;
}


function fail(code: "SCHEMA" | "DUPLICATE_ID" | "WHEN_MISSING" | "WHEN_CYCLE" | "NO_POSITIVE_POINTS" | "EXTENDS_CYCLE" | "EXTENDS_NOT_FOUND", issues: Located[]): never {
  failWith(code, issues);
}

