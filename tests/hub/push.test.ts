/**
 * `eval --push`, `suite --push` and `hub push` against a stand-in hub: a small HTTP server here that
 * validates every body with the shared `HubResultSchema` (the real hub is `hub serve`). The policy
 * and judge are the local wire-format server of tests/env/world.ts: nothing leaves loopback.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextGuess } from "../../examples/wordle/solver.js";
import { HubResultSchema, type HubResult } from "../../src/hub/results.js";
import { startStandInHub, type StandInHub } from "../helpers/hub-standin.js";
import { buildHubResults, readPushFile } from "../../src/hub/push.js";
import { inconsistencies } from "../../src/site/consistency.js";
import { defaultEvalOut, labelFile } from "../../src/hub/suite.js";
import type { RolloutRecord } from "../../src/env/types.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { ROOT, runCli, tempDir, writeJudgeFile } from "../helpers/cli.js";
import { runCliInProcess } from "../helpers/cli-in-process.js";
import { rolloutRecord } from "../helpers/rollout-record.js";
import { startWorld, type WireMessage } from "../env/world.js";

const KEY = "sk-test-PUSH-1234567890";
const HUB_TOKEN = "hub-token-SECRET-42";
const WORDLE = join(ROOT, "examples", "wordle", "env.yaml");

const guessFrom = (m: WireMessage[]) => `GUESS: ${nextGuess(m.filter((x) => x.role === "user").map((x) => x.content ?? ""))}`;
const readJsonl = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as RolloutRecord);

describe("pushing results to a hub", () => {
  let world: TestServer<unknown>;
  let hub: StandInHub;
  let judge: string;
  let solver: string;
  let blunder: string;
  const keys = { RUBRICATE_TEST_KEY: KEY, RUBRICATE_HUB_TOKEN: HUB_TOKEN };
  // In this process: what these tests read is what the commands write, print and exit with.
  const run = (args: string[], cwd: string, env: Record<string, string> = {}) => runCliInProcess(args, { cwd, env: { ...keys, ...env } });
  /** A real `rubricate` process, for the one test that is about the process: its exit code and its one line on standard error. */
  const spawned = (args: string[], cwd: string) => runCli(args, { cwd, env: keys });

  beforeAll(async () => {
    world = await startWorld({ solver: guessFrom, blunder: (m) => (m.filter((x) => x.role === "assistant").length === 0 ? "GUESS: zzzzz" : guessFrom(m)) }, () => true);
    hub = await startStandInHub();
    judge = writeJudgeFile(tempDir("rubricate-push-judge-"), world.url);
    solver = `openai-compatible:solver@${world.url}`;
    blunder = `openai-compatible:blunder@${world.url}`;
  });
  afterAll(async () => {
    await world.close();
    await hub.close();
  });

  it("eval --push sends one schema-valid result per model with the environment's name and version, step, series, per-task means and the bearer token", async () => {
    const cwd = tempDir("rubricate-push-");
    hub.received.length = 0;
    hub.refuse = false;
    const r = await run(["eval", WORDLE, "-m", solver, "-m", blunder, "-n", "2", "--judge", judge, "--no-cache", "--push", hub.url, "--step", "300", "--series", "run-7"], cwd);
    expect(r.stderr).toContain(`pushed ${solver} on @rubricate/wordle-env@1.0.0 to ${hub.url}: ${hub.url}/envs/@rubricate/wordle-env`);
    expect(r.code).toBe(0);
    expect(hub.received.map((x) => x.body.model).sort()).toEqual([blunder, solver].sort());
    const records = readJsonl(join(cwd, ".rubricate", "evals", "@rubricate+wordle-env@1.0.0", readdirSync(join(cwd, ".rubricate", "evals", "@rubricate+wordle-env@1.0.0"))[0]));
    for (const { body, auth } of hub.received) {
      expect(auth).toBe(`Bearer ${HUB_TOKEN}`);
      expect(body.env).toEqual({ name: "@rubricate/wordle-env", version: "1.0.0" });
      expect(body).toMatchObject({ step: 300, series: "run-7", judge: expect.any(String) });
      expect(body.stats.tasks).toBe(2);
      expect(body.stats.rollouts).toBe(2);
      // The per-task means are the rollouts' own rewards (one rollout a task here).
      const own = records.filter((x) => x.model === body.model);
      expect(body.stats.perTask).toEqual(Object.fromEntries(own.map((x) => [x.task, x.reward])));
      expect(body.rollouts).toHaveLength(2);
    }
    const solverResult = hub.received.find((x) => x.body.model === solver)!.body;
    const blunderResult = hub.received.find((x) => x.body.model === blunder)!.body;
    // The two models' results differ where their play did: the blunder's first guess fails a criterion the solver meets.
    expect(solverResult.stats.reward!.mean).toBeGreaterThanOrEqual(blunderResult.stats.reward!.mean);
    expect(solverResult.stats.criteria.map((c) => c.id)).toEqual(records[0].verdicts.map((v) => v.id));
  });

  it("a hub that refuses: the eval's rollouts stay, the results are kept in <out>.hub.json (no token in it), one clear line, exit non-zero; `hub push` re-sends them", async () => {
    const cwd = tempDir("rubricate-push-");
    hub.received.length = 0;
    hub.refuse = true;
    const r = await run(["eval", WORDLE, "-m", solver, "-n", "1", "--judge", judge, "--no-cache", "-q", "--out", "runs/a.jsonl", "--push", hub.url], cwd);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^rubricate: HUB_REFUSED: the hub refused .* \(HTTP 422: INTEGRITY_MISMATCH: env\.integrity differs .*\); 1 result\(s\) kept in runs\/a\.hub\.json: `rubricate hub push runs\/a\.hub\.json --hub http:\/\/127\.0\.0\.1:\d+` sends them again/);
    expect(readJsonl(join(cwd, "runs", "a.jsonl"))).toHaveLength(1);
    const pendingText = readFileSync(join(cwd, "runs", "a.hub.json"), "utf8");
    expect(pendingText).not.toContain(HUB_TOKEN);
    const pending = JSON.parse(pendingText) as HubResult[];
    expect(pending.map((p) => HubResultSchema.parse(p).model)).toEqual([solver]);

    hub.refuse = false;
    const again = await run(["hub", "push", "runs/a.hub.json", "--hub", hub.url], cwd);
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(hub.received.map((x) => x.body)).toEqual(pending);
    // Sent: the file no longer holds anything to send, so a second resend sends nothing twice.
    expect(JSON.parse(readFileSync(join(cwd, "runs", "a.hub.json"), "utf8"))).toEqual([]);
  });

  it("a hub that is down: HUB_DOWN in one line, exit non-zero, nothing lost", async () => {
    const cwd = tempDir("rubricate-push-");
    const down = await startStandInHub();
    await down.close();
    const r = await spawned(["eval", WORDLE, "-m", solver, "-n", "1", "--judge", judge, "--no-cache", "-q", "--out", "a.jsonl", "--push", down.url], cwd);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^rubricate: HUB_DOWN: cannot reach the hub at http:\/\/127\.0\.0\.1:\d+\/api\/results \(ECONNREFUSED\); 1 result\(s\) kept in a\.hub\.json/);
    expect(existsSync(join(cwd, "a.jsonl"))).toBe(true);
    expect(JSON.parse(readFileSync(join(cwd, "a.hub.json"), "utf8"))).toHaveLength(1);
  });

  it("hub push <rollouts.jsonl> builds the results from an eval's rollouts, with --step and --series", async () => {
    const cwd = tempDir("rubricate-push-");
    const made = await run(["eval", WORDLE, "-m", solver, "-n", "2", "--judge", judge, "--no-cache", "-q", "--out", "a.jsonl"], cwd);
    expect(made.code).toBe(0);
    hub.received.length = 0;
    hub.refuse = false;
    const r = await run(["hub", "push", "a.jsonl", "--step", "5", "--series", "s"], cwd, { RUBRICATE_HUB: hub.url });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(hub.received).toHaveLength(1);
    expect(hub.received[0].body).toMatchObject({ model: solver, step: 5, series: "s", env: { name: "@rubricate/wordle-env", version: "1.0.0" } });
  });

  it("the same eval with another model writes its own default file instead of refusing (\"already exists\" before)", async () => {
    const cwd = tempDir("rubricate-push-");
    const first = await run(["eval", WORDLE, "-m", solver, "-n", "1", "--judge", judge, "--no-cache", "-q"], cwd);
    expect(first.code, first.stderr).toBe(0);
    const second = await run(["eval", WORDLE, "-m", blunder, "-n", "1", "--judge", judge, "--no-cache", "-q"], cwd);
    expect(second.code, second.stderr).toBe(0);
    const folder = join(cwd, ".rubricate", "evals", "@rubricate+wordle-env@1.0.0");
    expect(readdirSync(folder).sort()).toEqual([`${labelFile(blunder)}.jsonl`, `${labelFile(solver)}.jsonl`].sort());
    expect(readJsonl(join(cwd, defaultEvalOut("@rubricate/wordle-env@1.0.0", [blunder])))[0].model).toBe(blunder);
    // The same model again is still refused: that file is someone's paid-for work.
    const again = await run(["eval", WORDLE, "-m", solver, "-n", "1", "--judge", judge, "--no-cache", "-q"], cwd);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists: pass --resume/);
  });

  it("--step without --push is refused before any call", async () => {
    const cwd = tempDir("rubricate-push-");
    const calls = world.stats.requests;
    const r = await run(["eval", WORDLE, "-m", solver, "--judge", judge, "--step", "3"], cwd);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("--step and --series label results for a hub: pass --push <hub> too");
    expect(world.stats.requests).toBe(calls);
  });
});

