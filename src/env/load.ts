import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { isMap, isPair, isScalar, parseDocument } from "yaml";
import { registerCheck } from "../checks/registry.js";
import { compileJsonSchema } from "../checks/compile.js";
import { RubricateError, type SourceLocation } from "../errors.js";
import { explainIssues, keysByName } from "../config/issues.js";
import { loadRubricSync, parseRubric } from "../rubric/load.js";
import type { Rubric } from "../rubric/schema.js";
import { templateVariables } from "../text/template.js";
import { joinIssues, MAX_YAML_BYTES, parseYamlSource, type YamlSource } from "../config/yaml-source.js";
import { EnvironmentSchema, HarnessSchema, PolicyDefaultsSchema, StopSchema, TaskSchema, ToolDeclSchema, type EnvironmentFile } from "./schema.js";
import type { EnvHooks, Environment, Task } from "./types.js";

type Located = { message: string; location: SourceLocation };

/**
 * Reads an environment file: validates it, reads its tasks, loads its rubric, imports its hooks
 * and registers their checks. Errors name file:line:col, like rubric errors.
 * @example const env = await loadEnvironment("examples/wordle/env.yaml"); env.tasks.length
 */
export async function loadEnvironment(path: string): Promise<Environment> {
  const text = readText(path, "environment");
  return parseEnvironment(text, { filename: path, baseDir: dirname(resolve(path)) });
}

/** Parses environment YAML text; relative paths (dataset, rubric, hooks) resolve against `baseDir`. */
export async function parseEnvironment(text: string, options: { filename?: string; baseDir?: string } = {}): Promise<Environment> {
  const source = parseYamlSource(text, { filename: options.filename });
  const at = (path: readonly PropertyKey[], key?: string) => source.locate(path, { key });
  const data = source.data;
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    fail([{ message: "an environment file is a YAML mapping with at least `id`, `dataset` and `rubric`", location: at([]) }]);
  }
  const parsed = EnvironmentSchema.safeParse(data);
  if (!parsed.success) fail(explainIssues(parsed.error, data, { keysAt: knownKeys }).map((i) => ({ message: i.message, location: at(i.path, i.key) })));
  const file = parsed.data;
  const dir = options.baseDir ?? process.cwd();
  checkHarness(file, source);
  const tasks = typeof file.dataset === "string" ? readDataset(resolve(dir, file.dataset), shown(dir, file.dataset), at(["dataset"])) : inlineTasks(file);
  checkTemplates(file, tasks, source);
  const rubric = typeof file.rubric === "string" ? loadRubricFile(dir, file.rubric, at(["rubric"])) : inlineRubric(text, options.filename, dir);
  const hooks = file.hooks ? await importHooks(resolve(dir, file.hooks), shown(dir, file.hooks), at(["hooks"])) : {};
  checkTools(file, hooks, source);
  for (const [name, fn] of Object.entries(hooks.checks ?? {})) registerCheck(name, fn);
  return {
    id: file.id,
    version: file.version,
    description: file.description,
    source: options.filename,
    dir,
    tasks,
    harness: file.harness,
    rubric,
    hooks,
    policy: file.policy,
    config: file.config ?? {},
  };
}

