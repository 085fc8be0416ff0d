/**
 * Scale-out on a shared cache (issue 17): three `rubricate serve` replicas on one Redis database,
 * the same 300 samples sent to all three at once, through one fake judge server.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROOT, tempDir, writeJudgeFile } from "../helpers/cli.js";
import { redisServer, startRedis, type LiveRedis } from "../helpers/redis.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer, type TestServer } from "../../src/testing/servers/openai-server.js";
import { decide, jsonOf, paidCounts as paidCountsOf, startServe, type LiveServer } from "./helpers.js";

const RUBRIC = join(ROOT, "tests/bridge/fixtures/one-question.yaml");
const CONCURRENCY = 4; // the judge file's max_concurrency: calls one replica has in flight at most

let redis: LiveRedis;
let judge: TestServer<unknown>;
const replicas: LiveServer[] = [];

const samples = (run: string) => Array.from({ length: 300 }, (_, i) => ({ question: `${run} question ${i}?`, answer: String(i), response: i % 3 === 0 ? `It is ${i}.` : "No idea." }));
const score = (url: string, body: unknown) => fetch(`${url}/v1/score`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ samples: body }) });
/** Judge prompts of a run paid for, each with how often it was paid. */
const paidCounts = (run: string) => paidCountsOf(judge, `${run} question`);

async function startReplicas(cacheUrl: string, latencyMs: number) {
  judge.setBehavior({ latencyMs });
  const judgeFile = writeJudgeFile(tempDir(), judge.url, { max_retries: 0, max_concurrency: CONCURRENCY });
  const started = await Promise.all([0, 1, 2].map(() => startServe(["--rubric", RUBRIC, "--judge", judgeFile, "--port", "0", "--cache", cacheUrl])));
  replicas.push(...started);
  return started;
}

redisServer.describe("three serve replicas sharing a Redis cache", () => {
  beforeAll(async () => {
    redis = await startRedis();
    judge = (await startOpenAIServer({ respond: judgeResponder(decide) })) as TestServer<unknown>;
  });
  afterAll(async () => {
    for (const r of replicas) if (r.child.exitCode === null) r.child.kill("SIGTERM");
    await Promise.all(replicas.map((r) => r.exited));
    await judge?.close();
    await redis?.stop();
  });

  it("the same 300 samples sent to all three at once are paid 300 times, and all three answer alike", async () => {
    const three = await startReplicas(`${redis.url}?prefix=together`, 10);
    const batch = samples("together");
    const answers = await Promise.all(three.map((r) => score(r.url, batch).then(jsonOf)));
    expect(paidCounts("together")).toHaveLength(300);
    expect(paidCounts("together").every((n) => n === 1)).toBe(true); // not one extra call
    expect(answers[0].rewards.every((r: number | null) => r === 0 || r === 1)).toBe(true);
    expect(answers[1].rewards).toEqual(answers[0].rewards);
    expect(answers[2].rewards).toEqual(answers[0].rewards);
    const stats = await Promise.all(three.map((r) => fetch(`${r.url}/v1/stats`).then(jsonOf)));
    expect(stats.reduce((n, s) => n + s.judge.calls, 0)).toBe(300);
    expect(stats.reduce((n, s) => n + s.judge.cacheHits, 0)).toBe(600);
    // A fourth server started later pays nothing for them.
    const late = await startReplicas(`${redis.url}?prefix=together`, 10).then((r) => r[0]);
    expect((await score(late.url, batch).then(jsonOf)).rewards).toEqual(answers[0].rewards);
    expect(paidCounts("together")).toHaveLength(300);
    expect(paidCounts("together").every((n) => n === 1)).toBe(true);
  });

  it("one replica SIGKILLed mid-run: the others finish, and only calls it had in flight are paid again", async () => {
    // lock_ms=3000: a dead replica's claims lapse after 3 s (the default is 10 s). Not shorter: a
    // live replica renews every lock_ms/3, and on a loaded two-core machine a replica starved of
    // CPU for over a second lost its claims at lock_ms=1000 and the others paid its calls again.
    const [doomed, ...rest] = await startReplicas(`${redis.url}?prefix=killed&lock_ms=3000`, 60);
    const batch = samples("killed");
    const lost = score(doomed.url, batch).then(
      (r) => r.status,
      () => "killed",
    );
    const finishing = rest.map((r) => score(r.url, batch).then(jsonOf));
    // Kill it once the run is under way (some answers paid), however loaded the machine is.
    while (paidCounts("killed").length === 0) await new Promise((r) => setTimeout(r, 10));
    const answeredBeforeKill = paidCounts("killed").length;
    doomed.child.kill("SIGKILL");
    await doomed.exited;
    const answers = await Promise.all(finishing);
    expect(await lost).toBe("killed");
    expect(answeredBeforeKill).toBeGreaterThan(0);
    expect(answeredBeforeKill).toBeLessThan(300); // it really was mid-run
    for (const a of answers) {
      expect(a.rewards).toHaveLength(300);
      expect(a.rewards.every((r: number | null) => r === 0 || r === 1)).toBe(true);
    }
    expect(answers[1].rewards).toEqual(answers[0].rewards);
    const counts = paidCounts("killed");
    expect(counts).toHaveLength(300);
    const repaid = counts.filter((n) => n > 1).length;
    // Extra calls: at most the judge calls the killed replica had in flight (paid, never stored).
    expect(repaid).toBeLessThanOrEqual(CONCURRENCY);
    expect(counts.every((n) => n <= 2)).toBe(true);
  });
});
