import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { score } from "../../src/score/score.js";
import { createJudge } from "../../src/judge/create.js";
import { loadRubricSync } from "../../src/rubric/load.js";
import { tempDir, writeJudgeFile } from "../helpers/cli.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { startOpenAIServer, type TestServer } from "../../src/testing/servers/openai-server.js";
import { decide, jsonOf, KEY, RUBRIC, startServe } from "./helpers.js";

process.env.RUBRICATE_TEST_KEY = KEY;

// The two tests share nothing (each its own judge, server and cache file), so they run side by side.
const servers: TestServer<unknown>[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const samples = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ question: `What is ${i} + 1?`, answer: String(i + 1), response: i % 3 === 0 ? `It is ${i + 1}, according to arithmetic.` : i % 3 === 1 ? `Please: ${i + 2}` : `${i + 1}`, id: i }));

function sql<T>(path: string, query: string): T {
  const db = new Database(path, { readonly: query.startsWith("SELECT") });
  try {
    return db.prepare(query).get() as T;
  } finally {
    db.close();
  }
}
const cacheRows = (path: string) => sql<{ n: number }>(path, "SELECT count(*) AS n FROM responses").n;
const integrity = (path: string) => sql<{ integrity_check: string }>(path, "PRAGMA integrity_check").integrity_check;

async function judgeServer(latencyMs: number) {
  const s = (await startOpenAIServer({ respond: judgeResponder(decide), latencyMs, recordBodies: false })) as TestServer<unknown>;
  servers.push(s);
  return s;
}

describe("faults", () => {
  it.concurrent("SIGKILL mid-batch, restart, replay: no cached answer is paid again, the cache is intact", async ({ expect }) => {
    const judge = await judgeServer(15);
    const dir = tempDir();
    const judgePath = writeJudgeFile(dir, judge.url, { max_concurrency: 4 });
    const cache = join(dir, "cache.db");
    const args = ["--rubric", RUBRIC, "--judge", judgePath, "--port", "0", "--cache", cache];
    const batch = JSON.stringify({ samples: samples(150) });

    const first = await startServe(args);
    const lost = fetch(`${first.url}/v1/score`, { method: "POST", headers: { "content-type": "application/json" }, body: batch }).then(
      (r) => r.status,
      () => "connection lost",
    );
    while (judge.stats.requests < 60) await new Promise((r) => setTimeout(r, 5));
    first.child.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");
    expect(await lost).toBe("connection lost");
    const paidBeforeKill = judge.stats.requests;
    const rowsAfterKill = cacheRows(cache);
    expect(integrity(cache)).toBe("ok");
    expect(rowsAfterKill).toBeGreaterThan(0);
    // Only calls still in flight at the kill (at most max_concurrency) were lost unrecorded.
    expect(paidBeforeKill - rowsAfterKill).toBeLessThanOrEqual(4);

    const second = await startServe(args);
    try {
      const res = await fetch(`${second.url}/v1/score`, { method: "POST", headers: { "content-type": "application/json" }, body: batch });
      expect(res.status).toBe(200);
      const body = await jsonOf(res);
      const paidOnReplay = judge.stats.requests - paidBeforeKill;
      const rows = cacheRows(cache);
      // Every answer the killed server had cached was reused: the replay paid only for the missing ones.
      expect(paidOnReplay).toBe(rows - rowsAfterKill);
      const stats = await fetch(`${second.url}/v1/stats`).then(jsonOf);
      expect(stats.judge.calls).toBe(paidOnReplay);
      expect(stats.judge.cacheHits).toBeGreaterThanOrEqual(rowsAfterKill);
      // The rewards are the ones score() computes in-process.
      const inProcessJudge = createJudge(judgePath, { cache: false });
      const expected = (await score(loadRubricSync(RUBRIC), samples(150), { judge: inProcessJudge })).map((r) => r.reward);
      inProcessJudge.close?.();
      expect(body.rewards).toEqual(expected);
      expect(body.errors.every((e: unknown) => e === null)).toBe(true);
    } finally {
      second.child.kill("SIGTERM");
      expect((await second.exited).code).toBe(0);
    }
    expect(integrity(cache)).toBe("ok");
  });

  it.concurrent("SIGTERM finishes the requests in flight, then closes the cache and exits 0", async ({ expect }) => {
    const judge = await judgeServer(150);
    const dir = tempDir();
    const cache = join(dir, "cache.db");
    const live = await startServe(["--rubric", RUBRIC, "--judge", writeJudgeFile(dir, judge.url, { max_concurrency: 4 }), "--port", "0", "--cache", cache]);
    const pending = fetch(`${live.url}/v1/score`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ samples: samples(12) }) });
    while (judge.stats.requests < 1) await new Promise((r) => setTimeout(r, 5));
    live.child.kill("SIGTERM");
    const res = await pending;
    expect(res.status).toBe(200);
    const body = await jsonOf(res);
    expect(body.rewards).toHaveLength(12);
    expect(body.rewards.every((r: number | null) => typeof r === "number")).toBe(true);
    const exit = await live.exited;
    expect(exit.code).toBe(0);
    expect(live.stderr()).toMatch(/SIGTERM: finishing 1 request[\s\S]*stopped/);
    // Every paid answer reached the cache; the file is whole.
    expect(cacheRows(cache)).toBe(judge.stats.requests);
    expect(integrity(cache)).toBe("ok");
  });
});
