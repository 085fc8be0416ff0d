import { join } from "node:path";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createJudge } from "../../../src/judge/create.js";
import { fillCacheByBatch } from "../../../src/engine/batch/runner.js";
import { openBatchJobStore } from "../../../src/engine/batch/jobs.js";
import { score, scoreStream, type ScoreOptions } from "../../../src/score/score.js";
import { parseRubric } from "../../../src/rubric/load.js";
import { startBatchServer, type BatchServer } from "../../servers/batch-server.js";
import { judgeResponder } from "../../../src/testing/servers/judge-responder.js";
import { runCli, spawnCli, tempDir, writeJsonl } from "../../helpers/cli.js";

process.env.RUBRICATE_TEST_KEY = "sk-batch-test-key";
const servers: BatchServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

// Two rounds: `detail` is asked only when `mentions` is met, so batch mode needs a second batch.
const rubric = parseRubric(
  "id: b\ninputs: [response]\ncriteria:\n  - { id: mentions, question: Does it mention Paris?, points: 2 }\n  - { id: detail, question: Does it give a detail?, points: 1, when: mentions }\n  - { id: polite, question: Is it polite?, points: 1 }\n",
  { filename: "b.yaml" },
);
const decide = judgeResponder((q, view) => (q.id === "mentions" ? view.sample.includes("Paris") : q.id === "detail" ? view.sample.includes("tower") : true));
const samples = Array.from({ length: 12 }, (_, i) => ({ id: i, response: i % 3 === 0 ? "Paris has a tower." : i % 3 === 1 ? "Paris." : "London." }));
// A skipped `detail` counts in neither sum: "London." earns 1 of 3 possible points.
const expected = samples.map((s) => (s.response.includes("tower") ? 1 : s.response.includes("Paris") ? 0.75 : 1 / 3));

async function server(extra: Partial<Parameters<typeof startBatchServer>[0]> = {}) {
  const s = await startBatchServer({ respond: decide, ...extra });
  servers.push(s);
  return s;
}

const drainPass = (judge: ScoreOptions["judge"]) => async () => {
  for await (const _ of scoreStream(rubric, samples, { judge })) void _;
};

describe("batch mode", () => {
  it("answers every call through OpenAI batches, keyed like live calls, priced at the batch discount", async () => {
    const s = await server();
    const dir = tempDir();
    const cache = join(dir, "cache.db");
    const price = { input: 2, output: 8, batch_discount: 0.5 };
    const judge = createJudge({ provider: "openai", base_url: `${s.url}/v1`, model: "gpt-test", api_key_env: "RUBRICATE_TEST_KEY", price }, { cache });
    const store = openBatchJobStore(cache);
    const report = await fillCacheByBatch({ engine: judge.engine, provider: judge.provider, store, pass: drainPass(judge), pollMs: 5, price });
    store.close();
    // Round 1: one batched call per sample; round 2: `detail` for the 8 samples that mention Paris.
    expect(report).toMatchObject({ jobs: 2, submitted: 20, succeeded: 20, failed: 0, expired: 0, leftover: 0 });
    expect(report.usage.costUsd).toBeCloseTo(((report.usage.inputTokens * 2 + report.usage.outputTokens * 8) / 1e6) * 0.5);
    // Every custom_id is a cache key; the scoring pass after the batches is all cache hits.
    const results = await score(rubric, samples, { judge });
    expect(results.map((r) => r.reward)).toEqual(expected);
    expect(judge.engine.stats().usage.calls).toBe(0);
    expect(s.calls["POST /v1/chat/completions"]).toBeUndefined();
    judge.close?.();
  });

  it("retries failed and expired items in a new batch, and reads partial results of an expired one", async () => {
    let round = 0;
    const s = await server({ statuses: ["in_progress", "expired"], fate: (_id, i) => (round === 0 && i % 4 === 1 ? "expired" : round === 0 && i % 4 === 2 ? "failed" : "ok") });
    const judge = createJudge({ provider: "openai", base_url: `${s.url}/v1`, model: "gpt-test", api_key_env: "RUBRICATE_TEST_KEY" }, { cache: false });
    const store = openBatchJobStore(undefined);
    const report = await fillCacheByBatch({
      engine: judge.engine, provider: judge.provider, store, pollMs: 5,
      pass: async () => {
        await drainPass(judge)();
        round = s.jobs.length;
      },
    });
    expect(report.expired).toBe(3);
    expect(report.failed).toBe(3);
    expect(report.leftover).toBe(0);
    const ids = s.jobs.flatMap((j) => j.items.map((i) => i.customId));
    const succeeded = report.succeeded;
    // Only the 6 that did not come back were submitted again; nothing answered was resubmitted.
    expect(ids.length - new Set(ids).size).toBe(6);
    expect(succeeded).toBe(new Set(ids).size);
    expect((await score(rubric, samples, { judge })).map((r) => r.reward)).toEqual(expected);
    expect(judge.engine.stats().usage.calls).toBe(0);
  });

  it("works the same through Anthropic Message Batches", async () => {
    const s = await server();
    const judge = createJudge({ provider: "anthropic", base_url: s.url, model: "claude-test", api_key_env: "RUBRICATE_TEST_KEY" }, { cache: false });
    const report = await fillCacheByBatch({ engine: judge.engine, provider: judge.provider, store: openBatchJobStore(undefined), pass: drainPass(judge), pollMs: 5 });
    expect(report).toMatchObject({ jobs: 2, submitted: 20, succeeded: 20 });
    expect(s.calls["GET /v1/messages/batches/:id/results"]).toBe(2);
    expect((await score(rubric, samples, { judge })).map((r) => r.reward)).toEqual(expected);
    expect(judge.engine.stats().usage.calls).toBe(0);
  });

  it("a crash between submit and collect, then --resume: nothing resubmitted, every result read", async () => {
    const s = await server({ statuses: ["in_progress"] });
    const dir = tempDir();
    const input = writeJsonl(dir, "samples.jsonl", samples);
    const rubricPath = join(dir, "rubric.yaml");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(rubricPath, "id: b\ninputs: [response]\ncriteria:\n  - { id: mentions, question: Does it mention Paris?, points: 2 }\n  - { id: detail, question: Does it give a detail?, points: 1, when: mentions }\n  - { id: polite, question: Is it polite?, points: 1 }\n");
    const judgePath = join(dir, "judge.yaml");
    writeFileSync(judgePath, `provider: openai\nmodel: gpt-test\nbase_url: ${s.url}/v1\napi_key_env: RUBRICATE_TEST_KEY\n`);
    const args = ["score", rubricPath, input, "--judge", judgePath, "--cache", join(dir, "cache.db"), "--batch", "--poll-ms", "5", "-o", join(dir, "out.jsonl")];
    const child = spawnCli(args);
    const exited = new Promise((r) => child.on("close", r));
    while (s.jobs.length < 1 || (s.calls["GET /v1/batches/:id"] ?? 0) < 2) await new Promise((r) => setTimeout(r, 10));
    child.kill("SIGKILL");
    await exited;
    expect(s.jobs).toHaveLength(1);
    s.setOptions({ statuses: ["in_progress", "completed"] });
    const resumed = await runCli([...args, "--resume"]);
    expect(resumed.stderr).toContain("resuming 1 batch job(s)");
    expect(resumed.code).toBe(0);
    const ids = s.jobs.flatMap((j) => j.items.map((i) => i.customId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(s.jobs).toHaveLength(2);
    const out = readFileSync(join(dir, "out.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(out.map((r) => r.reward)).toEqual(expected);
    expect(s.calls["POST /v1/chat/completions"]).toBeUndefined();
  });
});