function readText(path: string, what: string): string {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (e) {
    throw new RubricateError("FILE_NOT_FOUND", `cannot read ${what} file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
  }
  if (size > MAX_YAML_BYTES) throw new RubricateError("YAML_TOO_LARGE", `file is ${size} bytes; the limit is ${MAX_YAML_BYTES}`, { location: { file: path } });
  return readFileSync(path, "utf8");
}

/** A path as the user would write it from the cwd. */
function shown(dir: string, path: string): string {
  const abs = resolve(dir, path);
  const rel = relative(process.cwd(), abs);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : abs;
}

function fail(issues: Located[], code: "SCHEMA" | "FILE_NOT_FOUND" | "BAD_INPUT" = "SCHEMA"): never {
  throw new RubricateError(code, joinIssues(issues), { location: issues[0].location, issues });
}

const knownKeys = keysByName(EnvironmentSchema, {
  harness: HarnessSchema,
  tools: ToolDeclSchema,
  stop: StopSchema,
  policy: PolicyDefaultsSchema,
  dataset: TaskSchema,
});

/** A dataset line: `{id?, inputs, answer?, criteria?}`, or flat (every other key is an input). */
function normaliseTask(raw: Record<string, unknown>, index: number): Task | string {
  const shaped = "inputs" in raw ? raw : { ...pick(raw, ["id", "answer", "criteria"]), inputs: omit(raw, ["id", "answer", "criteria"]) };
  const parsed = TaskSchema.safeParse(shaped);
  if (!parsed.success) return parsed.error.issues.map((x) => `${x.path.join(".") || "task"}: ${x.message}`).join("; ");
  const t = parsed.data;
  return { id: String(t.id ?? index + 1), inputs: t.inputs, ...(t.answer !== undefined ? { answer: t.answer } : {}), ...(t.criteria ? { criteria: t.criteria } : {}) };
}

const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)));
const omit = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

function readDataset(abs: string, shownPath: string, where: SourceLocation): Task[] {
  let text: string;
  try {
    text = readFileSync(abs, "utf8");
  } catch (e) {
    fail([{ message: `dataset "${shownPath}": ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, location: where }], "FILE_NOT_FOUND");
  }
  const tasks: Task[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    const location = { file: shownPath, line: i + 1 };
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      fail([{ message: `invalid JSON: ${(e as Error).message}`, location }], "BAD_INPUT");
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) fail([{ message: "each task line is a JSON object", location }], "BAD_INPUT");
    const task = normaliseTask(value as Record<string, unknown>, tasks.length);
    if (typeof task === "string") fail([{ message: task, location }], "BAD_INPUT");
    tasks.push(task);
  });
  if (tasks.length === 0) fail([{ message: `dataset "${shownPath}" has no tasks`, location: where }]);
  uniqueIds(tasks, (i) => ({ file: shownPath, line: i + 1 }));
  return tasks;
}

function inlineTasks(file: EnvironmentFile): Task[] {
  const tasks = (file.dataset as Exclude<EnvironmentFile["dataset"], string>).map((t, i) => normaliseTask(t as Record<string, unknown>, i) as Task);
  uniqueIds(tasks, () => ({}));
  return tasks;
}

function uniqueIds(tasks: Task[], where: (i: number) => SourceLocation): void {
  const seen = new Set<string>();
  tasks.forEach((t, i) => {
    if (seen.has(t.id)) fail([{ message: `duplicate task id "${t.id}"`, location: where(i) }], "BAD_INPUT");
    seen.add(t.id);
  });
}

function checkHarness(file: EnvironmentFile, source: YamlSource): void {
  const issues: Located[] = [];
  const seen = new Set<string>();
  file.harness.tools.forEach((tool, i) => {
    if (seen.has(tool.name)) issues.push({ message: `duplicate tool "${tool.name}"`, location: source.locate(["harness", "tools", i, "name"]) });
    seen.add(tool.name);
    try {
      compileJsonSchema(tool.parameters);
    } catch (e) {
      issues.push({ message: `tool "${tool.name}": ${(e as Error).message}`, location: source.locate(["harness", "tools", i, "parameters"]) });
    }
  });
  const match = file.harness.stop.match;
  if (match !== undefined) {
    try {
      new RegExp(match);
    } catch (e) {
      issues.push({ message: `stop.match is not a regular expression: ${(e as Error).message}`, location: source.locate(["harness", "stop", "match"]) });
    }
  }
  if (issues.length) fail(issues);
}

/** Every `{{var}}` of the system prompt and first message must be an input of every task (never the reference answer). */
function checkTemplates(file: EnvironmentFile, tasks: Task[], source: YamlSource): void {
  for (const key of ["system", "prompt"] as const) {
    const text = file.harness[key];
    if (!text) continue;
    for (const name of templateVariables(text)) {
      const task = tasks.find((t) => lookup(t.inputs, name) === undefined);
      if (task) fail([{ message: `harness.${key} uses {{${name}}}, which task "${task.id}" does not provide`, location: source.locate(["harness", key]) }]);
    }
  }
}

