/**
 * The Evaluate runner without a queue, its coordinators node one-liners: one eval per version at a
 * time (a visitor cannot queue the same paid work again and again), a coordinator that fails is
 * reported, not hidden, and an eval outlives a restart of the hub (its record is in the store).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RolloutRecord } from "../../src/env/types.js";
import { buildHubResults } from "../../src/hub/push.js";
import { rolloutRecord } from "../helpers/rollout-record.js";
import { needs } from "../helpers/system.js";
import { loadModelsFile, QueueEvalRunner } from "../../src/site/queue-evals.js";
import { ResultStore, type StoredEval } from "../../src/site/store.js";

const work = mkdtempSync(join(tmpdir(), "rubricate-eval-runner-"));
writeFileSync(join(work, "models.yaml"), "models:\n  mini: openai:gpt-4.1-mini\ntasks: 2\n");
const store = new ResultStore(":memory:");
afterAll(() => {
  store.close();
  rmSync(work, { recursive: true, force: true });
});

/** A runner whose "coordinator" is a node one-liner (`script`) instead of `rubricate eval`. */
const runnerWith = (script: string) =>
  new QueueEvalRunner({ models: loadModelsFile(join(work, "models.yaml")), queue: "redis://127.0.0.1:1/0", store, cli: [process.execPath, "-e", script, "--"], workDir: join(work, "evals"), rubricateVersion: "0.1.0" });

const request = { env: "@acme/times-env", version: "1.0.0", integrity: "sha512-x", models: ["mini"], registry: "http://127.0.0.1:1/", user: "alice" };

describe("QueueEvalRunner", () => {
  it("refuses a second eval of a version while one is under way, and takes another version", async () => {
    const runner = runnerWith("setTimeout(() => {}, 3000)");
    const id = await runner.start(request);
    expect(runner.progress(id)).toMatchObject({ state: "running", done: 0, total: 2, models: ["mini"] });
    expect(runner.busy(request)).toContain(id);
    await expect(runner.start(request)).rejects.toMatchObject({ code: "EVAL_BUSY" });
    expect(runner.busy({ env: request.env, version: "1.1.0" })).toBeUndefined();
  });

  it("a coordinator that exits non-zero fails the eval with its last line, and frees the version", async () => {
    const runner = runnerWith('process.stderr.write("rubricate: PACKAGE_NOT_FOUND: no such version\\n"); process.exit(1)');
    const id = await runner.start(request);
    await expect.poll(() => runner.progress(id)?.state, { timeout: 10_000 }).toBe("failed");
    expect(runner.progress(id)?.error).toBe("the eval of mini ended with code 1: rubricate: PACKAGE_NOT_FOUND: no such version");
    expect(runner.busy(request)).toBeUndefined();
    expect(store.forEnv(request.env)).toEqual([]);
  });
});

/** A rollout line as `rubricate eval` writes it, for the version the requests name. */
const rollout = (model: string, task: number): RolloutRecord =>
  rolloutRecord({ model, task: String(task), envVersion: request.version, envPackage: { name: request.env, version: request.version, integrity: request.integrity } });

/**
 * A coordinator that logs its arguments (one JSON line in `log`) and writes the two rollouts of
 * its model that its --out file lacks, as `eval --resume` would.
 */
const writingCoordinator = (log: string) => `
  const fs = require("node:fs");
  const args = process.argv.slice(1);
  fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(args) + "\\n");
  const out = args[args.indexOf("--out") + 1];
  const model = args[args.indexOf("--model") + 1];
  const have = fs.existsSync(out) ? fs.readFileSync(out, "utf8").split("\\n").filter(Boolean).length : 0;
  const line = (task) => JSON.stringify(Object.assign(${JSON.stringify(rollout("MODEL", 0))}, { model, task: String(task) }));
  for (let task = have; task < 2; task++) fs.appendFileSync(out, line(task) + "\\n");
`;

