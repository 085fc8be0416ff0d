import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { register, runPolicy, type PolicyFlags } from "../../src/cli/commands/optimize.js";
import { parseRubric } from "../../src/rubric/load.js";
import { cliEntry, ROOT, tempDir, writeJudgeFile } from "../helpers/cli.js";
import { runCliInProcess } from "../helpers/cli-in-process.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import {
  BEST_QUESTION, HARMFUL, REFLECTOR_MODEL, RULES, labelsFixture, makeQuestionReflector, policyEnv, policyJudge, policyReflector, questionJudge,
  rubricFixture, startServer,
} from "../optimize/targets/world.js";

const ENV = { RUBRICATE_TEST_KEY: "test-key", NO_COLOR: "1" };

function spawnOptimize(args: string[]): ChildProcess {
  const child = spawn(process.execPath, [...cliEntry(), "optimize", ...args], { cwd: ROOT, env: { ...process.env, ...ENV }, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.setEncoding("utf8");
  child.stderr!.setEncoding("utf8");
  return child;
}

function finished(child: ChildProcess, onStderr?: (all: string) => void): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: string) => (stdout += d));
  child.stderr!.on("data", (d: string) => {
    stderr += d;
    onStderr?.(stderr);
  });
  return new Promise((done) => child.on("close", (code, signal) => done({ code, signal, stdout, stderr })));
}

/** `optimize` in this process (tests/helpers/cli-in-process.ts), for a run whose process is not what the test is about. */
const optimizeInProcess = (args: string[]) => runCliInProcess(["optimize", ...args], { env: ENV });
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;

function writeReflectorFile(dir: string, url: string): string {
  const path = join(dir, "reflector.yaml");
  writeFileSync(path, [`provider: openai-compatible`, `base_url: ${JSON.stringify(url)}`, `model: ${REFLECTOR_MODEL}`, `api_key_env: RUBRICATE_TEST_KEY`, `temperature: 1`, `max_tokens: 2000`].join("\n"));
  return path;
}

describe("rubricate optimize policy", () => {
  let server: TestServer<unknown>;
  let dir: string;
  let base: string[];
  beforeAll(async () => {
    // A little latency so the run lasts long enough to be killed in the middle.
    server = await startServer(policyJudge, policyReflector, { latencyMs: 8 });
    dir = tempDir("optimize-cli-");
    const env = join(dir, "env.yaml");
    writeFileSync(env, JSON.stringify(policyEnv(24)));
    base = [
      "policy", "--env", env, "--model", `openai-compatible:policy-model@${server.url}`, "--judge", writeJudgeFile(dir, server.url), "--reflector", writeReflectorFile(dir, server.url),
      "--budget", "250", "--seed", "0", "--target-score", "1",
    ];
  });
  afterAll(async () => server.close());

  const paths = (name: string) => ({ state: join(dir, name, "state.json"), cache: join(dir, name, "cache.db"), out: join(dir, name, "best.txt"), report: join(dir, name, "report.html") });
  const args = (p: ReturnType<typeof paths>) => [...base, "--state", p.state, "--cache", p.cache, "--out", p.out, "--report", p.report];

  it("a run killed with SIGKILL, or stopped with Ctrl-C, and resumed ends exactly like an uninterrupted one", async () => {
    const whole = paths("whole");
    const a = await optimizeInProcess(args(whole));
    expect(a.stderr).toMatch(/stopped: target_score/);
    expect(a.code).toBe(0);
    const best = readFileSync(whole.out, "utf8");
    for (const rule of RULES) expect(best).toContain(rule);
    expect(best).not.toContain(HARMFUL);
    expect(a.stdout).toBe(best);
    expect(a.stderr).toMatch(/^seed {4}mean 0\.\d{3}/m);
    expect(a.stderr).toMatch(/^iter 1 /m);

    const cut = paths("cut");
    const child = spawnOptimize(args(cut));
    const killed = await finished(child, (err) => {
      if (/^iter 3 /m.test(err) && child.exitCode === null && !child.killed) child.kill("SIGKILL");
    });
    expect(killed.signal).toBe("SIGKILL");
    expect(existsSync(cut.out)).toBe(false);
    const saved = readJson(cut.state);
    const final = readJson(whole.state);
    expect(saved.iteration).toBeGreaterThanOrEqual(3);
    expect(saved.iteration).toBeLessThan(final.iteration as number);

    const resumed = await optimizeInProcess([...args(cut), "--resume"]);
    expect(resumed.code).toBe(0);
    expect(readJson(cut.state)).toEqual(final);
    expect(readFileSync(cut.out, "utf8")).toBe(best);
    expect(resumed.stdout).toBe(a.stdout);
    // The resumed run did not start over: its first progress line is past the kill.
    expect(resumed.stderr).not.toMatch(/^seed /m);
    expect(resumed.stderr).not.toMatch(/^iter 1 /m);

    // Ctrl-C: the run stops (exit 130) with its state usable, and --resume finishes it the same way.
    const ctrlc = paths("ctrlc");
    const interrupted = spawnOptimize(args(ctrlc));
    const stopped = await finished(interrupted, (err) => {
      if (/^iter 2 /m.test(err) && interrupted.exitCode === null && !interrupted.killed) interrupted.kill("SIGINT");
    });
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/SIGINT: stopping/);
    expect((readJson(ctrlc.state).iteration as number) < (final.iteration as number)).toBe(true);
    expect((await optimizeInProcess([...args(ctrlc), "--resume"])).code).toBe(0);
    expect(readJson(ctrlc.state)).toEqual(final);

    const html = readFileSync(whole.report, "utf8");
    expect(html).toContain("<svg");
    expect(html).toContain('class="lineage"');
    expect(html).toContain(`<span class="add">+ ${RULES[1]}</span>`);
  }, 120_000);

  it("refuses to resume a state written with other options", async () => {
    const p = paths("other");
    const first = await optimizeInProcess([...args(p), "--max-iterations", "1"]);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/stopped: max_iterations/);
    const again = await optimizeInProcess([...args(p), "--resume", "--minibatch", "2"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/BAD_INPUT: .*belongs to a different run/);
  }, 60_000);

  it("stops cleanly when the stop file appears, with the seed as the best so far", async () => {
    const p = paths("stop");
    const stop = join(dir, "STOP");
    writeFileSync(stop, "");
    const r = await optimizeInProcess([...args(p), "--stop-file", stop]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/stopped: stop_file/);
    expect(r.stdout.trim()).toBe((policyEnv().harness as { system: string }).system);
  }, 60_000);
});

