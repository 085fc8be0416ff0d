/**
 * `score --queue` with `rubricate worker`s (issue 33), on a real redis-server: several worker
 * processes, one of them SIGKILLed mid-run; the coordinator killed and started again; Redis
 * restarted under a run; bad input lines. The judge is a local OpenAI-wire server that counts
 * what it was paid for, so "nothing paid twice" is counted, not assumed.
 */
import { type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli, spawnCli } from "../helpers/cli.js";
import { redisServer, startRedis, type LiveRedis } from "../helpers/redis.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { paidCounts as paidCountsOf } from "../bridge/helpers.js";
import { queueProject, queueSamples, startQueueWorker, statesAnAnswer, waitUntil } from "./world.js";
import { startOpenAIServer, type TestServer } from "../../src/testing/servers/openai-server.js";
import { Redis } from "ioredis";

const CONCURRENCY = 4; // the judge file's max_concurrency: the most calls one worker has in flight
const KEY = { RUBRICATE_TEST_KEY: "sk-queue-test" };

let redis: LiveRedis;
let judge: TestServer<unknown>;
const children: ChildProcess[] = [];


/** Judge prompts of a run paid for, each with how often it was paid. */
const paidCounts = (run: string) => paidCountsOf(judge, `${run} question`);

/** A folder laid out as every machine would have it: the rubric, the judge file, the samples. */
const project = (run: string, n: number, rows: unknown[] = queueSamples(run, n)) => queueProject(judge.url, rows, CONCURRENCY);
const startWorker = (dir: string, url: string, extra: string[] = []) => startQueueWorker(children, dir, url, KEY, extra);

/** The coordinator: it needs no API key (the workers call the judge), so it is given none. */
const coordinator = (dir: string, url: string, extra: string[] = [], env: Record<string, string> = {}) =>
  runCli(["score", "rubric.yaml", "samples.jsonl", "-o", "out.jsonl", "--judge", "judge.yaml", "--queue", url, "--chunk-size", "10", ...extra], { cwd: dir, env: { RUBRICATE_TEST_KEY: "", ...env } });
const lines = (path: string) => readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { index: number; reward: number | null });

/** The rewards a plain local run gives the same samples (its own cache, so it pays its own calls). */
async function localRewards(dir: string): Promise<(number | null)[]> {
  const r = await runCli(["score", "rubric.yaml", "samples.jsonl", "-o", "local.jsonl", "--judge", "judge.yaml", "--cache", "local-cache.db", "-q"], { cwd: dir, env: KEY });
  expect(r.code, r.stderr).toBe(0);
  return lines(join(dir, "local.jsonl")).map((l) => l.reward);
}

/**
 * The tests run side by side (most of each is waiting: on a lock to expire, a process to start, the
 * judge's latency), each on its own database of the shared Redis, so one test's workers never take
 * another's chunks; each run's judge calls are told apart by its run name. The judge answers every
 * call after 20 ms, so a kill lands mid-run.
 */
