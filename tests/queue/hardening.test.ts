/**
 * `score --queue` under a hostile environment (queue hardening, round 21): what a run leaves on
 * the queue must neither block nor leak into the next run of the same command. A real
 * redis-server; the judge a local OpenAI-wire server that counts what it was paid for.
 *
 * The tests run side by side (most of each is waiting: on processes to start, BullMQ's retry
 * backoff, a lock or Redis to go away), as in tests/queue/score.test.ts: each on its own database
 * of the shared Redis or on a Redis of its own, so no test's workers take another's chunks; each
 * run's judge calls told apart by its run name; the two that slow the judge down on a judge of
 * their own; and each test's processes killed when it ends, by that test.
 */
import { type ChildProcess } from "node:child_process";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { loadRubricSync } from "../../src/rubric/load.js";
import { fingerprintOf, type ScoreSpec } from "../../src/queue/score-job.js";
import { afterAll, beforeAll, expect, it, type OnTestFinishedHandler } from "vitest";
import { ROOT, runCli, spawnCli, tempDir, writeJudgeFile } from "../helpers/cli.js";
import { redisServer, startRedis, type LiveRedis } from "../helpers/redis.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { queueProject, queueSamples, startQueueWorker, statesAnAnswer, waitUntil } from "./world.js";
import { paidCounts as paidCountsOf } from "../bridge/helpers.js";
import { startOpenAIServer, type TestServer } from "../../src/testing/servers/openai-server.js";
import { Redis } from "ioredis";

const KEY = { RUBRICATE_TEST_KEY: "sk-queue-hardening" };
let redis: LiveRedis;
let judge: TestServer<unknown>;

const paidCounts = (run: string, on = judge) => paidCountsOf(on, `${run} question`);

const project = (run: string, n: number, on = judge) => queueProject(on.url, queueSamples(run, n), 4, "rubricate-queue-hard-");
const startWorker = (children: ChildProcess[], dir: string, url: string, env: Record<string, string> = KEY) => startQueueWorker(children, dir, url, env);

/** The processes a test starts, SIGKILLed (and waited for) when that test ends: the tests run side by side, so none may kill another's. */
function ownChildren(onTestFinished: (fn: OnTestFinishedHandler) => void): ChildProcess[] {
  const children: ChildProcess[] = [];
  onTestFinished(async () => {
    for (const c of children.splice(0)) {
      if (c.exitCode === null && c.signalCode === null) {
        c.kill("SIGKILL");
        await new Promise((r) => c.once("exit", r));
      }
    }
  });
  return children;
}

/** A judge of the test's own, closed when the test ends: for a test that changes the judge's latency. */
async function ownJudge(onTestFinished: (fn: OnTestFinishedHandler) => void): Promise<TestServer<unknown>> {
  const own = (await startOpenAIServer({ respond: judgeResponder(statesAnAnswer) })) as TestServer<unknown>;
  onTestFinished(() => own.close());
  return own;
}

const coordinator = (dir: string, url: string, extra: string[] = []) =>
  runCli(["score", "rubric.yaml", "samples.jsonl", "-o", "out.jsonl", "--judge", "judge.yaml", "--queue", url, "--chunk-size", "10", ...extra], { cwd: dir, env: { RUBRICATE_TEST_KEY: "" } });
const lines = (path: string) => readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { index: number; reward: number | null });