describe("buildHubResults / readPushFile", () => {
  const record = (model: string, task: string, reward: number | null, integrity = "sha512-abc"): RolloutRecord =>
    rolloutRecord({ model, task, reward, envPackage: { name: "@acme/times-env", version: "0.1.0", integrity } });

  it("carries the package's integrity, costs and errors per model", () => {
    const [a] = buildHubResults([record("m", "1", 1), record("m", "2", 0), record("m", "3", null)], { judge: "j" });
    expect(a.env).toEqual({ name: "@acme/times-env", version: "0.1.0", integrity: "sha512-abc" });
    expect(a.stats).toMatchObject({ rollouts: 3, scored: 2, errors: 1, perTask: { "1": 1, "2": 0 } });
    expect(a.stats.costUsd).toBeCloseTo(0.009, 10);
    expect(a.stats.criteria).toEqual([{ id: "correct", answered: 3, ok: 1, rate: 1 / 3 }]);
  });

  it("without a threshold, passes rollouts as the eval marked them (a rubric with pass_threshold 0.5), not by reward 1", () => {
    const marked = (task: string, reward: number) => ({ ...record("m", task, reward), passed: reward >= 0.5 });
    const [a] = buildHubResults([marked("1", 0.6), marked("2", 0.4), marked("3", 1)]);
    expect(a.stats.passRate).toBeCloseTo(2 / 3, 10);
    expect(a.stats.passAtK["1"]).toBeCloseTo(2 / 3, 10);
  });

  it("what it builds is what the hub's consistency check accepts (the two sides of one contract)", () => {
    const records = [record("a", "1", 1), record("a", "2", 0), record("a", "3", null), record("b", "1", 1), record("b", "2", 1), record("b", "3", 0)];
    const results = buildHubResults(records, { judge: "j", step: 3, series: "run" });
    expect(results).toHaveLength(2);
    for (const r of results) expect(inconsistencies(r)).toEqual([]);
    // And the check is not blind: a mean the per-task rewards do not give is caught.
    const forged = { ...results[0], stats: { ...results[0].stats, reward: { ...results[0].stats.reward!, mean: 0.99 } } };
    expect(inconsistencies(forged)).not.toEqual([]);
  });

  it("refuses rollouts of two environment versions: a result names one exact version", () => {
    expect(() => buildHubResults([record("m", "1", 1), { ...record("m", "2", 1), envPackage: { name: "@acme/times-env", version: "0.2.0" } }])).toThrow(/2 environment versions/);
  });

  it("leaves the rollouts out above the size limit, keeping the summary", () => {
    const [a] = buildHubResults([record("m", "1", 1)], { maxRolloutBytes: 10 });
    expect(a.rollouts).toBeUndefined();
    expect(a.stats.rollouts).toBe(1);
  });

  it("names file:line:col for a line that is not a rollout, and refuses a .hub.json entry the schema rejects", () => {
    const dir = tempDir("rubricate-push-file-");
    writeFileSync(join(dir, "bad.jsonl"), `${JSON.stringify(record("m", "1", 1))}\n{"hello": 1}\n`);
    expect(() => readPushFile(join(dir, "bad.jsonl"))).toThrow(/bad\.jsonl:2:1: not a rollout record/);
    writeFileSync(join(dir, "bad.hub.json"), JSON.stringify([{ schema: "rubricate.hub.result/1", model: "m" }]));
    expect(() => readPushFile(join(dir, "bad.hub.json"))).toThrow(/result 1 is not a hub result/);
  });

  it("reads a pretty-printed .hub.json result as one result, and names file:line:col inside a broken array (per-line JSONL errors before)", () => {
    const dir = tempDir("rubricate-push-file-");
    const [result] = buildHubResults([record("m", "1", 1)]);
    writeFileSync(join(dir, "one.hub.json"), `${JSON.stringify(result, null, 2)}\n`);
    expect(readPushFile(join(dir, "one.hub.json"))).toEqual([result]);
    writeFileSync(join(dir, "cut.hub.json"), `[\n  ${JSON.stringify(result)},\n  {"schema": \n]\n`);
    let message = "";
    try {
      readPushFile(join(dir, "cut.hub.json"));
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message.startsWith(`${join(dir, "cut.hub.json")}:4:1: invalid JSON: `)).toBe(true);
    expect(message.endsWith("(a .hub.json file: an array of hub results)")).toBe(true);
  });

  it("says where a bad line or entry is once (\"f:2:1: f:2:1: …\" before)", () => {
    const dir = tempDir("rubricate-push-file-");
    const messageOf = (file: string) => {
      try {
        readPushFile(join(dir, file));
      } catch (e) {
        return (e as Error).message;
      }
      return "no error";
    };
    writeFileSync(join(dir, "bad.jsonl"), `${JSON.stringify(record("m", "1", 1))}\n{"hello": 1}\n{oops\n`);
    expect(messageOf("bad.jsonl")).toBe(`${join(dir, "bad.jsonl")}:2:1: not a rollout record (needs model, task, verdicts): push an eval's rollouts JSONL or a .hub.json file`);
    writeFileSync(join(dir, "cut.jsonl"), `${JSON.stringify(record("m", "1", 1))}\n{oops\n`);
    expect(messageOf("cut.jsonl")).toBe(`${join(dir, "cut.jsonl")}:2:2: invalid JSON: Expected property name or '}'`);
    writeFileSync(join(dir, "bad.hub.json"), JSON.stringify([{ schema: "rubricate.hub.result/1", model: "m" }]));
    expect(messageOf("bad.hub.json")).toMatch(new RegExp(`^${join(dir, "bad.hub.json")}: result 1 is not a hub result`));
  });

  it("reads a rollouts file that starts with a UTF-8 byte order mark, as score does", () => {
    const dir = tempDir("rubricate-push-file-");
    writeFileSync(join(dir, "bom.jsonl"), `\uFEFF${JSON.stringify(record("m", "1", 1))}\r\n${JSON.stringify(record("m", "2", 0))}\r\n`);
    const [result] = readPushFile(join(dir, "bom.jsonl"));
    expect(result.stats.rollouts).toBe(2);
  });
});