function lookup(vars: Record<string, unknown>, name: string): unknown {
  let current: unknown = vars;
  for (const part of name.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function loadRubricFile(dir: string, path: string, where: SourceLocation): Rubric {
  const abs = resolve(dir, path);
  try {
    statSync(abs);
  } catch {
    fail([{ message: `rubric "${path}": no such file (resolved to ${abs})`, location: where }], "FILE_NOT_FOUND");
  }
  return loadRubricSync(shown(dir, path));
}

/**
 * An inline rubric is parsed by the rubric loader itself, from its own text padded to its place
 * in the file, so its errors carry the environment file's real line and column.
 */
function inlineRubric(text: string, filename: string | undefined, dir: string): Rubric {
  const doc = parseDocument(text);
  const pair = isMap(doc.contents) ? doc.contents.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === "rubric") : undefined;
  const range = (pair?.value as { range?: [number, number, number] } | undefined)?.range;
  if (!range) throw new RubricateError("INTERNAL", "inline rubric without a source range");
  const before = text.slice(0, range[0]);
  const lineStart = before.lastIndexOf("\n") + 1;
  const lines = before.split("\n").length - 1;
  const padded = "\n".repeat(lines) + " ".repeat(range[0] - lineStart) + text.slice(range[0], range[1]);
  return parseRubric(padded, { filename, baseDir: dir });
}

async function importHooks(abs: string, shownPath: string, where: SourceLocation): Promise<EnvHooks> {
  try {
    statSync(abs);
  } catch {
    fail([{ message: `hooks "${shownPath}": no such file`, location: where }], "FILE_NOT_FOUND");
  }
  let mod: Record<string, unknown> = {};
  try {
    mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (e) {
    let error = e;
    // Plain Node cannot import TypeScript: with tsx installed (a dev dependency of most TS
    // projects, and of this repository), load the hooks through its loader instead.
    if (/\.[mc]?ts$/.test(abs) && /Unknown file extension/.test(String(e))) {
      try {
        const tsx = (await import("tsx/esm/api")) as { tsImport(specifier: string, parent: string): Promise<Record<string, unknown>> };
        mod = await tsx.tsImport(pathToFileURL(abs).href, import.meta.url);
        error = undefined;
      } catch (tsxError) {
        error = /Cannot find (package|module) 'tsx/.test(String(tsxError)) ? Object.assign(new Error(`${(e as Error).message} (a .ts hooks module needs tsx: \`npm install --save-dev tsx\`, or compile the hooks to .js/.mjs)`)) : tsxError;
      }
    }
    if (error !== undefined) fail([{ message: `cannot import hooks "${shownPath}": ${(error as Error).message}`, location: where }]);
  }
  const hooks = (typeof mod.default === "object" && mod.default !== null ? mod.default : mod) as EnvHooks;
  const issues: Located[] = [];
  for (const fnName of ["envResponse", "setup", "finalize"] as const) {
    if (hooks[fnName] !== undefined && typeof hooks[fnName] !== "function") issues.push({ message: `hooks "${shownPath}": \`${fnName}\` must be a function`, location: where });
  }
  for (const mapName of ["tools", "checks"] as const) {
    const map = hooks[mapName];
    if (map === undefined) continue;
    if (typeof map !== "object" || map === null) issues.push({ message: `hooks "${shownPath}": \`${mapName}\` must be an object of functions`, location: where });
    else for (const [name, fn] of Object.entries(map)) if (typeof fn !== "function") issues.push({ message: `hooks "${shownPath}": ${mapName}.${name} is not a function`, location: where });
  }
  if (issues.length) fail(issues);
  return hooks;
}

function checkTools(file: EnvironmentFile, hooks: EnvHooks, source: YamlSource): void {
  const issues: Located[] = [];
  const impl = hooks.tools ?? {};
  file.harness.tools.forEach((tool, i) => {
    if (typeof impl[tool.name] !== "function") {
      const where = file.hooks ? `the hooks module (${file.hooks}) exports no tools.${tool.name}` : "the environment has no `hooks:` module to implement it";
      issues.push({ message: `tool "${tool.name}" is declared but not implemented: ${where}`, location: source.locate(["harness", "tools", i, "name"]) });
    }
  });
  const declared = new Set(file.harness.tools.map((t) => t.name));
  for (const name of Object.keys(impl)) {
    if (!declared.has(name)) issues.push({ message: `hooks implement tool "${name}", which harness.tools does not declare (the model would never see it)`, location: source.locate(["harness"], { key: "tools" }) });
  }
  if (issues.length) fail(issues);
}
