/**
 * The Evaluate button's runner: the operator's models file names the models a visitor may pick;
 * each eval is `rubricate eval <name>@<version> --model <spec> --queue <redis>` run as a child
 * process (the coordinator: `rubricate worker`s anywhere play the rollouts with their own keys),
 * one model after the other, and each model's result goes into the store as soon as its run ends,
 * so the leaderboard fills while the rest play. Progress is the rollouts written so far.
 *
 * The hub process never loads an environment itself (its hooks are the publisher's code), never
 * holds a model key (the models file names provider:model specs; keys are the workers'), and never
 * passes a visitor's token on.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import * as z from "zod";
import { parseConfig, readConfigText } from "../config/load.js";
import { RubricateError } from "../errors.js";
import { readRollouts } from "../env/eval.js";
import { buildHubResults } from "../hub/push.js";
import { HUB_EVAL_PREFIX } from "./leaderboard.js";
import type { EvalProgress, EvalRequest, EvalRunner } from "./evals.js";
import type { ResultStore } from "./store.js";

const ModelsFileSchema = z
  .object({
    /** Name shown to visitors → provider:model spec (no keys: those are the workers' environment variables). */
    models: z.record(z.string().regex(/^[\w.:@/-]+$/, "a model name is letters, digits and . _ : @ / -"), z.string().min(1)).refine((m) => Object.keys(m).length > 0, "name at least one model"),
    /** A judge file, relative to the models file. */
    judge: z.string().min(1).optional(),
    /** First n tasks of the environment (default: all). */
    tasks: z.number().int().positive().optional(),
    rollouts: z.number().int().positive().default(1),
  })
  .strict();

export type ModelsFile = z.output<typeof ModelsFileSchema> & { source: string };

/** Reads the operator's models file; problems are named by file:line:col. */
export function loadModelsFile(path: string): ModelsFile {
  const text = readConfigText(path, { what: "models file" });
  const { value: data } = parseConfig(text, ModelsFileSchema, { filename: path, code: "BAD_INPUT" });
  return { ...data, ...(data.judge ? { judge: resolve(dirname(path), data.judge) } : {}), source: path };
}

export interface QueueEvalOptions {
  models: ModelsFile;
  /** The Redis queue the workers take chunks from. */
  queue: string;
  store: ResultStore;
  /** The command that starts rubricate: [node, …args] (default: this process's own entry). */
  cli?: string[];
  /** Where each eval's rollouts are written (one JSONL per eval and model). */
  workDir: string;
  /** The folder the coordinator runs in (its .npmrc names the registries). */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  rubricateVersion: string;
  log?: (line: string) => void;
}

/** How many rollouts a JSONL file holds so far (complete lines). */
function linesIn(path: string): number {
  if (!existsSync(path)) return 0;
  const text = readFileSync(path, "utf8");
  return text.split("\n").filter((l) => l.trim()).length;
}

export class QueueEvalRunner implements EvalRunner {
  readonly models: string[];
  private readonly runs = new Map<string, EvalProgress & { outs: string[] }>();
  private readonly cli: string[];
  private readonly log: (line: string) => void;

  constructor(private readonly options: QueueEvalOptions) {
    this.models = Object.keys(options.models.models);
    this.cli = options.cli ?? [process.execPath, ...process.execArgv, process.argv[1]];
    this.log = options.log ?? (() => {});
    mkdirSync(options.workDir, { recursive: true });
  }

  busy(request: Pick<EvalRequest, "env" | "version">): string | undefined {
    const running = [...this.runs.values()].find((r) => r.env === request.env && r.version === request.version && (r.state === "queued" || r.state === "running"));
    return running ? `an eval of ${request.env}@${request.version} is under way (${running.id}); wait for it to finish` : undefined;
  }

