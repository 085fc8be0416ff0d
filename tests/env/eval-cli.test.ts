import { cacheRows } from "../helpers/cache-db.js";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalGridTooLarge, MAX_EVAL_ROLLOUTS, readRollouts, runEval, tripleKey } from "../../src/env/eval.js";
import { loadEnvironment } from "../../src/env/load.js";
import { createPolicy } from "../../src/env/policy.js";
import { createEngine } from "../../src/engine/engine.js";
import type { RolloutRecord } from "../../src/env/types.js";
import { nextGuess } from "../../examples/wordle/solver.js";
import { spawnCli, tempDir, writeJudgeFile } from "../helpers/cli.js";
import { runCliInProcess } from "../helpers/cli-in-process.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { startWorld, type WireMessage } from "./world.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";

const SECRET = "sk-test-EVAL-1234567890";
const env = { RUBRICATE_TEST_KEY: SECRET };
const spawnEval = (args: string[]) => spawnCli(["eval", ...args], { env });
/** `eval` in this process (tests/helpers/cli-in-process.ts): only the SIGKILLed runs need a process of their own. */
const runEvalCli = (args: string[]) => runCliInProcess(["eval", ...args], { env });


const lines = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : []);

const guessFrom = (m: WireMessage[]) => `GUESS: ${nextGuess(m.filter((x) => x.role === "user").map((x) => x.content ?? ""))}`;
let server: TestServer<unknown>;
beforeAll(async () => {
  server = await startWorld(
    { solver: guessFrom, blunder: (m) => (m.filter((x) => x.role === "assistant").length === 0 ? "GUESS: zzzzz" : guessFrom(m)) },
    (_q, view) => !view.sample.includes("invalid"),
  );
  // Slow enough that the kill lands midway.
  server.setBehavior({ latencyMs: 15 });
});
afterAll(() => server.close());

