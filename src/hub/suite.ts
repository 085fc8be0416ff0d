import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import * as z from "zod";
import { explainIssues } from "../config/issues.js";
import { joinIssues, parseYamlSource } from "../config/yaml-source.js";
import type { Engine } from "../engine/engine.js";
import { runEval } from "../env/eval.js";
import { createPolicy, resolveModelArg, type Policy } from "../env/policy.js";
import { compareModels, type ModelStats } from "../env/stats.js";
import type { Environment, RolloutRecord } from "../env/types.js";
import { RubricateError } from "../errors.js";
import type { Judge } from "../judge/types.js";
import type { ErrorPolicy } from "../score/aggregate.js";
import { formatInterval, formatPercent, formatUsd } from "../report/format.js";
import { escapeHtml, htmlPage, paragraph, table, type Column, type Section } from "../report/html.js";
import { markdownTable, mdHeading, mdJoin } from "../report/markdown.js";
import { describePackage, labelFile, packageLabel } from "./package.js";

// Kept in package.ts (light: `env init` needs them without loading eval), exported here too.
export { defaultEvalOut, labelFile } from "./package.js";

/** One environment of a suite: a spec (path, package, name@version, git URL), optionally with its own task count and rollouts. */
const SuiteEnvSchema = z.union([
  z.string().min(1),
  z.strictObject({
    env: z.string().min(1).describe("A path, an installed package, name@version or a git URL"),
    tasks: z.number().int().positive().optional(),
    rollouts: z.number().int().positive().optional(),
    judge: z.string().optional(),
  }),
]);

/** A suite file: several environments × several models, one combined report. */
export const SuiteSchema = z.strictObject({
  suite: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "a suite name uses letters, digits, '-', '_' and '.'").default("suite"),
  description: z.string().optional(),
  models: z
    .union([z.array(z.string().min(1)).min(1), z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, "a model alias uses letters, digits, '-', '_', '.' and ':'"), z.string().min(1))])
    .describe("provider:model specs or policy files; a mapping gives each an alias shown in the tables"),
  environments: z.array(SuiteEnvSchema).min(1),
  tasks: z.number().int().positive().optional().describe("Use the first n tasks of each environment"),
  rollouts: z.number().int().positive().default(1),
  judge: z.string().optional().describe("Judge for every environment (default: each rubric's)"),
});
export type SuiteFile = z.infer<typeof SuiteSchema>;

/** A suite read and normalised: models with aliases, environments with their settings. */
export interface Suite {
  name: string;
  description?: string;
  /** alias → model spec (the spec itself when the file gave a list). */
  models: { alias: string; spec: string }[];
  environments: { spec: string; tasks?: number; rollouts: number; judge?: string }[];
  /** The folder of the suite file: relative specs resolve against it. */
  dir: string;
}

/** Is this YAML file a suite (a mapping with `environments:`) rather than an environment? */
export function isSuiteFile(path: string): boolean {
  if (!/\.ya?ml$/i.test(path)) return false;
  try {
    return /^environments\s*:/m.test(readFileSync(path, "utf8"));
  } catch {
    return false;
  }
}

/**
 * Reads a suite file; errors name file:line:col.
 * @example loadSuite("nightly.yaml").models // [{ alias: "mini", spec: "openai:gpt-4.1-mini" }, …]
 */