redisServer.describe("score --queue: what a run leaves on the queue", () => {
  const database = (db: number) => redis.url.replace(/\/0$/, `/${db}`);
  beforeAll(async () => {
    redis = await startRedis();
    judge = (await startOpenAIServer({ respond: judgeResponder(statesAnAnswer) })) as TestServer<unknown>;
  });
  afterAll(async () => {
    await judge?.close();
    await redis?.stop();
  });

  it.concurrent("a chunk that failed on every attempt does not fail the same command again once the workers are fixed", async ({ onTestFinished }) => {
    const children = ownChildren(onTestFinished);
    const dir = project("poison", 12);
    const url = database(1);
    // A worker without the judge's key: every attempt at the chunks fails.
    const broken = startWorker(children, dir, url, { RUBRICATE_TEST_KEY: "" });
    const first = await coordinator(dir, url);
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/failed on the workers after 3 attempt/);
    broken.child.kill("SIGKILL");
    await broken.exited;
    // The key is given; the same command, run again, resumes.
    startWorker(children, dir, url);
    const second = await coordinator(dir, url);
    expect(second.code, second.stderr).toBe(0);
    expect(lines(join(dir, "out.jsonl")).map((l) => l.index)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(paidCounts("poison").every((n) => n === 1)).toBe(true);
  }, 180_000);

  it.concurrent("the queue's Redis password is not written into the chunks, and workers still share the cache with it", async ({ onTestFinished }) => {
    const children = ownChildren(onTestFinished);
    const own = await startRedis();
    const password = "pw-hardening-21";
    const admin = new Redis(own.url);
    try {
      await admin.config("SET", "requirepass", password);
      await admin.auth(password);
      const url = own.url.replace("redis://", `redis://:${password}@`);
      const dir = project("password", 12);
      // A worker without the judge's key: the chunks fail and stay on the queue to be read.
      const broken = startWorker(children, dir, url, { RUBRICATE_TEST_KEY: "" });
      expect((await coordinator(dir, url)).code).toBe(1);
      broken.child.kill("SIGKILL");
      await broken.exited;
      expect(await storedText(admin)).not.toContain(password);
      startWorker(children, dir, url);
      const second = await coordinator(dir, url);
      expect(second.code, second.stderr).toBe(0);
      // The workers put the password back: their answers are in the queue's database.
      expect(await admin.keys("rubricate:answer:*")).toHaveLength(12);
      expect(await storedText(admin)).not.toContain(password);
    } finally {
      admin.disconnect();
      await own.stop();
    }
  }, 180_000);

  it.concurrent("a worker whose Redis is down stops on SIGTERM (nothing in hand), instead of waiting for Redis forever", async ({ onTestFinished }) => {
    const children = ownChildren(onTestFinished);
    const own = await startRedis();
    const dir = project("down", 1);
    const worker = startWorker(children, dir, own.url);
    try {
      await waitUntil(() => /worker on/.test(worker.log()), "the worker to start");
      await own.stop();
      await waitUntil(() => /waiting for it/.test(worker.log()), "the worker to see Redis gone");
      worker.child.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
    } finally {
      await own.stop();
    }
  }, 60_000);

  it.concurrent("a second SIGTERM stops a worker at once, though its chunk's judge call never ends", async ({ onTestFinished }) => {
    const children = ownChildren(onTestFinished);
    const hung = (await startOpenAIServer({ respond: judgeResponder(statesAnAnswer), rates: { hang: 1 } })) as TestServer<unknown>;
    const dir = project("hung", 3);
    writeJudgeFile(dir, hung.url, { max_retries: 0, timeout_ms: 3_600_000 });
    const url = database(2);
    const worker = startWorker(children, dir, url);
    const run = spawnCli(["score", "rubric.yaml", "samples.jsonl", "-o", "out.jsonl", "--judge", "judge.yaml", "--queue", url], { cwd: dir, env: { RUBRICATE_TEST_KEY: "" } });
    children.push(run);
    try {
      await waitUntil(() => /taken/.test(worker.log()) && hung.stats.inFlight > 0, "the chunk's judge call to hang");
      worker.child.kill("SIGTERM");
      await waitUntil(() => /finishing the chunks in hand/.test(worker.log()), "the first SIGTERM to be heard");
      worker.child.kill("SIGTERM");
      expect(await worker.exited).toBe(130);
    } finally {
      await hung.close();
    }
  }, 60_000);

  it.concurrent("eval --queue: a run of another grid with as many cells (-n 2 -k 1, then -n 1 -k 2) gets chunks of its own, not the other's", async ({ onTestFinished }) => {
    const children = ownChildren(onTestFinished);
    const dir = tempDir("rubricate-queue-hard-eval-");
    cpSync(join(ROOT, "examples/wordle"), join(dir, "wordle"), { recursive: true });
    const url = database(3);
    const admin = new Redis(url);
    // The coordinators call nothing (no worker runs here): the chunks they put on the queue are read.
    const evalRun = (tasks: string, rollouts: string, out: string) => {
      const child = spawnCli(["eval", "wordle/env.yaml", "--model", "openai-compatible:m@http://127.0.0.1:9/v1", "-n", tasks, "--rollouts", rollouts, "--out", out, "--queue", url, "--chunk-size", "2", "-q"], { cwd: dir, env: { RUBRICATE_TEST_KEY: "" } });
      children.push(child);
      return child;
    };
    const chunkRows = async () => {
      const rows: { task: string; rollout: number }[][] = [];
      for (const key of await admin.keys("bull:rubricate:eval-*")) {
        const data = await admin.hget(key, "data");
        if (data) rows.push((JSON.parse(data) as { rows: { task: string; rollout: number }[] }).rows);
      }
      return rows;
    };
    try {
      const first = evalRun("2", "1", "a.jsonl");
      await waitUntil(async () => (await chunkRows()).length > 0, "the first run's chunk", 30_000);
      first.kill("SIGKILL");
      evalRun("1", "2", "b.jsonl");
      // The second run's one chunk: the first task's two rollouts.
      await waitUntil(async () => (await chunkRows()).some((rows) => rows.length === 2 && rows.every((r) => r.task === rows[0].task) && rows.some((r) => r.rollout === 1)), "the second run's own chunk", 30_000);
    } finally {
      admin.disconnect();
    }
  }, 60_000);

  it.concurrent("a worker that lives through many runs keeps only the last few runs' judges and cache connections open", async ({ onTestFinished }) => {
    const children = ownChildren(onTestFinished);
    const own = await startRedis();
    const admin = new Redis(own.url);
    const clients = async () => String(await admin.client("LIST")).trim().split("\n").length;
    try {
      const dir = project("specs", 3);
      startWorker(children, dir, own.url);
      // Each --concurrency is another spec: another run to the worker.
      expect((await coordinator(dir, own.url, ["--concurrency", "1"])).code).toBe(0);
      const afterOne = await clients();
      // Six runs: two more than the worker keeps, so without closing old ones it would hold 2 × 5 more.
      for (let c = 2; c <= 6; c++) expect((await coordinator(dir, own.url, ["--concurrency", String(c)])).code).toBe(0);
      // Each run kept loaded holds its cache's two connections; the worker keeps four runs at most.
      await waitUntil(async () => (await clients()) <= afterOne + 2 * 3, "the worker to close the judges of old runs", 30_000);
    } finally {
      admin.disconnect();
      await own.stop();
    }
  }, 120_000);

  it.concurrent("a chunk naming a SQLite cache outside the worker's folder fails; the worker creates nothing there", async ({ onTestFinished }) => {
    const children = ownChildren(onTestFinished);
    const dir = project("confine", 1);
    const url = database(4);
    const outside = `${dir}-outside`;
    // A chunk as a coordinator writes it (the right fingerprint), but for its cache file.
    const rubric = loadRubricSync(join(dir, "rubric.yaml"));
    const spec: ScoreSpec = { rubric: "rubric.yaml", judge: "judge.yaml", origin: "user", cache: `../${basename(outside)}/cache.db`, errors: "null", fingerprint: fingerprintOf(rubric, join(dir, "judge.yaml"), undefined) };
    const { Queue } = await import("bullmq");
    const queue = new Queue("rubricate", { connection: { host: "127.0.0.1", port: redis.port, db: 4 } });
    try {
      await queue.add("score", { spec, rows: [{ key: 0, sample: queueSamples("confine", 1)[0] }] }, { jobId: "chunk-with-a-cache-elsewhere", attempts: 1 });
      const worker = startWorker(children, dir, url);
      await waitUntil(() => /chunk-with-a-cache-elsewhere (done|failed)/.test(worker.log()), "the chunk to end");
      expect(worker.log()).toMatch(/chunk-with-a-cache-elsewhere failed: .*outside the worker's folder/);
      expect(existsSync(outside)).toBe(false);
    } finally {
      await queue.close();
    }
  }, 60_000);

  it.concurrent("a chunk of a coordinator running another rubricate version fails with the reason, instead of mixing two versions' rewards", async ({ onTestFinished }) => {
    const children = ownChildren(onTestFinished);
    const dir = project("version", 1);
    const url = database(5);
    const rubric = loadRubricSync(join(dir, "rubric.yaml"));
    const spec: ScoreSpec = { rubric: "rubric.yaml", judge: "judge.yaml", origin: "user", cache: url, errors: "null", fingerprint: fingerprintOf(rubric, join(dir, "judge.yaml"), undefined), version: "0.0.1-elsewhere" };
    const { Queue } = await import("bullmq");
    const queue = new Queue("rubricate", { connection: { host: "127.0.0.1", port: redis.port, db: 5 } });
    try {
      await queue.add("score", { spec, rows: [{ key: 0, sample: queueSamples("version", 1)[0] }] }, { jobId: "chunk-of-another-version", attempts: 1 });
      const worker = startWorker(children, dir, url);
      await waitUntil(() => /chunk-of-another-version (done|failed)/.test(worker.log()), "the chunk to end");
      expect(worker.log()).toMatch(/chunk-of-another-version failed: .*rubricate 0\.0\.1-elsewhere/);
      expect(paidCounts("version")).toHaveLength(0);
    } finally {
      await queue.close();
    }
  }, 60_000);

  it.concurrent("OPENAI_BASE_URL is part of the run: a worker calling another server refuses the chunks, and the key is stored nowhere in Redis", async ({ onTestFinished }) => {
    const children = ownChildren(onTestFinished);
    const dir = project("endpoint", 6);
    // A judge on OpenAI's provider with no base_url: the server is whatever OPENAI_BASE_URL says.
    writeFileSync(join(dir, "judge.yaml"), "provider: openai\nmodel: judge-model\napi_key_env: RUBRICATE_TEST_KEY\nmax_retries: 0\n");
    const url = database(7);
    const admin = new Redis(url);
    const secret = "sk-endpoint-secret-22";
    const onJudge = { RUBRICATE_TEST_KEY: secret, OPENAI_BASE_URL: judge.url };
    // The coordinator is given the key too (a user's shell has it): it must not travel either.
    const run = (baseUrl: string) => runCli(["score", "rubric.yaml", "samples.jsonl", "-o", "out.jsonl", "--judge", "judge.yaml", "--queue", url], { cwd: dir, env: { RUBRICATE_TEST_KEY: secret, OPENAI_BASE_URL: baseUrl } });
    try {
      const worker = startWorker(children, dir, url, onJudge);
      const elsewhere = await run("http://127.0.0.1:9/v1");
      expect(elsewhere.code).toBe(1);
      expect(elsewhere.stderr).toMatch(/OPENAI_BASE_URL.*differ on this worker from the coordinator's/);
      expect(paidCounts("endpoint")).toHaveLength(0);
      const same = await run(judge.url);
      expect(same.code, same.stderr).toBe(0);
      expect(lines(join(dir, "out.jsonl")).map((l) => l.reward)).toEqual([1, 0, 0, 1, 0, 0]);
      expect(await storedText(admin)).not.toContain(secret);
    } finally {
      admin.disconnect();
    }
  }, 120_000);

  it.concurrent("a malformed chunk (data not JSON, or not a chunk's shape) fails at once naming it, never as a Redis outage, and the worker goes on", async ({ onTestFinished }) => {
    const children = ownChildren(onTestFinished);
    const dir = project("malformed", 6);
    const url = database(8);
    const admin = new Redis(url);
    const { Queue } = await import("bullmq");
    const queue = new Queue("rubricate", { connection: { host: "127.0.0.1", port: redis.port, db: 8 } });
    const malformed = ["chunk-not-json", "chunk-of-another-shape"];
    try {
      await queue.add("score", { rows: [] }, { jobId: "chunk-not-json", attempts: 3 });
      // Data that does not parse, as another program (or a hand) might write it.
      await admin.hset("bull:rubricate:chunk-not-json", "data", "{not json");
      await queue.add("score", { spec: { rubric: 7 }, rows: "all of them" }, { jobId: "chunk-of-another-shape", attempts: 3 });
      const worker = startWorker(children, dir, url);
      // The worker goes on: a run queued after them is scored.
      const run = await coordinator(dir, url);
      expect(run.code, run.stderr).toBe(0);
      expect(lines(join(dir, "out.jsonl")).map((l) => l.reward)).toEqual([1, 0, 0, 1, 0, 0]);
      await waitUntil(() => malformed.every((id) => worker.log().includes(`chunk ${id} failed`)), "both malformed chunks to fail", 30_000);
      expect(worker.log()).toMatch(/chunk chunk-not-json failed: chunk chunk-not-json \(kind "score"\) is malformed; its data is not JSON/);
      expect(worker.log()).toMatch(/chunk chunk-of-another-shape failed: chunk chunk-of-another-shape \(kind "score"\) is malformed; data\.spec\.rubric: .*expected string/);
      expect(worker.log()).not.toMatch(/Redis at|waiting for it/);
      // Failed for good at the first attempt: neither retried nor left locked to be taken again.
      for (const id of malformed) {
        expect(await queue.getJobState(id)).toBe("failed");
        expect(worker.log().split("\n").filter((l) => l.startsWith(`worker: chunk ${id} (`) && l.endsWith(" taken")), id).toHaveLength(1);
      }
    } finally {
      await queue.close();
      admin.disconnect();
    }
  }, 120_000);

  it.concurrent("Ctrl-C on the coordinator takes its chunks no worker started off the queue: no judge call for them, and the same command resumes paying nothing twice", async ({ onTestFinished }) => {
    const children = ownChildren(onTestFinished);
    const slow = await ownJudge(onTestFinished);
    const dir = project("ctrl-c", 60, slow);
    writeJudgeFile(dir, slow.url, { max_retries: 0, max_concurrency: 1 });
    const url = database(9);
    const { Queue } = await import("bullmq");
    const queue = new Queue("rubricate", { connection: { host: "127.0.0.1", port: redis.port, db: 9 } });
    slow.setBehavior({ latencyMs: 100 }); // a chunk of 10 takes a second: the run is mid-way when stopped
    try {
      // One chunk at a time, so that most of the run's six chunks are still waiting.
      const worker = startQueueWorker(children, dir, url, KEY, ["--chunks", "1"]);
      const first = spawnCli(["score", "rubric.yaml", "samples.jsonl", "-o", "out.jsonl", "--judge", "judge.yaml", "--queue", url, "--chunk-size", "10"], { cwd: dir, env: { RUBRICATE_TEST_KEY: "" } });
      children.push(first);
      let stderr = "";
      first.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      const exited = new Promise<number | null>((r) => first.once("exit", (code) => r(code)));
      await waitUntil(() => /taken/.test(worker.log()) && paidCounts("ctrl-c", slow).length > 0, "a chunk under way");
      first.kill("SIGINT");
      expect(await exited).toBe(130);
      expect(stderr).toMatch(/chunk\(s\) no worker had started taken off the queue/);
      // Nothing is left for a worker to start; the chunk in hand finishes, and no other is taken.
      expect(await queue.getJobCounts("waiting", "delayed", "prioritized", "waiting-children")).toEqual({ waiting: 0, delayed: 0, prioritized: 0, "waiting-children": 0 });
      await waitUntil(async () => (await queue.getJobCounts("active")).active === 0, "the chunk in hand to finish");
      const taken = worker.log().split("\n").filter((l) => / taken$/.test(l)).length;
      expect(taken).toBeLessThan(6);
      expect(paidCounts("ctrl-c", slow)).toHaveLength(10 * taken);
      slow.setBehavior({ latencyMs: 0 });
      const second = await coordinator(dir, url);
      expect(second.code, second.stderr).toBe(0);
      expect(lines(join(dir, "out.jsonl")).map((l) => l.index)).toEqual(Array.from({ length: 60 }, (_, i) => i));
      const counts = paidCounts("ctrl-c", slow);
      expect(counts).toHaveLength(60);
      expect(counts.every((n) => n === 1)).toBe(true);
    } finally {
      await queue.close();
    }
  }, 120_000);

  it.concurrent("--resume does not carry the .partial of a run with another rubric into this one", async ({ onTestFinished }) => {
    const children = ownChildren(onTestFinished);
    const slow = await ownJudge(onTestFinished);
    const dir = project("other-rubric", 200, slow);
    const url = database(6);
    slow.setBehavior({ latencyMs: 20 }); // so that the first run is killed mid-run
    startWorker(children, dir, url);
    const first = spawnCli(["score", "rubric.yaml", "samples.jsonl", "-o", "out.jsonl", "--judge", "judge.yaml", "--queue", url, "--chunk-size", "10"], { cwd: dir, env: { RUBRICATE_TEST_KEY: "" } });
    children.push(first);
    await waitUntil(() => existsSync(join(dir, "out.jsonl.partial")) && readFileSync(join(dir, "out.jsonl.partial"), "utf8").split("\n").length > 20, "results in the .partial");
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    slow.setBehavior({ latencyMs: 0 });
    // The rubric is edited: its rewards are not those of the .partial's lines.
    writeFileSync(join(dir, "rubric.yaml"), readFileSync(join(dir, "rubric.yaml"), "utf8").replace("points: 1", "points: 2"));
    const second = await coordinator(dir, url, ["--resume"]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/--resume: out\.jsonl\.partial holds the results of another run/);
    expect(existsSync(join(dir, "out.jsonl"))).toBe(false);
  }, 60_000);
});

/** Every value of the database, as text (hashes, strings, lists, sets, streams). */
async function storedText(redis: Redis): Promise<string> {
  const parts: string[] = [];
  for (const key of await redis.keys("*")) {
    const type = await redis.type(key);
    if (type === "hash") parts.push(JSON.stringify(await redis.hgetall(key)));
    else if (type === "string") parts.push(String(await redis.get(key)));
    else if (type === "list") parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
    else if (type === "zset") parts.push(JSON.stringify(await redis.zrange(key, "0", "-1")));
    else if (type === "set") parts.push(JSON.stringify(await redis.smembers(key)));
    else if (type === "stream") parts.push(JSON.stringify(await redis.xrange(key, "-", "+")));
  }
  expect(parts.length).toBeGreaterThan(0);
  return parts.join("\n");
}