redisServer.describe("score --queue with rubricate workers", () => {
  /** Redis database `db` of the shared server (BullMQ keeps a queue's keys in the connection's database). */
  const database = (db: number) => redis.url.replace(/\/0$/, `/${db}`);
  beforeAll(async () => {
    redis = await startRedis();
    judge = (await startOpenAIServer({ respond: judgeResponder(statesAnAnswer) })) as TestServer<unknown>;
  });
  afterAll(async () => {
    // Workers a test left running (the concurrent tests share this list, so none is killed before the last ends).
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    await judge?.close();
    await redis?.stop();
  });

  it.concurrent("three workers, one SIGKILLed mid-run: every row in input order, rewards as a local run, paid at most samples + its in-flight calls", async () => {
    const dir = project("kill", 300);
    const url = database(1);
    const workers = [0, 1, 2].map(() => startWorker(dir, url));
    const run = coordinator(dir, url);
    // Killed once it really is mid-run: it has taken chunks and the judge has answered some calls.
    await waitUntil(() => workers.some((w) => /taken/.test(w.log())) && paidCounts("kill").length > 30, "a worker to be busy", 120_000);
    const doomed = workers.find((w) => /taken/.test(w.log()))!;
    doomed.child.kill("SIGKILL");
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    const out = lines(join(dir, "out.jsonl"));
    expect(out.map((l) => l.index)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    const counts = paidCounts("kill");
    expect(counts).toHaveLength(300);
    // The only calls paid twice are those the killed worker had in flight (paid, never stored).
    expect(counts.filter((n) => n > 1).length).toBeLessThanOrEqual(CONCURRENCY);
    expect(counts.every((n) => n <= 2)).toBe(true);
    expect(out.map((l) => l.reward)).toEqual(await localRewards(dir));
    expect(r.stderr).toMatch(/300 samples/);
    const others = workers.filter((w) => w !== doomed);
    for (const w of others) w.child.kill("SIGTERM");
    expect(await Promise.all(others.map((w) => w.exited))).toEqual([0, 0]); // SIGTERM: a clean stop
  }, 300_000);

  it.concurrent("the coordinator SIGKILLed and started again resumes the same job: nothing lost, nothing paid twice", async () => {
    const dir = project("resume", 200);
    const url = database(2);
    startWorker(dir, url);
    startWorker(dir, url);
    const first = spawnCli(["score", "rubric.yaml", "samples.jsonl", "-o", "out.jsonl", "--judge", "judge.yaml", "--queue", url, "--chunk-size", "10"], { cwd: dir });
    children.push(first);
    await waitUntil(() => paidCounts("resume").length > 60, "the run to be under way", 120_000);
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    expect(existsSync(join(dir, "out.jsonl"))).toBe(false);
    const second = await coordinator(dir, url);
    expect(second.code, second.stderr).toBe(0);
    const out = lines(join(dir, "out.jsonl"));
    expect(out.map((l) => l.index)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    const counts = paidCounts("resume");
    expect(counts).toHaveLength(200);
    expect(counts.every((n) => n === 1)).toBe(true); // the workers never died: not one call paid twice
    expect(out.map((l) => l.reward)).toEqual(await localRewards(dir));
    // Done: the run's marker is gone, so the next run of the same command starts afresh.
    expect(existsSync(join(dir, "out.jsonl.queue"))).toBe(false);
  }, 300_000);

  it.concurrent("Redis restarted without persistence under a run: the job still finishes (vanished chunks queued again), never hangs", async () => {
    const own = await startRedis();
    try {
      const dir = project("restart", 150);
      startWorker(dir, own.url);
      const run = coordinator(dir, own.url);
      await waitUntil(() => paidCounts("restart").length > 30, "the run to be under way", 120_000);
      await own.restart();
      const r = await run;
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/no longer on the queue/);
      expect(lines(join(dir, "out.jsonl")).map((l) => l.index)).toEqual(Array.from({ length: 150 }, (_, i) => i));
    } finally {
      await own.stop();
    }
  }, 300_000);

  it.concurrent("Redis gone for good: the coordinator stops with a clear error naming Redis, and keeps what it had", async () => {
    const own = await startRedis();
    const dir = project("gone", 20);
    await own.stop();
    const r = await coordinator(dir, own.url, [], { RUBRICATE_QUEUE_OUTAGE_MS: "3000" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/QUEUE: Redis at redis:\/\/127\.0\.0\.1:\d+\/0 has not answered/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }, 180_000);

  it.concurrent("bad input lines keep their place and are reported, exit 3, as a local run does", async () => {
    const dir = project("bad", 0, []);
    const url = database(3);
    writeFileSync(join(dir, "samples.jsonl"), [JSON.stringify(queueSamples("bad", 3)[0]), "{not json", JSON.stringify(queueSamples("bad", 3)[2])].join("\n") + "\n");
    startWorker(dir, url);
    const r = await coordinator(dir, url);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/samples\.jsonl:2/);
    const out = lines(join(dir, "out.jsonl"));
    expect(out.map((l) => l.index)).toEqual([0, 1, 2]);
    expect(out[1].reward).toBeNull();
    expect(out[0].reward).toBe(1);
  }, 180_000);

  it.concurrent("distill --queue: the workers score, this process filters; the export equals a local distill's, with no key here", async () => {
    const dir = project("distill", 30);
    const url = database(4);
    startWorker(dir, url);
    const args = ["distill", "samples.jsonl", "--rubric", "rubric.yaml", "--judge", "judge.yaml", "--min-reward", "1", "--prompt-template", "{{question}}", "-q"];
    const queued = await runCli([...args, "-o", "queued.jsonl", "--queue", url, "--chunk-size", "7"], { cwd: dir, env: { RUBRICATE_TEST_KEY: "" } });
    expect(queued.code, queued.stderr).toBe(0);
    const local = await runCli([...args, "-o", "local.jsonl", "--cache", "local.db"], { cwd: dir, env: KEY });
    expect(local.code, local.stderr).toBe(0);
    const exported = readFileSync(join(dir, "queued.jsonl"), "utf8");
    expect(exported).toBe(readFileSync(join(dir, "local.jsonl"), "utf8"));
    expect(exported.trim().split("\n")).toHaveLength(10); // every third of 30 gives the answer
    expect(lines(join(dir, "queued.jsonl.scores.jsonl"))).toHaveLength(30);
  }, 180_000);

  it.concurrent("distill --queue --no-resume starts the scoring over: neither the .partial nor chunks an earlier run left finished are taken", async () => {
    const dir = project("fresh", 20);
    const url = database(6);
    const admin = new Redis(url);
    const args = ["distill", "samples.jsonl", "--rubric", "rubric.yaml", "--judge", "judge.yaml", "--min-reward", "1", "--prompt-template", "{{question}}", "-q", "-o", "out.jsonl", "--queue", url, "--chunk-size", "5"];
    const scoreJobs = () => admin.keys("bull:rubricate:score-*[0-9]");
    try {
      // An earlier run, stopped once its four chunks were queued (no worker yet), which a worker then finished.
      const earlier = spawnCli(args, { cwd: dir, env: { RUBRICATE_TEST_KEY: "" } });
      children.push(earlier);
      await waitUntil(async () => (await scoreJobs()).length === 4, "the earlier run's chunks", 60_000);
      earlier.kill("SIGKILL");
      await new Promise((r) => earlier.once("exit", r));
      startWorker(dir, url);
      await waitUntil(async () => (await Promise.all((await scoreJobs()).map((key) => admin.hget(key, "finishedOn")))).every(Boolean), "the earlier run's chunks to finish", 60_000);
      // What a resumed run would take: marked, so that taking it shows. The .partial holds the first chunk's rows…
      const marked = (reward: number) => ({ reward, passed: false, verdicts: [], errors: [], feedback: "an earlier run's" });
      writeFileSync(join(dir, "out.jsonl.scores.jsonl.partial"), [0, 1, 2, 3, 4].map((index) => JSON.stringify({ index, ...marked(0.25) })).join("\n") + "\n");
      // …and the queue every chunk's results.
      for (const key of await scoreJobs()) {
        const done = JSON.parse((await admin.hget(key, "returnvalue"))!) as { results: { key: number; result: object }[] };
        await admin.hset(key, "returnvalue", JSON.stringify({ results: done.results.map((r) => ({ key: r.key, result: { ...r.result, ...marked(0.75) } })) }));
      }
      const fresh = await runCli([...args, "--no-resume"], { cwd: dir, env: { RUBRICATE_TEST_KEY: "" } });
      expect(fresh.code, fresh.stderr).toBe(0);
      expect(lines(join(dir, "out.jsonl.scores.jsonl")).map((l) => l.reward)).toEqual(Array.from({ length: 20 }, (_, i) => (i % 3 === 0 ? 1 : 0)));
      expect(readFileSync(join(dir, "out.jsonl"), "utf8").trim().split("\n")).toHaveLength(7);
      // Started over from the shared cache: nothing paid twice.
      expect(paidCounts("fresh").every((n) => n === 1)).toBe(true);
    } finally {
      admin.disconnect();
    }
  }, 180_000);

  it.concurrent("a worker whose rubric differs from the coordinator's fails the chunk with a clear error, and the run says why", async () => {
    const dir = project("differ", 5);
    const elsewhere = project("differ", 5);
    writeFileSync(join(elsewhere, "rubric.yaml"), readFileSync(join(elsewhere, "rubric.yaml"), "utf8").replace("points: 1", "points: 2"));
    const url = database(5);
    startWorker(elsewhere, url);
    const r = await coordinator(dir, url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/differ on this worker from the coordinator's/);
  }, 180_000);
});