export function loadSuite(path: string): Suite {
  const source = parseYamlSource(readFileSync(path, "utf8"), { filename: path });
  const parsed = SuiteSchema.safeParse(source.data);
  if (!parsed.success) {
    const issues = explainIssues(parsed.error, source.data, { schema: SuiteSchema }).map((i) => ({ message: i.message, location: source.locate(i.path, { key: i.key }) }));
    throw new RubricateError("SCHEMA", joinIssues(issues), { location: issues[0].location, issues });
  }
  const s = parsed.data;
  const dir = dirname(resolve(path));
  const models = Array.isArray(s.models) ? s.models.map((spec) => ({ alias: spec, spec })) : Object.entries(s.models).map(([alias, spec]) => ({ alias, spec }));
  const aliases = new Set(models.map((m) => m.alias));
  if (aliases.size !== models.length) throw new RubricateError("BAD_INPUT", "the same model is named twice", { location: source.locate(["models"]) });
  // A relative path spec is relative to the suite file; package names and URLs are left as written.
  const spec = (raw: string) => (/^\.{1,2}[/\\]/.test(raw) ? join(dir, raw) : raw);
  const environments = s.environments.map((e) =>
    typeof e === "string" ? { spec: spec(e), tasks: s.tasks, rollouts: s.rollouts, judge: s.judge } : { spec: spec(e.env), tasks: e.tasks ?? s.tasks, rollouts: e.rollouts ?? s.rollouts, judge: e.judge ?? s.judge },
  );
  return { name: s.suite, ...(s.description ? { description: s.description } : {}), models, environments, dir };
}

/** One environment's results in a suite. */
export interface SuiteEnvResult {
  /** `name@version` for a package, else the environment id (made unique within the suite). */
  label: string;
  env: Pick<Environment, "id" | "version" | "package">;
  records: RolloutRecord[];
  passThreshold: number;
}

/** One row of the combined table: an environment × a model. */
export interface SuiteRow {
  env: string;
  model: string;
  stats: ModelStats;
}

/** The rows of the combined table, environments in suite order, models in suite order. */
export function suiteRows(results: SuiteEnvResult[], models: string[]): SuiteRow[] {
  const rows: SuiteRow[] = [];
  for (const r of results) {
    const cmp = compareModels(r.records, { passThreshold: r.passThreshold });
    for (const model of models) {
      const stats = cmp.models.find((m) => m.model === model);
      if (stats) rows.push({ env: r.label, model, stats });
    }
  }
  return rows;
}


const rowColumns: Column<SuiteRow>[] = [
  { label: "environment", value: "env" },
  { label: "model", value: "model" },
  { label: "tasks", value: (r) => r.stats.tasks, numeric: true },
  { label: "rollouts", value: (r) => r.stats.rollouts, numeric: true },
  { label: "errors", value: (r) => r.stats.errors, numeric: true },
  { label: "mean reward [95% CI]", value: (r) => r.stats.reward?.mean, format: (_v, r) => formatInterval(r.stats.reward?.mean, r.stats.reward?.low, r.stats.reward?.high), numeric: true },
  { label: "pass rate", value: (r) => r.stats.passRate, format: (v) => formatPercent(v as number | undefined), numeric: true },
  { label: "cost", value: (r) => r.stats.usage.costUsd, format: (v) => formatUsd(v as number), numeric: true },
];

/** Where each environment came from: a line per environment (package, version, integrity). */
function provenance(results: SuiteEnvResult[]): string[] {
  return results.map((r) => (r.env.package ? describePackage(r.env.package) : `${r.label}: environment ${r.env.id} version ${r.env.version} (local file)`));
}

const modelsLine = (suite: Pick<Suite, "models">) => `models: ${suite.models.map((m) => (m.alias === m.spec ? m.spec : `${m.alias} = ${m.spec}`)).join(", ")}`;

/**
 * The suite's markdown summary: one table of every environment × model, then where each
 * environment came from.
 */
export function suiteMarkdown(suite: Pick<Suite, "name" | "models">, results: SuiteEnvResult[], subtitle?: string): string {
  const rows = suiteRows(results, suite.models.map((m) => m.alias));
  return mdJoin([mdHeading(`Suite: ${suite.name}`, 2), subtitle, markdownTable(rows, rowColumns), modelsLine(suite), mdHeading("Environments", 3), provenance(results).map((l) => `- ${l}`).join("\n")]);
}

/** The suite's HTML report: the combined table, then one comparison table per environment. */
export function suiteReportHtml(suite: Pick<Suite, "name" | "models" | "description">, results: SuiteEnvResult[], subtitle?: string): string {
  const models = suite.models.map((m) => m.alias);
  const sections: Section[] = [
    { title: "Results", id: "results", html: table(suiteRows(results, models), rowColumns) + paragraph(modelsLine(suite), "muted") + paragraph("Intervals: 95% bootstrap over tasks.", "muted") },
    { title: "Environments", id: "environments", html: `<ul>${provenance(results).map((l) => `<li>${escapeHtml(l)}</li>`).join("")}</ul>` },
  ];
  return htmlPage({ title: `Suite: ${suite.name}`, subtitle: subtitle ?? suite.description, sections });
}