describe("QueueEvalRunner across restarts", () => {
  const models = join(work, "two-models.yaml");
  writeFileSync(models, "models:\n  mini: openai:gpt-4.1-mini\n  big: openai:gpt-4.1\ntasks: 2\n");
  const twoModels = { ...request, models: ["mini", "big"] };
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });

  /** A runner on `store` whose coordinators write their rollouts and log their arguments. */
  const restartedRunner = (store: ResultStore, log: string, workDir: string) =>
    new QueueEvalRunner({ models: loadModelsFile(models), queue: "redis://127.0.0.1:1/0", store, cli: [process.execPath, "-e", writingCoordinator(log), "--"], workDir, rubricateVersion: "0.1.0" });

  /**
   * A long-running process with `args` on its command line, standing in for a coordinator a stopped
   * hub left behind; resolves once /proc shows its own command line (before its exec, a child
   * shows its parent's).
   */
  const lingering = async (args: string[]) => {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", "--", ...args], { stdio: "ignore" });
    children.push(child);
    await expect.poll(() => (existsSync(`/proc/${child.pid}/cmdline`) ? readFileSync(`/proc/${child.pid}/cmdline`, "utf8") : ""), { timeout: 10_000 }).toContain("setInterval");
    return child;
  };

  /** What a hub stopped during model `big` leaves: `mini` stored, one rollout of `big` written, its coordinator's pid. */
  function stoppedMidEval(dir: string, pid: number): { store: ResultStore; record: StoredEval } {
    mkdirSync(join(dir, "evals"), { recursive: true });
    const store = new ResultStore(join(dir, "hub.db"));
    const outs = [join(dir, "evals", "e1-0-mini.jsonl"), join(dir, "evals", "e1-1-big.jsonl")];
    writeFileSync(outs[0], `${JSON.stringify(rollout("openai:gpt-4.1-mini", 0))}\n${JSON.stringify(rollout("openai:gpt-4.1-mini", 1))}\n`);
    writeFileSync(outs[1], `${JSON.stringify(rollout("openai:gpt-4.1", 0))}\n`);
    const [mini] = buildHubResults([rollout("openai:gpt-4.1-mini", 0), rollout("openai:gpt-4.1-mini", 1)]);
    store.add({ ...mini, env: { name: request.env, version: request.version, integrity: request.integrity }, model: "mini", rubricateVersion: "0.1.0" }, "hub-eval:alice");
    const record: StoredEval = { id: "e1", env: request.env, version: request.version, models: twoModels.models, state: "running", done: 3, total: 4, request: twoModels, outs, stored: 1, pid };
    store.saveEval(record);
    return { store, record };
  }

  it("keeps each eval's record in the store as it goes; a new runner on the store answers its progress", async () => {
    const dir = mkdtempSync(join(work, "kept-"));
    const store = new ResultStore(join(dir, "hub.db"));
    const runner = restartedRunner(store, join(dir, "args.log"), join(dir, "evals"));
    const id = await runner.start(twoModels);
    expect(store.evalRecord(id)).toMatchObject({ id, models: ["mini", "big"], stored: 0, request: { user: "alice" } });
    await expect.poll(() => runner.progress(id)?.state, { timeout: 10_000 }).not.toBe("running");
    expect(runner.progress(id)?.error).toBeUndefined();
    const record = store.evalRecord(id)!;
    expect(record).toMatchObject({ state: "done", stored: 2, done: 4, total: 4 });
    expect(record.pid).toBeUndefined();
    expect(store.unfinishedEvals()).toEqual([]);
    expect(store.forEnv(request.env).map((r) => r.result.model)).toEqual(["mini", "big"]);
    // After a restart the visitor's progress page still finds the eval.
    expect(restartedRunner(store, join(dir, "args.log"), join(dir, "evals")).progress(id)).toMatchObject({ id, state: "done", done: 4, total: 4 });
    store.close();
  });

  // The runner tells a coordinator it left behind by its command line in /proc.
  const procfs = needs("procfs", () => existsSync("/proc/self/cmdline"), "a Linux kernel (/proc)");
  procfs.describe("with /proc", () => {
    it("a hub restarted mid-eval stops the coordinator the old one left, and goes on from the model without a result, continuing its file", async () => {
      const dir = mkdtempSync(join(work, "restart-"));
      const orphan = await lingering(["eval", "--out", join(dir, "evals", "e1-1-big.jsonl")]);
      const { store, record } = stoppedMidEval(dir, orphan.pid!);
      const log = join(dir, "args.log");
      const runner = restartedRunner(store, log, join(dir, "evals"));
      expect(runner.resume()).toEqual(["e1"]);
      expect(runner.busy(request)).toContain("e1");
      await once(orphan, "exit");
      expect(orphan.signalCode).toBe("SIGTERM");
      await expect.poll(() => runner.progress("e1")?.state, { timeout: 10_000 }).toBe("done");
      // One coordinator, for `big` only, on the same file, told to continue it.
      const runs = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as string[]);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toEqual(expect.arrayContaining(["--model", "openai:gpt-4.1", "--out", record.outs[1], "--resume"]));
      expect(readFileSync(record.outs[1], "utf8").trim().split("\n")).toHaveLength(2);
      expect(store.forEnv(request.env).map((r) => r.result.model)).toEqual(["mini", "big"]);
      expect(runner.progress("e1")).toMatchObject({ state: "done", done: 4, total: 4 });
      expect(store.evalRecord("e1")).toMatchObject({ state: "done", stored: 2 });
      store.close();
    });

    it("a pid now held by another program is left alone", async () => {
      const dir = mkdtempSync(join(work, "reused-"));
      const stranger = await lingering(["serve", "--port", "0"]);
      const { store } = stoppedMidEval(dir, stranger.pid!);
      const runner = restartedRunner(store, join(dir, "args.log"), join(dir, "evals"));
      expect(runner.resume()).toEqual(["e1"]);
      await expect.poll(() => runner.progress("e1")?.state, { timeout: 10_000 }).toBe("done");
      expect(stranger.exitCode).toBeNull();
      expect(stranger.signalCode).toBeNull();
      expect(existsSync(join(dir, "args.log"))).toBe(true);
      store.close();
    });
  });
});
