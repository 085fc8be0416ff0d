/**
 * Batch mode against what the real batch services do and our happy-path server never did: lost
 * creates, size limits, failed batches, flaky polls, archived results, invalid items, pricing.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryCache } from "../../../src/engine/cache/memory.js";
import { createEngine } from "../../../src/engine/engine.js";
import { fillCacheByBatch, type BatchRunOptions } from "../../../src/engine/batch/runner.js";
import { openBatchJobStore } from "../../../src/engine/batch/jobs.js";
import { RubricateError } from "../../../src/errors.js";
import { createJudge } from "../../../src/judge/create.js";
import type { JudgeConfigInput } from "../../../src/judge/config.js";
import { score, scoreStream } from "../../../src/score/score.js";
import { parseRubric } from "../../../src/rubric/load.js";
import { startBatchServer, type BatchServer, type BatchServerOptions } from "../../servers/batch-server.js";
import { judgeResponder } from "../../../src/testing/servers/judge-responder.js";
import { runCli, spawnCli, tempDir, writeJsonl } from "../../helpers/cli.js";
import Anthropic from "@anthropic-ai/sdk";
import { createAnthropicBatchApi, customIdOf, keyOfCustomId } from "../../../src/providers/anthropic-batch.js";

process.env.RUBRICATE_TEST_KEY = "sk-batch-test-key";
const servers: BatchServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const RUBRIC_TEXT =
  "id: b\ninputs: [response]\ncriteria:\n  - { id: mentions, question: Does it mention Paris?, points: 2 }\n  - { id: detail, question: Does it give a detail?, points: 1, when: mentions }\n  - { id: polite, question: Is it polite?, points: 1 }\n";
const rubric = parseRubric(RUBRIC_TEXT, { filename: "b.yaml" });
const decide = judgeResponder((q, view) => (q.id === "mentions" ? view.sample.includes("Paris") : q.id === "detail" ? view.sample.includes("tower") : true));
const samples = Array.from({ length: 12 }, (_, i) => ({ id: i, response: i % 3 === 0 ? "Paris has a tower." : i % 3 === 1 ? "Paris." : "London." }));
const expected = samples.map((s) => (s.response.includes("tower") ? 1 : s.response.includes("Paris") ? 0.75 : 1 / 3));
type Kind = "openai" | "anthropic";

async function server(extra: Partial<BatchServerOptions> = {}) {
  const s = await startBatchServer({ respond: decide, ...extra });
  servers.push(s);
  return s;
}

function judgeFor(kind: Kind, s: BatchServer, extra: Partial<JudgeConfigInput> = {}, cache: string | false = false) {
  const base_url = kind === "openai" ? `${s.url}/v1` : s.url;
  return createJudge({ provider: kind, base_url, model: kind === "openai" ? "gpt-test" : "claude-test", api_key_env: "RUBRICATE_TEST_KEY", ...extra }, { cache });
}

async function run(judge: ReturnType<typeof judgeFor>, extra: Partial<BatchRunOptions> = {}) {
  const events: string[] = [];
  const report = await fillCacheByBatch({
    engine: judge.engine, provider: judge.provider, store: openBatchJobStore(undefined), pollMs: 5, maxPollMs: 20, onEvent: (e) => events.push(e),
    pass: async () => {
      for await (const _ of scoreStream(rubric, samples, { judge })) void _;
    },
    ...extra,
  });
  return { report, events };
}

const allIds = (s: BatchServer) => s.jobs.flatMap((j) => j.items.map((i) => i.customId));
async function expectAllAnsweredFromCache(judge: ReturnType<typeof judgeFor>) {
  expect((await score(rubric, samples, { judge })).map((r) => r.reward)).toEqual(expected);
  expect(judge.engine.stats().usage.calls).toBe(0);
}

describe.each<Kind>(["openai", "anthropic"])("%s batches: never pay twice", (kind) => {
  it("the create has its own long timeout, not the judge's timeout_ms", async () => {
    const s = await server({ createDelayMs: 300 });
    const judge = judgeFor(kind, s, { timeout_ms: 100 });
    const { report } = await run(judge);
    expect(report).toMatchObject({ jobs: 2, submitted: 20, succeeded: 20, found: 0 });
    expect(s.jobs).toHaveLength(2);
    await expectAllAnsweredFromCache(judge);
  });

  it("a create that times out after the provider made the batch is found, not resubmitted", async () => {
    // Margins for a loaded machine: the upload must fit in the create timeout, the batch's answer must not.
    const s = await server({ createDelayMs: 2_000 });
    const judge = judgeFor(kind, s, { timeout_ms: 500 });
    const { report, events } = await run(judge, { createTimeoutMs: 500 });
    // Two rounds, two batches: each create timed out on the client and was found by a lookup.
    expect(s.jobs).toHaveLength(2);
    expect(new Set(allIds(s)).size).toBe(allIds(s).length);
    expect(report).toMatchObject({ jobs: 2, found: 2, submitted: 20, succeeded: 20 });
    expect(events.some((e) => e.includes("found"))).toBe(true);
    await expectAllAnsweredFromCache(judge);
  });

  it("Ctrl-C during a create lets it finish, records the batch, and the next run collects it", async () => {
    const s = await server({ createDelayMs: 300 });
    const judge = judgeFor(kind, s);
    const store = openBatchJobStore(join(tempDir(), "jobs.db"));
    const controller = new AbortController();
    const pass = async () => {
      for await (const _ of scoreStream(rubric, samples, { judge })) void _;
    };
    const watcher = setInterval(() => s.jobs.length > 0 && controller.abort(), 5);
    const first = fillCacheByBatch({ engine: judge.engine, provider: judge.provider, store, pass, pollMs: 5, signal: controller.signal });
    await expect(first).rejects.toMatchObject({ code: "ABORTED" });
    clearInterval(watcher);
    expect(s.jobs).toHaveLength(1);
    expect(store.active(judge.provider.name, judge.provider.baseURL ?? "")[0]).toMatchObject({ state: "submitted", remoteId: s.jobs[0].id });
    s.setOptions({ createDelayMs: 0 });
    const report = await fillCacheByBatch({ engine: judge.engine, provider: judge.provider, store, pass, pollMs: 5 });
    expect(report.resumedJobs).toBe(1);
    expect(new Set(allIds(s)).size).toBe(allIds(s).length);
    store.close();
    await expectAllAnsweredFromCache(judge);
  });

  it("SIGKILL during create, then --resume: the batch is found and collected, nothing paid twice", async () => {
    const s = await server({ createDelayMs: 60_000 });
    const dir = tempDir();
    const input = writeJsonl(dir, "samples.jsonl", samples);
    const rubricPath = join(dir, "rubric.yaml");
    writeFileSync(rubricPath, RUBRIC_TEXT);
    const judgePath = join(dir, "judge.yaml");
    const base = kind === "openai" ? `${s.url}/v1` : s.url;
    writeFileSync(judgePath, `provider: ${kind}\nmodel: test-model\nbase_url: ${base}\napi_key_env: RUBRICATE_TEST_KEY\n`);
    const args = ["score", rubricPath, input, "--judge", judgePath, "--cache", join(dir, "cache.db"), "--batch", "--poll-ms", "5", "-o", join(dir, "out.jsonl")];
    // The killed run cannot remove its folder of deferred requests: made in the test's folder, it goes with it.
    const env = { TMPDIR: dir };
    const child = spawnCli(args, { env });
    const exited = new Promise((r) => child.on("close", r));
    // The provider has made the batch; its answer to the create never reaches the client.
    while (s.jobs.length < 1) await new Promise((r) => setTimeout(r, 10));
    child.kill("SIGKILL");
    await exited;
    s.setOptions({ createDelayMs: 0 });
    const resumed = await runCli([...args, "--resume"], { env });
    expect(resumed.stderr).toContain("found batch");
    expect(resumed.code).toBe(0);
    expect(new Set(allIds(s)).size).toBe(allIds(s).length);
    expect(s.jobs).toHaveLength(2);
    expect(s.calls["POST /v1/chat/completions"] ?? s.calls["POST /v1/messages"]).toBeUndefined();
  });

  it("chunks are cut by the provider's byte limit as well as the count", async () => {
    const maxBytes = 6_000;
    const s = await server({ limits: { [kind]: { maxItems: 50_000, maxBytes } } });
    const judge = judgeFor(kind, s);
    const { report } = await run(judge, { maxBytes });
    expect(s.violations).toEqual([]);
    expect(s.jobs.length).toBeGreaterThan(2);
    for (const job of s.jobs) expect(job.bytes).toBeLessThanOrEqual(maxBytes);
    expect(report).toMatchObject({ submitted: 20, succeeded: 20, leftover: 0 });
    await expectAllAnsweredFromCache(judge);
  });

  it("polls and result reads survive 429 and 5xx; a missing batch is a warning and its requests go again", async () => {
    const poll = kind === "openai" ? "GET /v1/batches/:id" : "GET /v1/messages/batches/:id";
    const read = kind === "openai" ? "GET /v1/files/:id/content" : "GET /v1/messages/batches/:id/results";
    const s = await server({ fault: (route, n) => (route === poll && n <= 2 ? [503, 429][n - 1] : route === read && n === 1 ? 500 : undefined), missing: (job) => job.seq === 1 });
    const judge = judgeFor(kind, s);
    const { report, events } = await run(judge);
    expect(report.lost).toBe(1);
    expect(events.some((e) => e.startsWith("warning:") && e.includes("404"))).toBe(true);
    // The lost batch's requests were asked again in a new batch, once.
    expect(s.jobs.length).toBe(3);
    await expectAllAnsweredFromCache(judge);
  });

  it("archived or expired results: collected with a warning, the requests asked again", async () => {
    const s = await server({ archived: (job) => job.seq === 1 });
    const judge = judgeFor(kind, s);
    const { report, events } = await run(judge);
    expect(report.lost).toBe(1);
    expect(events.some((e) => e.startsWith("warning:"))).toBe(true);
    await expectAllAnsweredFromCache(judge);
  });

  it("requests the provider refuses as invalid are reported, not resubmitted", async () => {
    const s = await server({ fate: (_id, i, job) => (job.seq === 1 && i % 4 === 1 ? "invalid" : job.seq === 1 && i % 4 === 2 ? "failed" : "ok") });
    const judge = judgeFor(kind, s);
    const { report, events } = await run(judge);
    const first = new Set(s.jobs[0].items.filter((_, i) => i % 4 === 1).map((i) => i.customId));
    const later = s.jobs.slice(1).flatMap((j) => j.items.map((i) => i.customId));
    expect(later.filter((id) => first.has(id))).toEqual([]);
    expect(report.rejected).toBe(3);
    expect(report.failed).toBe(3);
    expect(events.some((e) => e.includes("rejected") && e.includes("not resubmitted"))).toBe(true);
    // The 5xx ones were asked again.
    expect(later.length).toBeGreaterThanOrEqual(3);
  });

  it("prices at the provider's 50% batch discount by default, and prices cache writes", async () => {
    const s = await server({ respond: (body) => ({ ...(typeof decide(body) === "string" ? { text: decide(body) as string } : (decide(body) as object)), usage: { input: 1000, output: 10, cached: 0, cacheWrite: kind === "anthropic" ? 500 : 0 } }) });
    const price = { input: 2, output: 8 };
    const judge = judgeFor(kind, s, { price });
    const { report } = await run(judge, { price });
    // Anthropic counts input_tokens apart from cache writes; rubricate reports their sum.
    const input = kind === "anthropic" ? 1500 : 1000;
    const writes = kind === "anthropic" ? 500 : 0;
    const perCall = (input * 2 + 10 * 8 + writes * (2 * 1.25 - 2)) / 1e6;
    expect(report.usage.costUsd).toBeCloseTo(report.succeeded * perCall * 0.5, 10);
  });
});

describe("what batch requests carry and what a run that falls back live says", () => {
  it("an Anthropic judge's temperature reaches the batch requests", async () => {
    const s = await server();
    await run(judgeFor("anthropic", s, { temperature: 0 }));
    expect(s.jobs[0].items.every((i) => i.body.temperature === 0)).toBe(true);
  });

  it("rounds that run out warn with the live price of what is left", async () => {
    const s = await server({ fate: () => "failed" });
    const price = { input: 2, output: 8 };
    const { report, events } = await run(judgeFor("openai", s, { price }), { maxRounds: 1, price });
    expect(report.leftover).toBe(12);
    expect(report.leftoverLiveCostUsd).toBeGreaterThan(0);
    expect(events.find((e) => e.includes("asked live"))).toMatch(/^warning: 12 request\(s\) .* full live price \(roughly \$\d+\.\d{4}\)$/);
  });
});

describe("OpenAI failed batches", () => {
  it("a validation failure stops batch mode with the provider's message; nothing resubmitted", async () => {
    const s = await server({ failBatch: () => [{ code: "invalid_json_line", message: "This line is not parseable as valid JSON.", line: 3 }] });
    const judge = judgeFor("openai", s);
    const failure = run(judge);
    await expect(failure).rejects.toBeInstanceOf(RubricateError);
    await expect(failure).rejects.toThrow(/line 3: This line is not parseable as valid JSON\. \(invalid_json_line\)/);
    expect(s.jobs).toHaveLength(1);
  });

  it("an enqueued token limit resubmits the requests one batch at a time", async () => {
    const s = await server({ failBatch: (job) => (job.seq <= 3 ? [{ code: "token_limit_exceeded", message: "Enqueued token limit reached for gpt-test.", line: null }] : undefined) });
    const judge = judgeFor("openai", s);
    const { report, events } = await run(judge, { maxItems: 4 });
    expect(s.jobs.slice(0, 3).map((j) => j.errors?.[0].code)).toEqual(["token_limit_exceeded", "token_limit_exceeded", "token_limit_exceeded"]);
    expect(events.some((e) => e.includes("one batch at a time"))).toBe(true);
    // After the failure no batch was created while another was still running.
    for (const job of s.jobs.slice(3)) expect(job.concurrent).toBe(0);
    expect(report.leftover).toBe(0);
    await expectAllAnsweredFromCache(judge);
  });
});

describe("batch mode needs a cache that keeps its answers", () => {
  it("score --batch --no-cache is refused with a one-line reason before anything is paid", async () => {
    const s = await server();
    const dir = tempDir();
    const input = writeJsonl(dir, "samples.jsonl", samples);
    const rubricPath = join(dir, "rubric.yaml");
    writeFileSync(rubricPath, RUBRIC_TEXT);
    const judgePath = join(dir, "judge.yaml");
    writeFileSync(judgePath, `provider: openai\nmodel: gpt-test\nbase_url: ${s.url}/v1\napi_key_env: RUBRICATE_TEST_KEY\n`);
    const result = await runCli(["score", rubricPath, input, "--judge", judgePath, "--no-cache", "--batch", "-o", join(dir, "out.jsonl")]);
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/--batch .*cache/);
    expect(Object.keys(s.calls)).toEqual([]);
  });

  it("a memory-only cache too small for the run is refused before submitting", async () => {
    const s = await server();
    const engine = createEngine({ cache: new MemoryCache(5), limits: { maxConcurrency: 8, maxRetries: 0, timeoutMs: 60_000 } });
    const judge = createJudge({ provider: "openai", base_url: `${s.url}/v1`, model: "gpt-test", api_key_env: "RUBRICATE_TEST_KEY" }, { engine });
    await expect(run(judge as ReturnType<typeof judgeFor>)).rejects.toThrow(/memory-only cache keeps 5/);
    expect(s.jobs).toHaveLength(0);
  });
});

/*
 * Anthropic Message Batches, as @anthropic-ai/sdk (resources/messages/batches.d.ts) describes them:
 * - `batches.list(params)`: PageParams `limit`, `before_id`, `after_id` only; newest first; every
 *   batch of the workspace, whoever made it. A MessageBatch has id, processing_status
 *   ("in_progress" | "canceling" | "ended"), request_counts {processing, succeeded, errored,
 *   canceled, expired}, created_at, ended_at, archived_at, results_url: no metadata.
 * - `batches.results(id)`: JSONL, one MessageBatchIndividualResponse a line, `{ custom_id, result }`
 *   with result `{ type: "succeeded", message } | { type: "errored", error } | { type: "canceled" } |
 *   { type: "expired" }`, in any order; only once the batch has ended.
 * - custom_id: `^[a-zA-Z0-9_-]{1,64}$`, unique within a batch.
 * So a batch proves whose it is only through its results' custom_ids: each job's carry its nonce.
 */