/**
 * Labels for a suite's environments: name@version for packages, the id otherwise. Two that
 * collide (the same version from the registry and from git, two local copies) are told apart by
 * where they came from — the spec the suite names them by — and numbered only if that collides too.
 * @example envLabels([reg, git], ["@a/w@1.0.0", "git+file:///r/w.git"]) // ["@a/w@1.0.0 (@a/w@1.0.0)", "@a/w@1.0.0 (git+file:///r/w.git)"]
 */
export function envLabels(envs: Pick<Environment, "id" | "package">[], specs?: string[]): string[] {
  const base = envs.map((e) => (e.package ? packageLabel(e.package) : e.id));
  const unique = (labels: string[], i: number) => labels.indexOf(labels[i]) === i && labels.lastIndexOf(labels[i]) === i;
  const sourced = base.map((b, i) => (unique(base, i) || specs?.[i] === undefined ? b : `${b} (${specs[i]})`));
  return sourced.map((b, i) => (unique(sourced, i) ? b : `${b} #${sourced.slice(0, i + 1).filter((x) => x === b).length}`));
}

/** Options of `runSuite`. */
export interface RunSuiteOptions {
  engine: Engine;
  /** The suite's environments, loaded (resolve them all before running, so a bad spec costs nothing). */
  envs: Environment[];
  /** The judge for one environment (its rubric's, or the suite's `judge`), or none. */
  judgeFor: (env: Environment, ref: string | undefined) => Judge | undefined;
  /** Per-environment rollout files go here as `<label>.jsonl`. */
  outDir?: string;
  resume?: boolean;
  concurrency?: number;
  errors?: ErrorPolicy;
  signal?: AbortSignal;
  /** Pass threshold for every environment (default: each rubric's, else 1). */
  passThreshold?: number;
  /** Builds a policy from a model spec with the environment's sampling defaults (tests pass their own providers). */
  policy?: (spec: string, alias: string, env: Environment) => Policy;
  onRollout?: (label: string, record: RolloutRecord) => void;
}

/**
 * Runs every environment × every model of a suite on one engine (one cache, one scheduler per
 * model), environment after environment, each saving its rollouts as it goes.
 * @example const { results } = await runSuite(suite, { engine, envs, judgeFor: () => judge, outDir: "evals/nightly" })
 */
export async function runSuite(suite: Suite, options: RunSuiteOptions): Promise<{ results: SuiteEnvResult[]; interrupted: boolean }> {
  const labels = envLabels(options.envs, suite.environments.map((e) => e.spec));
  const makePolicy = options.policy ?? ((spec: string, alias: string, env: Environment) => createPolicy({ ...resolveModelArg(spec), id: alias }, { defaults: env.policy }));
  const results: SuiteEnvResult[] = [];
  let interrupted = false;
  for (let i = 0; i < options.envs.length; i++) {
    const env = options.envs[i];
    const entry = suite.environments[i];
    const label = labels[i];
    const out = options.outDir ? join(options.outDir, `${labelFile(label)}.jsonl`) : undefined;
    const res = await runEval(env, {
      policies: suite.models.map((m) => makePolicy(m.spec, m.alias, env)),
      engine: options.engine,
      judge: options.judgeFor(env, entry.judge),
      tasks: entry.tasks,
      rollouts: entry.rollouts,
      concurrency: options.concurrency,
      out,
      resume: options.resume,
      signal: options.signal,
      errors: options.errors,
      onRollout: (rec) => options.onRollout?.(label, rec),
    });
    results.push({ label, env, records: res.records, passThreshold: options.passThreshold ?? env.rubric.scoring.pass_threshold ?? 1 });
    if (res.interrupted) {
      interrupted = true;
      break;
    }
  }
  return { results, interrupted };
}
