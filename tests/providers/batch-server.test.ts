/**
 * The batch test server holds clients to the providers' limits and rules, spoken to through the
 * official SDKs: a client that breaks one is told so the way the real service tells it.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI, { toFile } from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startBatchServer, type BatchServer } from "../servers/batch-server.js";

const servers: BatchServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function server(limits?: { maxItems: number; maxBytes: number }) {
  const s = await startBatchServer({ respond: () => "yes", limits: limits && { openai: limits, anthropic: limits } });
  servers.push(s);
  return s;
}
const params = { model: "claude-test", max_tokens: 16, messages: [{ role: "user" as const, content: "Hi" }] };
const line = (id: string) => JSON.stringify({ custom_id: id, method: "POST", url: "/v1/chat/completions", body: { model: "gpt-test", messages: [{ role: "user", content: "Hi" }] } });

describe("Anthropic Message Batches rules", () => {
  it.each([
    ["a custom_id outside ^[a-zA-Z0-9_-]{1,64}$", [{ custom_id: "has space", params }], /should match pattern/],
    ["a custom_id of 65 characters", [{ custom_id: "a".repeat(65), params }], /should match pattern/],
    ["a repeated custom_id", [{ custom_id: "a", params }, { custom_id: "a", params }], /unique/],
    ["more requests than the limit", [1, 2, 3].map((i) => ({ custom_id: `r${i}`, params })), /at most 2 items/],
  ])("%s is a 400 invalid_request_error, and no batch is made", async (_name, requests, message) => {
    const s = await server({ maxItems: 2, maxBytes: 1_000_000 });
    const client = new Anthropic({ apiKey: "k", baseURL: s.url, maxRetries: 0 });
    const error = await client.messages.batches.create({ requests }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).message).toMatch(message);
    expect(s.jobs).toHaveLength(0);
  });

  it("a body over the byte limit is a 413", async () => {
    const s = await server({ maxItems: 100, maxBytes: 500 });
    const client = new Anthropic({ apiKey: "k", baseURL: s.url, maxRetries: 0 });
    const requests = Array.from({ length: 5 }, (_, i) => ({ custom_id: `r${i}`, params }));
    const error = await client.messages.batches.create({ requests }).catch((e: unknown) => e);
    expect((error as { status?: number }).status).toBe(413);
    expect(s.jobs).toHaveLength(0);
  });
});

describe("OpenAI Batch API rules", () => {
  it.each([
    ["a repeated custom_id", ["a", "b", "a"], { maxItems: 10, maxBytes: 1_000_000 }, { code: "duplicate_custom_id", line: 3 }],
    ["more requests than the limit", ["a", "b", "c"], { maxItems: 2, maxBytes: 1_000_000 }, { code: "too_many_requests" }],
    ["a file over the byte limit", ["a", "b", "c"], { maxItems: 10, maxBytes: 200 }, { code: "file_too_large" }],
  ])("%s fails the batch with errors.data", async (_name, ids, limits, expected) => {
    const s = await server(limits);
    const client = new OpenAI({ apiKey: "k", baseURL: `${s.url}/v1`, maxRetries: 0 });
    const file = await client.files.create({ file: await toFile(Buffer.from(`${ids.map(line).join("\n")}\n`), "in.jsonl"), purpose: "batch" });
    const created = await client.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    let failed = await client.batches.retrieve(created.id);
    while (failed.status === "validating") failed = await client.batches.retrieve(created.id);
    expect(failed.status).toBe("failed");
    expect(failed.errors?.data).toEqual(expect.arrayContaining([expect.objectContaining(expected)]));
    expect(failed.output_file_id).toBeNull();
  });

  it("lists batches newest first with their metadata, paged by cursor", async () => {
    const s = await server();
    const client = new OpenAI({ apiKey: "k", baseURL: `${s.url}/v1`, maxRetries: 0 });
    const file = await client.files.create({ file: await toFile(Buffer.from(`${line("a")}\n`), "in.jsonl"), purpose: "batch" });
    for (const job of ["j1", "j2", "j3"]) await client.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h", metadata: { rubricate_job: job } });
    const seen: string[] = [];
    for await (const batch of client.batches.list({ limit: 2 })) seen.push(batch.metadata?.rubricate_job ?? "");
    expect(seen).toEqual(["j3", "j2", "j1"]);
  });
});

describe("the server behaves like the services, not like a happy-path fake", () => {
  const requests = (n: number) => Array.from({ length: n }, (_, i) => ({ custom_id: `r${i}`, params }));

  it("a batch nobody polls still ends and is billed on time (an orphaned batch costs money)", async () => {
    const s = await startBatchServer({ respond: () => "yes", stepMs: 10 });
    servers.push(s);
    const client = new Anthropic({ apiKey: "k", baseURL: s.url, maxRetries: 0 });
    await client.messages.batches.create({ requests: requests(3) });
    const job = s.jobs[0];
    while (job.processedAt === undefined) await new Promise((r) => setTimeout(r, 10));
    expect(s.calls["GET /v1/messages/batches/:id"]).toBeUndefined();
    expect(job.ended).toBe(true);
  });

  it("batch and file ids are random, not sequential", async () => {
    const s = await server();
    const anthropic = new Anthropic({ apiKey: "k", baseURL: s.url, maxRetries: 0 });
    const openai = new OpenAI({ apiKey: "k", baseURL: `${s.url}/v1`, maxRetries: 0 });
    const a = [await anthropic.messages.batches.create({ requests: requests(1) }), await anthropic.messages.batches.create({ requests: requests(1) })];
    const file = await openai.files.create({ file: await toFile(Buffer.from(`${line("a")}\n`), "in.jsonl"), purpose: "batch" });
    const o = [0, 1].map(() => openai.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" }));
    const ids = [...a.map((b) => b.id), ...(await Promise.all(o)).map((b) => b.id), file.id];
    for (const id of ids) expect(id).toMatch(/^(msgbatch_01|batch_|file-)[A-Za-z0-9]{16,}$/);
    // Two ids made one after the other share no long tail, as counters would.
    expect(a[0].id.slice(-8)).not.toBe(a[1].id.slice(-8));
    expect(s.jobs.map((j) => j.seq)).toEqual([1, 2, 3, 4]);
  });

  it("results stream in chunks, and a cut breaks the download part-way", async () => {
    const s = await startBatchServer({ respond: () => "yes", stepMs: 0, chunkBytes: 200, cut: (route, n) => (route === "GET /v1/messages/batches/:id/results" && n === 1 ? 1000 : undefined) });
    servers.push(s);
    const client = new Anthropic({ apiKey: "k", baseURL: s.url, maxRetries: 0 });
    const batch = await client.messages.batches.create({ requests: requests(20) });
    await client.messages.batches.retrieve(batch.id);
    const got: string[] = [];
    const cut = await (async () => {
      for await (const line of await client.messages.batches.results(batch.id)) got.push(line.custom_id);
    })().catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(Error);
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(20);
    const again: string[] = [];
    for await (const line of await client.messages.batches.results(batch.id)) again.push(line.custom_id);
    expect(again).toHaveLength(20);
  });
});