describe("rubricate optimize question", () => {
  let server: TestServer<unknown>;
  beforeAll(async () => {
    server = await startServer(questionJudge, makeQuestionReflector());
  });
  afterAll(async () => server.close());

  it("rewords the question against the labels and writes the rubric with it", async () => {
    const dir = tempDir("optimize-q-");
    const out = join(dir, "rubric.best.yaml");
    const r = await optimizeInProcess([
      "question", "--rubric", rubricFixture(), "--criterion", "cites-source", "--labels", labelsFixture(), "--judge", writeJudgeFile(dir, server.url),
      "--reflector", writeReflectorFile(dir, server.url), "--budget", "150", "--state", join(dir, "state.json"), "--cache", join(dir, "cache.db"), "--out", out,
      "--markdown", join(dir, "summary.md"),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`cites-source: ${BEST_QUESTION}\n`);
    expect(r.stderr).toMatch(/warning: 1 item\(s\) left out/);
    expect(r.stderr).toMatch(/mean validation score 1\.000/);
    const rubric = parseRubric(readFileSync(out, "utf8"), { filename: out });
    expect(rubric.criteria.map((c) => c.question)).toEqual([BEST_QUESTION, "Is the response under three sentences?"]);
    expect(readFileSync(out, "utf8")).toContain("# The experts count only a source named outright.");
    expect(readFileSync(join(dir, "summary.md"), "utf8")).toContain(`+ ${BEST_QUESTION}`);
  }, 60_000);

  it("stops after --max-reflections reflection calls, with greedy parents", async () => {
    const dir = tempDir("optimize-q-refl-");
    const r = await optimizeInProcess([
      "question", "--rubric", rubricFixture(), "--criterion", "cites-source", "--labels", labelsFixture(), "--judge", writeJudgeFile(dir, server.url),
      "--reflector", writeReflectorFile(dir, server.url), "--budget", "150", "--state", join(dir, "state.json"), "--cache", join(dir, "cache.db"),
      "--max-reflections", "1", "--selection", "current_best",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/1 reflections, stopped: reflection_budget/);
  }, 60_000);
});

describe("rubricate optimize: options", () => {
  async function parse(args: string[]): Promise<PolicyFlags> {
    let flags: PolicyFlags | undefined;
    const program = new Command("rubricate").exitOverride().configureOutput({ writeErr: () => {} });
    register(program);
    const policy = program.commands[0].commands.find((c) => c.name() === "policy")!;
    policy.action((f: PolicyFlags) => {
      flags = f;
    });
    await program.parseAsync(["node", "rubricate", "optimize", "policy", ...args]);
    return flags as PolicyFlags;
  }

  it("parses numbers and defaults", async () => {
    const f = await parse(["--env", "e.yaml", "--model", "openai:gpt-4.1-mini", "--reflector", "r.yaml", "--budget", "40", "--target-score", "0.9", "--patience", "5", "--no-cache"]);
    expect(f).toMatchObject({ budget: 40, targetScore: 0.9, patience: 5, cache: false, minibatch: 3, seed: 0, valFraction: 0.5, rollouts: 1, tolerance: 0 });
  });

  it("parses the parent selection and the reflection stops", async () => {
    const f = await parse(["--env", "e.yaml", "--model", "openai:x", "--reflector", "r.yaml", "--selection", "uniform", "--max-reflections", "3", "--max-reflection-cost", "0.25"]);
    expect(f).toMatchObject({ selection: "uniform", maxReflections: 3, maxReflectionCost: 0.25 });
    expect((await parse(["--env", "e.yaml", "--model", "openai:x", "--reflector", "r.yaml"])).selection).toBe("pareto");
    await expect(parse(["--env", "e.yaml", "--model", "openai:x", "--reflector", "r.yaml", "--selection", "best"])).rejects.toThrow(/pareto, current_best or uniform/);
  });

  it("refuses a missing reflector and a bad validation fraction", async () => {
    await expect(parse(["--env", "e.yaml", "--model", "openai:x"])).rejects.toThrow(/--reflector/);
    await expect(parse(["--env", "e.yaml", "--model", "openai:x", "--reflector", "r.yaml", "--val-fraction", "1"])).rejects.toThrow(/\(0, 1\)/);
  });

  it("refuses to start a policy run whose rubric asks questions when no judge is given", async () => {
    const dir = tempDir("optimize-nojudge-");
    const env = join(dir, "env.yaml");
    writeFileSync(env, JSON.stringify(policyEnv(4)));
    const flags = { env, model: "openai-compatible:m@http://127.0.0.1:9/v1", reflector: "r.yaml", cache: false, budget: 10, minibatch: 3, seed: 0, valFraction: 0.5, tolerance: 0, rollouts: 1 } as PolicyFlags;
    await expect(runPolicy(flags)).rejects.toMatchObject({ code: "NO_JUDGE" });
  });
});
