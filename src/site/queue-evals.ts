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
import { setTimeout as sleep } from "node:timers/promises";
import { dirname, join, resolve } from "node:path";
import * as z from "zod";
import { parseConfig, readConfigText } from "../config/load.js";
import { RubricateError } from "../errors.js";
import { readRollouts } from "../env/eval.js";
import { buildHubResults } from "../hub/push.js";
import { HUB_EVAL_PREFIX } from "./leaderboard.js";
import type { EvalProgress, EvalRequest, EvalRunner } from "./evals.js";
import type { ResultStore, StoredEval } from "./store.js";

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

/** How long a coordinator left by a stopped hub gets to end on SIGTERM before SIGKILL. */
const ORPHAN_GRACE_MS = 30_000;

/** True while a process of this user has `pid` (a zombie counts until it is reaped). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A process's command line, "" when it has ended, undefined where this system cannot tell (no
 * /proc): the only way to know a pid still belongs to the coordinator it was given to.
 */
function commandLineOf(pid: number): string | undefined {
  if (!existsSync("/proc/self/cmdline")) return undefined;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}

/** How many rollouts a JSONL file holds so far (complete lines). */
function linesIn(path: string): number {
  if (!existsSync(path)) return 0;
  const text = readFileSync(path, "utf8");
  return text.split("\n").filter((l) => l.trim()).length;
}

export class QueueEvalRunner implements EvalRunner {
  readonly models: string[];
  /** The evals this process runs or ran; each change is written to the store as well. */
  private readonly runs = new Map<string, StoredEval>();
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
    const run: StoredEval = { id, env: request.env, version: request.version, models: request.models, state: "queued", done: 0, total: per === undefined ? 0 : per * request.models.length, request, outs, stored: 0 };
    this.runs.set(id, run);
    this.save(run);
    this.log(`eval ${id}: ${request.env}@${request.version} on ${request.models.join(", ")}, asked by ${request.user}`);
    void this.play(id, request).catch((e: unknown) => this.fail(id, e));
    return id;
  }

  /**
   * Takes up the evals a stopped hub left queued or running (the store keeps every eval's record).
   * A coordinator of theirs that still runs is stopped first (SIGTERM, as Ctrl-C: what it wrote
   * stays); each eval then goes on from its first model without a stored result, its coordinator
   * continuing that model's output file (`--resume`), so no rollout written is played again.
   * `hub serve` calls it at start. Returns the ids taken up.
   */
  resume(): string[] {
    const ids: string[] = [];
    for (const run of this.options.store.unfinishedEvals()) {
      if (this.runs.has(run.id)) continue;
      this.runs.set(run.id, run);
      ids.push(run.id);
      this.log(`eval ${run.id}: taken up again after a restart (${run.env}@${run.version}, ${run.stored} of ${run.models.length} models stored)`);
      void this.stopOrphan(run)
        .then(() => this.play(run.id, run.request))
        .catch((e: unknown) => this.fail(run.id, e));
    }
    return ids;
  }

  progress(id: string): EvalProgress | undefined {
    const run = this.runs.get(id) ?? this.options.store.evalRecord(id);
    if (!run) return undefined;
    const { outs, request: _request, stored: _stored, pid: _pid, ...progress } = run;
    const done = run.state === "running" ? outs.reduce((n, f) => n + linesIn(f), 0) : run.done;
    return { ...progress, done, total: Math.max(run.total, done) };
  }

  /** Records the eval's state in the store; a store that fails is logged, and the eval goes on. */
  private save(run: StoredEval): void {
    try {
      this.options.store.saveEval(run);
    } catch (e) {
      this.log(`eval ${run.id}: its record could not be written (${e instanceof Error ? e.message : String(e)}); a restart would not find it`);
    }
  }

  private fail(id: string, e: unknown): void {
    const run = this.runs.get(id)!;
    run.state = "failed";
    run.error = e instanceof Error ? e.message : String(e);
    delete run.pid;
    this.save(run);
    this.log(`eval ${id} failed: ${run.error}`);
  }

  /**
   * Stops the coordinator a stopped hub left running for this eval, if it still runs: it would
   * write the output file the eval goes on with. A pid now held by another program is left alone;
   * where the system cannot tell (no /proc), the eval fails rather than risk two writers.
   */
  private async stopOrphan(run: StoredEval): Promise<void> {
    const pid = run.pid;
    if (pid === undefined || !alive(pid)) return;
    const commandLine = commandLineOf(pid);
    if (commandLine === undefined) throw new Error(`the hub stopped while this eval's coordinator (pid ${pid}) ran, and this system cannot tell whether that process is still it: evaluate again once it has ended`);
    if (!commandLine.includes(run.outs[run.stored])) return;
    this.log(`eval ${run.id}: stopping the coordinator the last hub left running (pid ${pid})`);
    process.kill(pid, "SIGTERM");
    for (let waited = 0; alive(pid); waited += 100) {
      if (waited === ORPHAN_GRACE_MS) process.kill(pid, "SIGKILL");
      await sleep(100);
    }
  }

  /** Each model in turn from the first without a stored result: its coordinator on the queue, then its result into the store. */
  private async play(id: string, request: EvalRequest): Promise<void> {
    const run = this.runs.get(id)!;
    run.state = "running";
    this.save(run);
    const { models, judge, tasks, rollouts } = this.options.models;
    for (let i = run.stored; i < request.models.length; i++) {
      const name = request.models[i];
      const out = run.outs[i];
      const args = ["eval", `${request.env}@${request.version}`, "--model", models[name], "--queue", this.options.queue, "--out", out, "-q", "--rollouts", String(rollouts)];
      // A file there is this eval's own, left by a hub that stopped: continued, not played again.
      if (existsSync(out)) args.push("--resume");
      if (judge) args.push("--judge", judge);
      if (tasks !== undefined) args.push("--tasks", String(tasks));
      const code = await this.coordinator(args, run);
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
      // The result and the record counting it go in together (not through `save`, which logs a
      // failure and goes on): a store that refuses them fails the eval with nothing half-written.
      const counted = { ...run, done: run.done + records.length, stored: i + 1 };
      this.options.store.addEvalResult({ ...built, env, model: name, rubricateVersion: this.options.rubricateVersion }, `${HUB_EVAL_PREFIX}${request.user}`, counted);
      run.done = counted.done;
      run.stored = counted.stored;
    }
    run.done = run.outs.reduce((n, f) => n + linesIn(f), 0);
    run.state = "done";
    this.save(run);
    this.log(`eval ${id} done`);
  }

  /** Runs one coordinator to its end; its pid is in the eval's record while it runs. */
  private coordinator(args: string[], run: StoredEval): Promise<{ code: number | null; stderr: string }> {
    return new Promise((done, fail) => {
      const [cmd, ...pre] = this.cli;
      const child = spawn(cmd, [...pre, ...args], { cwd: this.options.cwd ?? process.cwd(), env: { ...process.env, ...this.options.env }, stdio: ["ignore", "ignore", "pipe"] });
      if (child.pid !== undefined) {
        run.pid = child.pid;
        this.save(run);
      }
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-4000)));
      child.on("error", fail);
      child.on("close", (code) => {
        delete run.pid;
        done({ code, stderr });
      });
    });
  }
}

const dirnameless = (path: string) => path.split(/[\\/]/).at(-1)!;
