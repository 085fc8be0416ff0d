import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { isMap, isPair, isScalar, parseDocument } from "yaml";
import { compileJsonSchema } from "../checks/compile.js";
import { RubricateError, type SourceLocation } from "../errors.js";
import { issueLines, keysByName } from "../config/issues.js";
import { failWith, parseConfig, readConfigText, type LocatedIssue } from "../config/load.js";
import { jsonLineValue } from "../config/jsonl.js";
import { loadRubricSync, parseRubric } from "../rubric/load.js";
import type { Rubric } from "../rubric/schema.js";
import { templateVariables } from "../text/template.js";
import { MAX_YAML_BYTES, type YamlSource } from "../config/yaml-source.js";
import { EnvironmentSchema, HarnessSchema, PolicyDefaultsSchema, SandboxConfigSchema, SandboxLimitsSchema, StopSchema, TaskSchema, ToolDeclSchema, ReplSchema, type EnvironmentFile, type SandboxConfig } from "./schema.js";
import { TERMINAL_TOOLS } from "./terminal.js";
import type { EnvHooks, Environment, ResolvedSandboxConfig, Task } from "./types.js";
import type { CheckFunction } from "../checks/types.js";

type Located = LocatedIssue;

/**
 * Reads an environment file: validates it, reads its tasks, loads its rubric and imports its hooks
 * (whose `checks` its rollouts score with; nothing is registered process-wide). Errors name file:line:col, like rubric errors.
 * @example const env = await loadEnvironment("examples/wordle/env.yaml"); env.tasks.length
 */
export async function loadEnvironment(path: string): Promise<Environment> {
  const text = readConfigText(path, { what: "environment" });
  return parseEnvironment(text, { filename: path, baseDir: dirname(resolve(path)) });
}

/** Parses environment YAML text; relative paths (dataset, rubric, hooks) resolve against `baseDir`. */
export async function parseEnvironment(text: string, options: { filename?: string; baseDir?: string } = {}): Promise<Environment> {
  const { value: file, source } = parseConfig(text, EnvironmentSchema, {
    filename: options.filename,
    mappingRequired: "an environment file is a YAML mapping with at least `id`, `dataset` and `rubric`",
    explain: { keysAt: knownKeys },
  });
  const at = (path: readonly PropertyKey[], key?: string) => source.locate(path, { key });
  const dir = options.baseDir ?? process.cwd();
  checkHarness(file, source);
  const sandbox = file.sandbox ? resolveSandbox(file.sandbox, dir, at) : undefined;
  const tasks = typeof file.dataset === "string" ? readDataset(resolve(dir, file.dataset), shown(dir, file.dataset), at(["dataset"])) : inlineTasks(file);
  checkTemplates(file, tasks, source);
  const rubric = typeof file.rubric === "string" ? loadRubricFile(dir, file.rubric, at(["rubric"])) : inlineRubric(text, options.filename, dir);
  const hooks = file.hooks ? await importHooks(resolve(dir, file.hooks), shown(dir, file.hooks), at(["hooks"])) : {};
  checkTools(file, hooks, source);
  const harness = sandbox ? { ...file.harness, tools: [...sandbox.tools.map((name) => TERMINAL_TOOLS[name]), ...file.harness.tools] } : file.harness;
  return {
    id: file.id,
    version: file.version,
    description: file.description,
    source: options.filename,
    dir,
    tasks,
    harness,
    rubric,
    hooks,
    policy: file.policy,
    config: file.config ?? {},
    ...(sandbox ? { sandbox } : {}),
    ...(file.models ? { models: file.models } : {}),
  };
}

