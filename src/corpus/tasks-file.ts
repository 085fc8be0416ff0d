/**
 * The environment's tasks file as `env synth` and `env filter` change it: found through the
 * environment file (or its package), read line by line with each line's task id, appended to,
 * and rewritten through a temporary file and a rename (a crash leaves the old file or the new one).
 */
import { appendFileSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { stringify } from "yaml";
import { parseYamlSource } from "../config/yaml-source.js";
import { RubricateError } from "../errors.js";
import { jsonLineValue } from "../config/jsonl.js";
import { readEnvManifest } from "../hub/package.js";
import { loadRubricSync, parseRubric } from "../rubric/load.js";
import type { Rubric } from "../rubric/schema.js";

/** Where an environment's parts are: its file, its tasks file, its rubric. */
export interface EnvTarget {
  envFile: string;
  tasksFile: string;
  rubric: Rubric;
  /** The search index a document-search environment ships (its `config.index`), resolved; absent when it names none. */
  index?: string;
}

/**
 * Finds an environment given as a package folder (its package.json's `rubricate` field) or an
 * environment file; its `dataset:` must name a tasks file (inline tasks cannot be appended to).
 * The rubric is read on its own, so an environment whose tasks file is still empty is found too.
 * @example envTarget("my-docs-env").tasksFile // "my-docs-env/tasks.jsonl"
 */
export function envTarget(arg: string): EnvTarget {
  const envFile = existsSync(arg) && statSync(arg).isDirectory() ? join(arg, readEnvManifest(arg).env) : arg;
  let text: string;
  try {
    text = readFileSync(envFile, "utf8");
  } catch (e) {
    throw new RubricateError("FILE_NOT_FOUND", `cannot read the environment ${envFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const file = (parseYamlSource(text, { filename: envFile }).data ?? {}) as { dataset?: unknown; rubric?: unknown; config?: { index?: unknown } };
  if (typeof file.dataset !== "string") throw new RubricateError("BAD_INPUT", `\`dataset:\` must name a tasks file (JSONL) for tasks to be written to it`, { location: { file: envFile } });
  const dir = dirname(envFile);
  const rubric =
    typeof file.rubric === "string"
      ? loadRubricSync(resolve(dir, file.rubric))
      : typeof file.rubric === "object" && file.rubric !== null
        ? { ...parseRubric(stringify(file.rubric), { filename: envFile }), source: envFile }
        : (() => {
            throw new RubricateError("BAD_INPUT", "no `rubric:`", { location: { file: envFile } });
          })();
  const index = file.config?.index;
  return { envFile, tasksFile: resolve(dir, file.dataset), rubric, ...(typeof index === "string" ? { index: resolve(dir, index) } : {}) };
}

/** One line of a tasks file: the task as written and the id the environment gives it. */
export interface TaskLine {
  /** 1-based line number. */
  line: number;
  id: string;
  raw: Record<string, unknown>;
}

/**
 * The tasks of a JSONL tasks file (none when it does not exist), with their ids as the
 * environment numbers them: the `id` field, else the task's position from 1.
 */
export function readTaskLines(path: string): TaskLine[] {
  if (!existsSync(path)) return [];
  const out: TaskLine[] = [];
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((text, i) => {
      if (text.trim() === "") return;
      const raw = jsonLineValue(text, path, i + 1);
      if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new RubricateError("BAD_INPUT", "each task line is a JSON object", { location: { file: path, line: i + 1 } });
      const id = (raw as { id?: unknown }).id;
      out.push({ line: i + 1, id: String(id ?? out.length + 1), raw: raw as Record<string, unknown> });
    });
  return out;
}

/** The question of a task line (`inputs.question`, or a flat `question`), for dedup. */
export function taskQuestion(raw: Record<string, unknown>): string | undefined {
  const inputs = (raw.inputs ?? raw) as Record<string, unknown>;
  return typeof inputs.question === "string" ? inputs.question : undefined;
}

/** Where `env filter` keeps the tasks it removed: `<tasks>.removed.jsonl` beside the tasks file. */
export const removedTasksFile = (tasksFile: string): string => tasksFile.replace(/(\.jsonl)?$/, ".removed.jsonl");

/** Appends tasks as JSONL lines (a missing final newline of the file is added first). */
export function appendTasks(path: string, tasks: readonly unknown[]): void {
  if (tasks.length === 0) return;
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  const lead = text.length > 0 && !text.endsWith("\n") ? "\n" : "";
  appendFileSync(path, lead + tasks.map((t) => `${JSON.stringify(t)}\n`).join(""));
}

/** Replaces a tasks file's content with these tasks, through a temporary file and a rename. */
export function rewriteTasks(path: string, tasks: readonly unknown[]): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, tasks.map((t) => `${JSON.stringify(t)}\n`).join(""));
  renameSync(tmp, path);
}
