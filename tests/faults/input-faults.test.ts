/**
 * Fault cases from issue 16: a hostile or careless input loses nothing and hangs nothing.
 * - bad JSONL lines among good ones: every good sample scored and cached, every bad line named,
 *   exit 3; a re-run pays nothing again;
 * - a regex that backtracks catastrophically: the run finishes at once, that criterion
 *   a no past its deadline (lookaround: the response made it backtrack) or a plain answer (RE2), never a hang;
 * - a server asking to retry after 28 hours: that call fails at once, the run finishes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import type { TestServer } from "../../src/testing/servers/common.js";
import { cacheRows, checkResults, makeJob, readResults, startRun, truth } from "./harness.js";

const servers: TestServer<unknown>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("input faults", () => {
  it("bad lines among 30 samples: 27 scored and cached, 3 named, exit 3; a re-run pays nothing", async () => {
    const server = await startOpenAIServer({ respond: judgeResponder((q, view) => truth(Number(/Sample #(\d+)/.exec(view.sample)![1]), q.id)), recordBodies: false });
    servers.push(server as TestServer<unknown>);
    const job = makeJob(server.url, 30);
    const lines = readFileSync(job.samples, "utf8").trim().split("\n");
    for (const i of [4, 15, 29]) lines[i] = i === 15 ? "[not, an, object]" : `{"id": ${i}, "response": "cut`;
    writeFileSync(job.samples, `\uFEFF${lines.join("\n")}\n`);
    const run = await startRun(job.args).done;
    expect(run.code, run.stderr).toBe(3);
    for (const [line, col] of [[5, 27], [16, 3], [30, 28]]) expect(run.stderr).toContain(`${job.samples}:${line}:${col}: `);
    const results = readResults(job.out);
    expect(results).toHaveLength(30);
    const good = results.filter((r) => r.reward !== null);
    expect(good).toHaveLength(27);
    const check = checkResults(good, good.map((r) => Number((r as { id?: number }).id)));
    expect([check.invented, check.unnamed]).toEqual([[], []]);
    const paid = server.stats.requests;
    expect(cacheRows(job.cache)).toBe(paid);
    const again = await startRun(job.args).done;
    expect(again.code).toBe(3);
    expect(server.stats.requests).toBe(paid);
    console.log(`faults (bad input lines): 30 lines, 3 bad named by line, 27 scored with ${paid} paid calls, re-run paid 0, exit 3`);
  }, 60_000);

  it("catastrophic regexes in a rubric: the run ends at once, the lookaround one a no (the response made it backtrack: not an error --errors skip-criterion would drop)", async () => {
    const dir = makeJob("http://127.0.0.1:9/v1", 1).dir;
    const rubric = join(dir, "redos.yaml");
    writeFileSync(rubric, ["id: redos", "version: 1", "criteria:", "  - id: nested", "    check: { regex: '(a+)+$' }", "  - id: guarded", "    check: { regex: '^(?=(a+)+$)' }"].join("\n"));
    const samples = join(dir, "evil.jsonl");
    writeFileSync(samples, `${JSON.stringify({ id: 1, response: `${"a".repeat(34)}b` })}\n${JSON.stringify({ id: 2, response: "aaaa" })}\n`);
    const out = join(dir, "out.jsonl");
    const started = Date.now();
    const run = await startRun(["score", rubric, samples, "-o", out, "-q"]).done;
    const seconds = (Date.now() - started) / 1000;
    expect(run.code, run.stderr).toBe(0);
    const results = readResults(out);
    expect(results[0].reward).toBe(0);
    expect(results[0].errors).toEqual([]);
    expect(JSON.stringify(results[0])).toMatch(/backtrack/);
    expect(results[1].reward).toBe(1);
    console.log(`faults (regex DoS): (a+)+$ answered by RE2, ^(?=(a+)+$) stopped at its deadline and failed; run took ${seconds.toFixed(1)} s, exit 0`);
  }, 60_000);

  it("retry-after of 28 hours: that call fails at once with the wait named; the run finishes", async () => {
    const server = await startOpenAIServer({ respond: judgeResponder(() => true), sequence: ["429"], retryAfterSeconds: 100_000, recordBodies: false });
    servers.push(server as TestServer<unknown>);
    // "At once": a run that waited even the 10-minute cap, let alone the 28 hours, would end at this test's 60 s timeout.
    const job = makeJob(server.url, 3, { max_retry_wait_ms: 600_000, max_concurrency: 1 });
    const run = await startRun(job.args).done;
    const results = readResults(job.out);
    expect(results).toHaveLength(3);
    const failed = results.filter((r) => r.reward === null);
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(failed[0].errors)).toMatch(/asked to wait 27\.8 h/);
    expect(run.code).toBe(3);
    console.log(`faults (retry-after 28 h): ${failed.length} call(s) failed at once naming the wait, ${3 - failed.length} scored, exit 3`);
  }, 60_000);
});
