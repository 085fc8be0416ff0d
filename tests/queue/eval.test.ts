/**
 * `eval --queue` (issue 33): workers play an environment's rollouts (wordle, with a scripted
 * policy and judge on local wire-format servers). The output holds every (task, model, rollout)
 * once, with the rewards a local eval gives, though a worker is SIGKILLed mid-run.
 */
import { type ChildProcess } from "node:child_process";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { nextGuess } from "../../examples/wordle/solver.js";
import { readRollouts, tripleKey } from "../../src/env/eval.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { ROOT, runCli, spawnCli, tempDir, writeJudgeFile } from "../helpers/cli.js";
import { runCliInProcess } from "../helpers/cli-in-process.js";
import { redisServer, startRedis, type LiveRedis } from "../helpers/redis.js";
import { startWorld, type WireMessage } from "../env/world.js";

const KEY = { RUBRICATE_TEST_KEY: "sk-queue-eval" };
const guessFrom = (m: WireMessage[]) => `GUESS: ${nextGuess(m.filter((x) => x.role === "user").map((x) => x.content ?? ""))}`;
let world: TestServer<unknown>;
let redis: LiveRedis;
const children: ChildProcess[] = [];

redisServer.describe("eval --queue with rubricate workers", () => {
  beforeAll(async () => {
    redis = await startRedis();
    world = await startWorld(
      { solver: guessFrom, blunder: (m) => (m.filter((x) => x.role === "assistant").length === 0 ? "GUESS: zzzzz" : guessFrom(m)) },
      (_q, view) => !view.sample.includes("invalid"),
    );
    world.setBehavior({ latencyMs: 10 });
  });
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  });
  afterAll(async () => {
    await world?.close();
    await redis?.stop();
  });

  it("two workers, one SIGKILLed mid-run: every rollout once, rewards as a local eval", async () => {
    const dir = tempDir("rubricate-queue-eval-");
    cpSync(join(ROOT, "examples/wordle"), join(dir, "wordle"), { recursive: true });
    writeJudgeFile(dir, world.url);
    const models = ["solver", "blunder"].flatMap((m) => ["--model", `openai-compatible:${m}@${world.url}`]);
    const args = ["eval", "wordle/env.yaml", ...models, "--rollouts", "2", "--judge", "judge.yaml", "-q"];
    const workers = [0, 1].map(() => {
      const child = spawnCli(["worker", "--queue", redis.url, "--lock-ms", "2000", "--chunks", "1"], { cwd: dir, env: KEY });
      let log = "";
      child.stderr!.setEncoding("utf8").on("data", (d: string) => (log += d));
      children.push(child);
      return { child, log: () => log };
    });
    // The coordinator plays nothing: it has no key.
    const run = runCli([...args, "--out", "queued.jsonl", "--queue", redis.url, "--chunk-size", "2"], { cwd: dir, env: { RUBRICATE_TEST_KEY: "" } });
    const until = Date.now() + 120_000;
    while (!workers.some((w) => /done/.test(w.log())) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    const doomed = workers.find((w) => /taken/.test(w.log()))!;
    doomed.child.kill("SIGKILL");
    const queued = await run;
    expect(queued.code, queued.stderr).toBe(0);
    // The reference eval in this process (the coordinator and workers above are the processes under test).
    const local = await runCliInProcess([...args, "--out", "local.jsonl", "--cache", "local.db"], { cwd: dir, env: KEY });
    expect(local.code, local.stderr).toBe(0);

    const byCell = (file: string) => new Map(readRollouts(join(dir, file)).map((r) => [tripleKey(r), r.reward]));
    const got = readRollouts(join(dir, "queued.jsonl"));
    expect(got).toHaveLength(6 * 2 * 2);
    expect(new Set(got.map(tripleKey)).size).toBe(24); // each cell once
    expect(byCell("queued.jsonl")).toEqual(byCell("local.jsonl"));
    expect(new Set(got.map((r) => r.reward)).size).toBeGreaterThan(1); // not a constant
    expect(queued.stdout).toContain("solver");
  }, 300_000);
});
