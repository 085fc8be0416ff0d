import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { runCli, spawnCli, tempDir, writeJsonl, writeJudgeFile } from "../helpers/cli.js";
import { cacheRows, integrity } from "../helpers/cache-db.js";

const SECRET = "sk-test-SECRET-9f8e7d6c5b4a";
const RUBRIC = "tests/fixtures/rubrics/ten-questions.yaml";
const servers: TestServer<unknown>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const sampleRows = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ id: from + i, question: "Where is it?", response: `Answer number ${from + i} is Paris.` }));
const truth = (id: string) => ["q1", "q3"].includes(id);



describe("a killed run resumes without paying twice", () => {
  it("SIGKILL midway, re-run: the second run pays only for what the first had not cached", async () => {
    const server = await startOpenAIServer({ respond: judgeResponder((q) => truth(q.id)), latencyMs: 20 });
    servers.push(server as TestServer<unknown>);
    const dir = tempDir();
    const total = 120;
    const samples = writeJsonl(dir, "samples.jsonl", sampleRows(total));
    const judge = writeJudgeFile(dir, server.url);
    const cache = join(dir, "cache.db");
    const args = ["score", RUBRIC, samples, "--judge", judge, "--cache", cache, "-o", join(dir, "out.jsonl"), "-q"];
    const env = { RUBRICATE_TEST_KEY: SECRET };

    const child = spawnCli(args, { env });
    const exited = new Promise((r) => child.on("close", r));
    while (server.stats.requests < 40) await new Promise((r) => setTimeout(r, 10));
    child.kill("SIGKILL");
    await exited;
    const firstRequests = server.stats.requests;
    expect(firstRequests).toBeLessThan(total);
    expect(integrity(cache)).toBe("ok");
    const cachedAfterKill = cacheRows(cache);
    expect(cachedAfterKill).toBeGreaterThan(0);
    // No results file is half-written: it is only renamed into place when a run finishes.
    expect(existsSync(join(dir, "out.jsonl"))).toBe(false);

    const second = await runCli(args, { env });
    expect(second.code).toBe(0);
    const secondRequests = server.stats.requests - firstRequests;
    expect(secondRequests).toBe(total - cachedAfterKill);
    expect(cacheRows(cache)).toBe(total);
    expect(integrity(cache)).toBe("ok");
    const results = readFileSync(join(dir, "out.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(results.map((r) => r.id)).toEqual(sampleRows(total).map((s) => s.id));
    expect(results.every((r) => r.reward === 2 / 9)).toBe(true);

    // A third run of the finished job makes no call at all.
    const third = await runCli(args, { env });
    expect(third.code).toBe(0);
    expect(server.stats.requests - firstRequests - secondRequests).toBe(0);

    // The key was sent to the server but never written to the cache file (or its WAL).
    expect(server.requests.every((r) => r.apiKeySent)).toBe(true);
    for (const file of [cache, `${cache}-wal`, `${cache}-shm`, join(dir, "out.jsonl")]) {
      if (existsSync(file)) expect(readFileSync(file).includes(SECRET)).toBe(false);
    }
  });

  it("two processes scoring overlapping samples share one cache file", async () => {
    const server = await startOpenAIServer({ respond: judgeResponder((q) => truth(q.id)), latencyMs: 10 });
    servers.push(server as TestServer<unknown>);
    const dir = tempDir();
    const a = writeJsonl(dir, "a.jsonl", sampleRows(60, 0));
    const b = writeJsonl(dir, "b.jsonl", sampleRows(60, 30));
    const judge = writeJudgeFile(dir, server.url);
    const cache = join(dir, "cache.db");
    const env = { RUBRICATE_TEST_KEY: SECRET };
    const [ra, rb] = await Promise.all([
      runCli(["score", RUBRIC, a, "--judge", judge, "--cache", cache, "-o", join(dir, "a.out"), "-q"], { env }),
      runCli(["score", RUBRIC, b, "--judge", judge, "--cache", cache, "-o", join(dir, "b.out"), "-q"], { env }),
    ]);
    expect([ra.code, rb.code, ra.stderr + rb.stderr]).toEqual([0, 0, ""]);
    const distinct = 90;
    // Each distinct sample is paid at least once; an overlap may be paid twice only if both asked at the same moment.
    expect(server.stats.requests).toBeGreaterThanOrEqual(distinct);
    expect(server.stats.requests).toBeLessThanOrEqual(120);
    expect(cacheRows(cache)).toBe(distinct);
    expect(integrity(cache)).toBe("ok");
    const outA = readFileSync(join(dir, "a.out"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const outB = readFileSync(join(dir, "b.out"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect([...outA, ...outB].every((r) => r.reward === 2 / 9 && r.errors.length === 0)).toBe(true);
    // A re-run of either file now pays nothing.
    const before = server.stats.requests;
    await runCli(["score", RUBRIC, b, "--judge", judge, "--cache", cache, "-o", join(dir, "b2.out"), "-q"], { env });
    expect(server.stats.requests).toBe(before);
  });
});

describe("Ctrl-C", () => {
  it("SIGINT stops cleanly: exit 130, paid answers cached, no half-written results file", async () => {
    const server = await startOpenAIServer({ respond: judgeResponder((q) => truth(q.id)), latencyMs: 30 });
    servers.push(server as TestServer<unknown>);
    const dir = tempDir();
    const samples = writeJsonl(dir, "samples.jsonl", sampleRows(200));
    const judge = writeJudgeFile(dir, server.url);
    const cache = join(dir, "cache.db");
    const out = join(dir, "out.jsonl");
    const child = spawnCli(["score", RUBRIC, samples, "--judge", judge, "--cache", cache, "-o", out], { env: { RUBRICATE_TEST_KEY: SECRET } });
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
    while (server.stats.requests < 20) await new Promise((r) => setTimeout(r, 10));
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toContain("SIGINT: stopping");
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.partial`)).toBe(true);
    expect(integrity(cache)).toBe("ok");
    const cached = cacheRows(cache);
    expect(cached).toBeGreaterThan(0);
    // Every line kept in the partial file is a complete, parseable result.
    const partial = readFileSync(`${out}.partial`, "utf8").split("\n").filter(Boolean);
    for (const line of partial) expect(JSON.parse(line).reward).toBe(2 / 9);
  });
});