describe("rubricate eval", () => {
  it("killed midway (SIGKILL) and resumed: no rollout repeated, none lost, finished ones not re-paid", async () => {
    const dir = tempDir("rubricate-eval-");
    const out = join(dir, "rollouts.jsonl");
    const report = join(dir, "report.html");
    const judge = writeJudgeFile(dir, server.url);
    const models = ["solver", "blunder"].flatMap((m) => ["--model", `openai-compatible:${m}@${server.url}`]);
    const cache = join(dir, "cache.db");
    const args = ["examples/wordle/env.yaml", ...models, "--rollouts", "2", "--judge", judge, "--out", out, "--cache", cache, "--concurrency", "2", "-q"];
    const total = 6 * 2 * 2;

    const child = spawnEval(args);
    const exited = new Promise((r) => child.on("close", r));
    while (lines(out).length < 6) await new Promise((r) => setTimeout(r, 10));
    child.kill("SIGKILL");
    await exited;
    const before = lines(out);
    expect(before.length).toBeGreaterThanOrEqual(6);
    expect(before.length).toBeLessThan(total);
    const requestsAtKill = server.stats.requests;
    const cachedAtKill = cacheRows(cache);
    expect(cachedAtKill).toBeGreaterThan(0);

    const resumed = await runEvalCli([...args, "--resume", "--report", report]);
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    const after = lines(out);
    // The lines written before the kill are kept as they were; the rest were added once each.
    expect(after.slice(0, before.length)).toEqual(before);
    const records = after.map((l) => JSON.parse(l) as RolloutRecord);
    expect(records).toHaveLength(total);
    expect(new Set(records.map(tripleKey)).size).toBe(total);
    // The resume paid exactly for the calls the killed run had not cached: nothing twice.
    const resumeRequests = server.stats.requests - requestsAtKill;
    expect(resumeRequests).toBe(cacheRows(cache) - cachedAtKill);
    expect(resumeRequests).toBeGreaterThan(0);
    // The markdown summary on stdout: both models over all 6 tasks × 2 rollouts, the solver always passing.
    expect(resumed.stdout).toMatch(/\| openai-compatible:solver@http:\/\/127\.0\.0\.1:\d+\/v1 \| 6 \| 12 \| 0 \| [\d.]+ \[[\d.]+, [\d.]+\] \| 100\.0% \|/);
    expect(resumed.stdout).toMatch(/\| openai-compatible:blunder@\S+ \| 6 \| 12 \| 0 \|/);
    expect(resumed.stdout).toMatch(/\| 6 \| [\d.]+ \[[\d.]+, [\d.]+\] \| [\d.]+ \| yes: A better \|/);
    expect(readFileSync(report, "utf8")).toMatch(/^<!DOCTYPE html>/);

    // A third run finds everything done: no call at all, the file unchanged.
    const idle = server.stats.requests;
    const third = await runEvalCli([...args, "--resume"]);
    expect(third.code).toBe(0);
    expect(server.stats.requests).toBe(idle);
    expect(lines(out)).toEqual(after);
    // The key went to the server only, never into the rollouts file or the report.
    expect(readFileSync(out, "utf8")).not.toContain(SECRET);
    expect(readFileSync(report, "utf8")).not.toContain(SECRET);
  });

  it("refuses to overwrite an existing rollouts file without --resume, and rejects a bad --model", async () => {
    const dir = tempDir("rubricate-eval-");
    const out = join(dir, "rollouts.jsonl");
    writeFileSync(out, "");
    const exists = await runEvalCli(["examples/wordle/env.yaml", "--model", `openai-compatible:solver@${server.url}`, "--out", out, "--no-cache", "-q"]);
    expect(exists.code).toBe(1);
    expect(exists.stderr).toMatch(/already exists: pass --resume/);
    const bad = await runEvalCli(["examples/wordle/env.yaml", "--model", "gpt-4.1-mini", "--out", join(dir, "x.jsonl"), "--no-cache", "-q"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/expected provider:model/);
  });
});

describe("rubricate eval: a cache it cannot open", () => {
  it("says so in one line and goes on (nothing said before: every paid call silently unkept)", async () => {
    const dir = tempDir("rubricate-eval-");
    const judge = writeJudgeFile(dir, server.url);
    const notAFolder = join(dir, "notes.txt");
    writeFileSync(notAFolder, "a file where the cache's folder should be\n");
    const r = await runEvalCli(["examples/wordle/env.yaml", "--model", `openai-compatible:solver@${server.url}`, "--tasks", "1", "--judge", judge, "--out", join(dir, "r.jsonl"), "--cache", join(notAFolder, "cache.db"), "-q"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`rubricate: warning: CACHE: cannot open cache ${join(notAFolder, "cache.db")}`);
    expect(r.stderr).toContain("running without a persistent cache");
  });
});

describe("a grid past MAX_EVAL_ROLLOUTS", () => {
  it("eval -k 1e11 exits 2 naming -k before any call, instead of building the whole grid in memory", async () => {
    const dir = tempDir("rubricate-eval-grid-");
    const out = join(dir, "r.jsonl");
    const before = server.stats.requests;
    const r = await runEvalCli(["examples/wordle/env.yaml", "--model", `openai-compatible:solver@${server.url}`, "-k", "100000000000", "--judge", writeJudgeFile(dir, server.url), "--out", out, "--no-cache", "-q"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`rubricate: -k/--rollouts 100000000000: 6 task(s) × 100000000000 rollout(s) × 1 model(s) is 600,000,000,000 rollouts, more than the ${MAX_EVAL_ROLLOUTS.toLocaleString("en-US")} one eval holds (its grid and every record stay in memory); lower -k or -n/--tasks, or split the models over several runs\n`);
    expect(server.stats.requests).toBe(before);
    expect(existsSync(out)).toBe(false);
    // At the limit it would run: the bound is on the product, not on -k alone.
    expect(evalGridTooLarge({ tasks: 1, rollouts: MAX_EVAL_ROLLOUTS, models: 1 })).toBeUndefined();
  });

  it("env filter -k past it exits 2 too; runEval itself refuses such a grid (suites, workers, library callers)", async () => {
    const dir = tempDir("rubricate-filter-grid-");
    writeFileSync(join(dir, "env.yaml"), "id: tiny\ndataset: tasks.jsonl\nrubric:\n  id: r\n  criteria:\n    - id: ok\n      check: { contains: yes }\n");
    writeFileSync(join(dir, "tasks.jsonl"), `${JSON.stringify({ id: "a", inputs: { prompt: "say yes" } })}\n`);
    const before = server.stats.requests;
    const r = await runCliInProcess(["env", "filter", join(dir, "env.yaml"), "-m", `openai-compatible:solver@${server.url}`, "-k", "300000", "--no-cache", "-q"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`rubricate: -k/--rollouts 300000: 1 task(s) × 300000 rollout(s) × 1 model(s) is 300,000 rollouts, more than the 200,000 one eval holds (its grid and every record stay in memory); lower -k\n`);
    expect(server.stats.requests).toBe(before);
    const loaded = await loadEnvironment(join(dir, "env.yaml"));
    await expect(runEval(loaded, { policies: [createPolicy(`openai-compatible:solver@${server.url}`)], engine: createEngine({ limits: { maxConcurrency: 1, maxRetries: 0, timeoutMs: 1_000 } }), rollouts: 300_000 })).rejects.toMatchObject({ code: "BAD_INPUT", message: expect.stringContaining("300,000 rollouts, more than the 200,000 one eval holds") });
  });
});

describe("readRollouts", () => {
  it("drops and cuts a torn last line; completes a last line missing its newline; rejects a bad middle line", () => {
    const dir = tempDir("rubricate-eval-");
    const path = join(dir, "r.jsonl");
    writeFileSync(path, '{"task":"a","model":"m","rollout":0}\n{"task":"b","mod');
    expect(readRollouts(path, { repair: true }).map((r) => r.task)).toEqual(["a"]);
    expect(readFileSync(path, "utf8")).toBe('{"task":"a","model":"m","rollout":0}\n');
    writeFileSync(path, '{"task":"a","model":"m","rollout":0}');
    readRollouts(path, { repair: true });
    expect(readFileSync(path, "utf8")).toBe('{"task":"a","model":"m","rollout":0}\n');
    writeFileSync(path, '{"task":"a"}\n{"task": b}\n{"task":"c"}\n');
    expect(() => readRollouts(path)).toThrow(`${path}:2:10: invalid rollout line: Unexpected token 'b'`);
  });
});

describe("rubricate eval: judge family", () => {
  it("warns when the judge and a policy are the same model family (self-preference), not for a different one", async () => {
    // Model names decide the family; the world answers a judge-shaped model with the judge responder.
    const asJudge = judgeResponder(() => true);
    const world = await startWorld({ "gpt-4o-solver": guessFrom, "qwen-solver": guessFrom, "gpt-4.1-judge": (_m, body) => asJudge(body) as string }, () => true);
    try {
      const dir = tempDir("rubricate-eval-family-");
      const judge = writeJudgeFile(dir, world.url, { model: "gpt-4.1-judge" });
      const run = (model: string, out: string) =>
        runEvalCli(["examples/wordle/env.yaml", "--model", `openai-compatible:${model}@${world.url}`, "--tasks", "1", "--judge", judge, "--out", join(dir, out), "--cache", join(dir, "cache.db"), "-q"]);
      const same = await run("gpt-4o-solver", "same.jsonl");
      expect(same.code).toBe(0);
      expect(same.stderr).toMatch(/warning: the judge \(gpt-4\.1-judge\) and the policy \(gpt-4o-solver\) are both OpenAI models/);
      const other = await run("qwen-solver", "other.jsonl");
      expect(other.code).toBe(0);
      expect(other.stderr).toBe("");
    } finally {
      await world.close();
    }
  }, 60_000);
});