/** Reads the `{ from: file }` entries of `sandbox.files` (relative to the environment's folder) now, so a missing one is a load error. */
function resolveSandbox(config: SandboxConfig, dir: string, at: (path: readonly PropertyKey[], key?: string) => SourceLocation): ResolvedSandboxConfig {
  const files: Record<string, string> = {};
  for (const [path, value] of Object.entries(config.files)) {
    if (typeof value === "string") files[path] = value;
    else {
      try {
        files[path] = readFileSync(resolve(dir, value.from), "utf8");
      } catch (e) {
        fail([{ message: `sandbox file "${path}": cannot read ${value.from}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, location: at(["sandbox", "files", path]) }], "FILE_NOT_FOUND");
      }
    }
  }
  if (config.tools.includes("python") && !config.repl) fail([{ message: "the python tool needs a `sandbox.repl` section", location: at(["sandbox", "tools"]) }]);
  return { ...config, files };
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
  failWith(code, issues);
}

const knownKeys = keysByName(EnvironmentSchema, {
  harness: HarnessSchema,
  tools: ToolDeclSchema,
  stop: StopSchema,
  policy: PolicyDefaultsSchema,
  dataset: TaskSchema,
  sandbox: SandboxConfigSchema,
  limits: SandboxLimitsSchema,
  repl: ReplSchema,
});

/** The keys of a flat task line that are not inputs. */
const TASK_KEYS = ["id", "answer", "criteria", "files", "setup", "meta"];

/** A dataset line: `{id?, inputs, answer?, criteria?}`, or flat (every other key is an input). */
function normaliseTask(raw: Record<string, unknown>, index: number): Task | string {
  const shaped = "inputs" in raw ? raw : { ...pick(raw, TASK_KEYS), inputs: omit(raw, TASK_KEYS) };
  const parsed = TaskSchema.safeParse(shaped);
  if (!parsed.success) return issueLines(parsed.error, { root: "task" }).join("; ");
  const t = parsed.data;
  return {
    id: String(t.id ?? index + 1),
    inputs: t.inputs,
    ...(t.answer !== undefined ? { answer: t.answer } : {}),
    ...(t.criteria ? { criteria: t.criteria } : {}),
    ...(t.files ? { files: t.files } : {}),
    ...(t.setup ? { setup: t.setup } : {}),
  };
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
    const value = jsonLineValue(line, shownPath, i + 1);
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

/**
 * Imports a hooks module. Plain Node (the built CLI) cannot import TypeScript, so a .ts module it
 * refuses is imported again with tsx's loader registered for the duration (Node's own type
 * stripping refuses files under node_modules). Registered, not tsx's namespaced `tsImport`: that
 * would give the hooks their own copy of every module they import, `rubricate` included, so a
 * check they register would land in a registry the running rubricate never reads.
 */
async function importModule(abs: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(abs).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (e) {
    // Outside a `"type": "module"` package Node loads an unknown extension as CommonJS JavaScript,
    // so TypeScript there fails as a SyntaxError rather than as an unknown extension.
    const refused = (e as NodeJS.ErrnoException).code === "ERR_UNKNOWN_FILE_EXTENSION" || e instanceof SyntaxError;
    if (!/\.[cm]?ts$/.test(abs) || !refused) throw e;
    const { register } = await import("tsx/esm/api");
    // A .ts file outside an ES module package is CommonJS to Node: tsx's require hook compiles it.
    const { register: registerRequire } = await import("tsx/cjs/api");
    const unregister = register();
    const unregisterRequire = registerRequire();
    try {
      // Node remembers the failed import of this URL: the query makes it a fresh one.
      return (await import(`${url}?tsx`)) as Record<string, unknown>;
    } finally {
      unregisterRequire();
      await unregister();
    }
  }
}

/**
 * The custom checks a rubric's `check: { custom: … }` criteria need, from an environment file
 * (its hooks' `checks`) or a module exporting `checks` (hooks.ts, checks.mjs, …): what
 * `score --checks` and `distill --checks` pass to scoring, since no check is registered process-wide.
 * @example const checks = await loadChecks("examples/support-desk/env.yaml")
 */
export async function loadChecks(path: string): Promise<Record<string, CheckFunction>> {
  if (/\.ya?ml$/i.test(path)) return (await loadEnvironment(path)).hooks.checks ?? {};
  return (await importHooks(resolve(path), path, { file: path })).checks ?? {};
}

async function importHooks(abs: string, shownPath: string, where: SourceLocation): Promise<EnvHooks> {
  try {
    statSync(abs);
  } catch {
    fail([{ message: `hooks "${shownPath}": no such file`, location: where }], "FILE_NOT_FOUND");
  }
  let mod: Record<string, unknown> = {};
  try {
    mod = await importModule(abs);
  } catch (e) {
    fail([{ message: `cannot import hooks "${shownPath}": ${(e as Error).message}`, location: where }]);
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
  const builtin = new Set<string>(file.sandbox?.tools ?? []);
  file.harness.tools.forEach((tool, i) => {
    if (builtin.has(tool.name)) issues.push({ message: `tool "${tool.name}" is a built-in sandbox tool (sandbox.tools); give yours another name`, location: source.locate(["harness", "tools", i, "name"]) });
  });
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