  async start(request: EvalRequest): Promise<string> {
    const busy = this.busy(request);
    if (busy) throw new RubricateError("EVAL_BUSY", busy);
    const id = randomUUID();
    const per = this.options.models.tasks !== undefined ? this.options.models.tasks * this.options.models.rollouts : undefined;
    const outs = request.models.map((m, i) => join(this.options.workDir, `${id}-${i}-${m.replace(/[^\w.-]/g, "_")}.jsonl`));
    this.runs.set(id, { id, env: request.env, version: request.version, models: request.models, state: "queued", done: 0, total: per === undefined ? 0 : per * request.models.length, outs });
    this.log(`eval ${id}: ${request.env}@${request.version} on ${request.models.join(", ")}, asked by ${request.user}`);
    void this.play(id, request).catch((e: unknown) => this.fail(id, e));
    return id;
  }

  progress(id: string): EvalProgress | undefined {
    const run = this.runs.get(id);
    if (!run) return undefined;
    const { outs, ...progress } = run;
    const done = run.state === "running" ? outs.reduce((n, f) => n + linesIn(f), 0) : run.done;
    return { ...progress, done, total: Math.max(run.total, done) };
  }

  private fail(id: string, e: unknown): void {
    const run = this.runs.get(id)!;
    run.state = "failed";
    run.error = e instanceof Error ? e.message : String(e);
    this.log(`eval ${id} failed: ${run.error}`);
  }

  /** Each model in turn: its coordinator on the queue, then its result into the store. */
  private async play(id: string, request: EvalRequest): Promise<void> {
    const run = this.runs.get(id)!;
    run.state = "running";
    const { models, judge, tasks, rollouts } = this.options.models;
    for (const [i, name] of request.models.entries()) {
      const out = run.outs[i];
      const args = ["eval", `${request.env}@${request.version}`, "--model", models[name], "--queue", this.options.queue, "--out", out, "-q", "--rollouts", String(rollouts)];
      if (judge) args.push("--judge", judge);
      if (tasks !== undefined) args.push("--tasks", String(tasks));
      const code = await this.coordinator(args);
      // 0: every rollout scored; 3: some without a reward (their errors are counted in the result).
      if (code.code !== 0 && code.code !== 3) throw new Error(`the eval of ${name} ended with code ${code.code}: ${code.stderr.trim().split("\n").at(-1) ?? ""}`);
      const records = readRollouts(out);
      if (records.length === 0) throw new Error(`the eval of ${name} wrote no rollout`);
      const pkg = records[0].envPackage;
      if (request.integrity && pkg?.integrity !== request.integrity) {
        throw new Error(`the eval of ${name} ran on ${pkg?.name}@${pkg?.version} with integrity ${pkg?.integrity ?? "none"}, not the registry's ${request.integrity}: its result is not stored`);
      }
      if (run.total === 0) run.total = records.length * request.models.length;
      // The same result `eval --push` builds, named as the operator named the model, on the registry's version.
      const [built] = buildHubResults(records, { judge: judge ? dirnameless(judge) : undefined });
      const env = { name: request.env, version: request.version, ...(request.integrity ? { integrity: request.integrity } : {}) };
      this.options.store.add({ ...built, env, model: name, rubricateVersion: this.options.rubricateVersion }, `${HUB_EVAL_PREFIX}${request.user}`);
      run.done += records.length;
    }
    run.done = run.outs.reduce((n, f) => n + linesIn(f), 0);
    run.state = "done";
    this.log(`eval ${id} done`);
  }

  private coordinator(args: string[]): Promise<{ code: number | null; stderr: string }> {
    return new Promise((done, fail) => {
      const [cmd, ...pre] = this.cli;
      const child = spawn(cmd, [...pre, ...args], { cwd: this.options.cwd ?? process.cwd(), env: { ...process.env, ...this.options.env }, stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-4000)));
      child.on("error", fail);
      child.on("close", (code) => done({ code, stderr }));
    });
  }
}

const dirnameless = (path: string) => path.split(/[\\/]/).at(-1)!;
