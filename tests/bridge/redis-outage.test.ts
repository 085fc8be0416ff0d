/**
 * A Redis that stops answering (SIGSTOP: the connection stays open, nothing replies), as opposed
 * to one that dies: calls must not stall, /healthz and /v1/stats must say `degraded` and why, the
 * recovery is logged, SIGTERM still stops the server, and a replica that cannot reach Redis at
 * start-up says why (ECONNREFUSED, or no answer) instead of hanging or blaming "max retries".
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROOT, tempDir, writeJudgeFile } from "../helpers/cli.js";
import { redisServer, startRedis, type LiveRedis } from "../helpers/redis.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer, type TestServer } from "../../src/testing/servers/openai-server.js";
import { decide, jsonOf, startServe, type LiveServer } from "./helpers.js";

const RUBRIC = join(ROOT, "tests/bridge/fixtures/one-question.yaml");
/**
 * The cache's command timeout (3 s by default): how long each call waits on the stopped Redis. A
 * shorter one takes the same path (no answer, then degraded); 1 s stays well above a Redis command
 * on a loaded machine, so the cache is not reported degraded before the test stops Redis.
 */
const cacheUrl = () => `${redis.url}?timeout_ms=1000`;
let redis: LiveRedis;
let judge: TestServer<unknown>;
let judgeFile: string;
const started: LiveServer[] = [];

const score = (url: string, run: string) =>
  fetch(`${url}/v1/score`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ samples: [0, 1, 2].map((i) => ({ question: `${run} ${i}?`, answer: "1", response: `It is ${i}.` })) }) });
const get = async (url: string, path: string) => jsonOf(await fetch(`${url}${path}`));
async function until(check: () => Promise<boolean>) {
  while (!(await check())) await new Promise((r) => setTimeout(r, 100));
}

redisServer.describe("serve on a Redis that stops answering", () => {
  beforeAll(async () => {
    redis = await startRedis();
    judge = (await startOpenAIServer({ respond: judgeResponder(decide) })) as TestServer<unknown>;
    judgeFile = writeJudgeFile(tempDir(), judge.url, { max_retries: 0 });
  });
  afterAll(async () => {
    redis?.child.kill("SIGCONT");
    for (const s of started) if (s.child.exitCode === null) s.child.kill("SIGKILL");
    await Promise.all(started.map((s) => s.exited));
    await judge?.close();
    await redis?.stop();
  });

  it("keeps answering from memory, reports degraded with the reason, logs the recovery, and stops on the first SIGTERM", async () => {
    const server = await startServe(["--rubric", RUBRIC, "--judge", judgeFile, "--port", "0", "--cache", cacheUrl()]);
    started.push(server);
    expect((await score(server.url, "before")).status).toBe(200);
    expect(await get(server.url, "/healthz")).toMatchObject({ ok: true, status: "ok", cache: { status: "ok" } });

    redis.child.kill("SIGSTOP");
    try {
      // Not stalled: answered (paid here) though Redis holds the connection and never replies.
      const during = await score(server.url, "during");
      expect(during.status).toBe(200);
      expect((await jsonOf(during)).results.every((r: { reward: number | null }) => r.reward !== null)).toBe(true);
      const health = await get(server.url, "/healthz");
      expect(health).toMatchObject({ ok: true, status: "degraded", cache: { status: "degraded" } });
      expect(health.cache.reason).toMatch(/no answer within \d+ ms/);
      const stats = await get(server.url, "/v1/stats");
      expect(stats.cache).toMatchObject({ status: "degraded" });
      expect(server.stderr()).toMatch(/Redis cache at redis:\/\/127\.0\.0\.1:\d+\/0 is unreachable \(no answer within/);
    } finally {
      redis.child.kill("SIGCONT");
    }
    await until(async () => (await get(server.url, "/healthz")).status === "ok");
    expect(server.stderr()).toMatch(/Redis cache at .* is back after \d+ s/);
    expect((await get(server.url, "/v1/stats")).cache.status).toBe("ok");

    // Stopped again, then SIGTERM: the first one stops the server (its cache does not wait on Redis).
    expect((await score(server.url, "again")).status).toBe(200);
    redis.child.kill("SIGSTOP");
    try {
      expect((await score(server.url, "stopped")).status).toBe(200);
      server.child.kill("SIGTERM");
      expect(await server.exited).toEqual({ code: 0, signal: null });
      expect(server.stderr()).toContain("stopped");
    } finally {
      redis.child.kill("SIGCONT");
    }
  });

  // These two start a replica that fails; they run side by side (the second never reaches this Redis).
  it.concurrent("a replica started while Redis answers nothing says so and exits, rather than hang", async ({ expect }) => {
    redis.child.kill("SIGSTOP");
    try {
      const failure = startServe(["--rubric", RUBRIC, "--judge", judgeFile, "--port", "0", "--cache", cacheUrl()]);
      await expect(failure).rejects.toThrow(/rubricate: CACHE: cannot reach the Redis cache at redis:\/\/127\.0\.0\.1:\d+\/0: no answer within \d+ ms/);
    } finally {
      redis.child.kill("SIGCONT");
    }
  });

  it.concurrent("a replica started while Redis is down names the cause (ECONNREFUSED) in its error, not only in a warning", async ({ expect }) => {
    const failure = startServe(["--rubric", RUBRIC, "--judge", judgeFile, "--port", "0", "--cache", "redis://127.0.0.1:1/0"]);
    await expect(failure).rejects.toThrow(/rubricate: CACHE: cannot reach the Redis cache at redis:\/\/127\.0\.0\.1:1\/0: [^\n]*ECONNREFUSED/);
  });
});