describe("Anthropic: a create whose answer was lost adopts only its own batch", () => {
  const stranger = async (s: BatchServer, count: number) => {
    const client = new Anthropic({ apiKey: "k", baseURL: s.url, maxRetries: 0 });
    const params = { model: "claude-test", max_tokens: 16, messages: [{ role: "user" as const, content: "another process's request" }] };
    return client.messages.batches.create({ requests: Array.from({ length: count }, (_, i) => ({ custom_id: `other${i}`, params })) });
  };
  const firstCreateFails = (route: string, n: number) => (route === "POST /v1/messages/batches" && n === 2 ? 500 : undefined);

  it("custom_ids carry the job's nonce and the cache key, and read back to both", () => {
    const key = "ab".repeat(32);
    const id = customIdOf(key, "n0nce-_n0nce");
    expect(id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(keyOfCustomId(id)).toEqual({ key, nonce: "n0nce-_n0nce" });
    expect(keyOfCustomId(key)).toEqual({ key });
  });

  it("another process's ended batch of the same size is not adopted: ours is sent (once)", async () => {
    const s = await server({ fault: firstCreateFails });
    await stranger(s, 12);
    const { report, events } = await run(judgeFor("anthropic", s));
    expect(report.found).toBe(0);
    expect(events.some((e) => e.includes("found"))).toBe(false);
    // The stranger, then our two rounds (the 500 made no batch).
    expect(s.jobs.map((j) => j.items.length)).toEqual([12, 12, 8]);
  });

  it("while another batch of the same size is still running, nothing is sent again until it ended without our requests", async () => {
    const s = await server({ fault: firstCreateFails });
    await stranger(s, 12);
    const other = s.jobs[0];
    // Running until our lookup has seen it (stamped in the future, it has not started its last step), then it ends.
    other.createdAt = Date.now() + 3_600_000;
    const events: string[] = [];
    const onEvent = (e: string) => {
      events.push(e);
      if (e.includes("still running; waiting")) other.createdAt = Date.now() - 60_000;
    };
    const { report } = await run(judgeFor("anthropic", s), { onEvent });
    expect(report.found).toBe(0);
    expect(events.some((e) => e.includes("still running; waiting"))).toBe(true);
    const ours = s.jobs[1];
    expect(ours.createdAt).toBeGreaterThanOrEqual(other.processedAt!);
    expect(ours.items).toHaveLength(12);
  });

  it("our own batch, made though its create failed, is found by its nonce even beside a closer stranger, and collected", async () => {
    // The create is carried out, then answered too late; a stranger of the same size is made meanwhile.
    const s = await server({ createDelayMs: 1_000 });
    const judge = judgeFor("anthropic", s);
    const made = new Promise<void>((resolve) => {
      let asked = false;
      const t = setInterval(() => {
        if (s.jobs.length === 1 && !asked) {
          asked = true;
          void stranger(s, 12).catch(() => undefined); // answered after the test ends
        }
        if (s.jobs.length === 2) {
          // Stamped a moment before ours (its create answer is also late): nearer the job's record than ours, so time and size alone would pick it.
          s.jobs[1].createdAt = s.jobs[0].createdAt - 1;
          clearInterval(t);
          resolve();
        }
      }, 1);
    });
    const { report } = await run(judge, { createTimeoutMs: 300 });
    await made;
    expect(report.found).toBeGreaterThanOrEqual(1);
    const ours = s.jobs.filter((j) => j.items[0].customId !== "other0");
    expect(new Set(ours.flatMap((j) => j.items.map((i) => i.customId))).size).toBe(20);
    expect(ours.flatMap((j) => j.items)).toHaveLength(20);
    await expectAllAnsweredFromCache(judge);
  });

  it("the byte cap is under both readings of the documented 256 MB (256,000,000 bytes and 250 MiB)", () => {
    const api = createAnthropicBatchApi(async () => new Anthropic({ apiKey: "k" }), []);
    expect(api.limits.maxBytes).toBeLessThanOrEqual(256_000_000);
    expect(api.limits.maxBytes).toBeLessThanOrEqual(250 * 1024 * 1024);
  });
});

/*
 * OpenAI (openai/resources/batches.d.ts): `batches.list` takes CursorPageParams `after` and `limit`
 * only, newest first, 100 a page at most; a Batch carries `metadata` (ours: rubricate_job),
 * `input_file_id`, `output_file_id` and `error_file_id`, whose contents (`files.content`) are JSONL
 * lines `{ id, custom_id, response: { status_code, request_id, body } | null, error }`. Both APIs
 * page the list and stream results: an error can come on page 2 or in the middle of a download.
 */
describe.each<Kind>(["openai", "anthropic"])("%s: errors past the first request of a list or a download", (kind) => {
  const list = kind === "openai" ? "GET /v1/batches" : "GET /v1/messages/batches";
  const create = kind === "openai" ? "POST /v1/batches" : "POST /v1/messages/batches";
  const read = kind === "openai" ? "GET /v1/files/:id/content" : "GET /v1/messages/batches/:id/results";

  it("a 429 on the second page of a lookup is retried, not fatal", async () => {
    const s = await server();
    // More than a page (100) of the workspace's batches, all inside the job's time window.
    if (kind === "anthropic") {
      const client = new Anthropic({ apiKey: "k", baseURL: s.url, maxRetries: 0 });
      const params = { model: "claude-test", max_tokens: 16, messages: [{ role: "user" as const, content: "x" }] };
      for (let i = 0; i < 101; i++) await client.messages.batches.create({ requests: [{ custom_id: `other${i}`, params }] });
    } else {
      const { default: OpenAI, toFile } = await import("openai");
      const client = new OpenAI({ apiKey: "k", baseURL: `${s.url}/v1`, maxRetries: 0 });
      const file = await client.files.create({ file: await toFile(Buffer.from('{"custom_id":"o","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[]}}\n'), "o.jsonl"), purpose: "batch" });
      for (let i = 0; i < 101; i++) await client.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    }
    // Our first create fails without an answer (a 500: the client cannot know it made nothing), so it looks; page 2 answers 429.
    const made = s.calls[create];
    s.setOptions({ fault: (route, n) => (route === create && n === made + 1 ? 500 : route === list && n === 2 ? 429 : undefined) });
    const judge = judgeFor(kind, s);
    const { report, events } = await run(judge);
    expect(s.calls[list]).toBeGreaterThanOrEqual(3);
    expect(events.some((e) => e.includes("429"))).toBe(true);
    expect(report).toMatchObject({ leftover: 0, found: 0 });
    await expectAllAnsweredFromCache(judge);
  });

  it("a result download cut half-way is read again, skipping what was read", async () => {
    const s = await server({ chunkBytes: 256, cut: (route, n) => (route === read && n === 1 ? 1500 : undefined) });
    const judge = judgeFor(kind, s);
    const { report, events } = await run(judge);
    expect(events.some((e) => /connection lost|trying again/.test(e))).toBe(true);
    expect(report).toMatchObject({ succeeded: 20, leftover: 0, lost: 0 });
    expect(s.jobs).toHaveLength(2);
    await expectAllAnsweredFromCache(judge);
  });

  it("results that keep answering 404 stop batch mode with a clear error after one resubmission, instead of paying every round", async () => {
    const s = await server({ resultsGone: () => true });
    const failure = run(judgeFor(kind, s), { maxRounds: 5 });
    await expect(failure).rejects.toMatchObject({ code: "BATCH_FAILED" });
    await expect(failure).rejects.toThrow(/gone \(404.*batch mode stopped rather than pay for the same requests again/);
    expect(s.jobs).toHaveLength(2);
  });
});
