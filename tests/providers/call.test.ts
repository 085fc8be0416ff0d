import { getEventListeners } from "node:events";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI, { toFile } from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAnthropicProvider } from "../../src/providers/anthropic.js";
import { linkedSignal } from "../../src/providers/call.js";
import { createOpenAIProvider } from "../../src/providers/openai.js";
import type { BatchApi } from "../../src/providers/types.js";
import { startBatchServer, type BatchServer } from "../servers/batch-server.js";

let server: BatchServer;
const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);
beforeEach(async () => {
  server = await startBatchServer({ respond: () => "yes" });
  warnings.length = 0;
  process.on("warning", onWarning);
});
afterEach(async () => {
  process.off("warning", onWarning);
  await server.close();
});

/** Polls, lists and downloads the way a batch run does for an hour, all on the run's one Ctrl-C signal. */
async function pollLikeABatchRun(api: BatchApi, id: string, signal: AbortSignal): Promise<void> {
  for (let i = 0; i < 15; i++) await api.status(id, { signal });
  await api.find({ jobId: "job", fileId: "file-none", createdAt: Date.now(), count: 1, exclude: new Set(), owns: () => false }, { signal });
  for await (const _ of api.results(id, { signal })) break;
}

describe("batch calls on a run's long-lived signal", () => {
  it.each([
    [
      "openai",
      async () => {
        const client = new OpenAI({ apiKey: "k", baseURL: `${server.url}/v1`, maxRetries: 0 });
        const body = JSON.stringify({ custom_id: "a", method: "POST", url: "/v1/chat/completions", body: { model: "m", messages: [{ role: "user", content: "Hi" }] } });
        const file = await client.files.create({ file: await toFile(Buffer.from(`${body}\n`), "in.jsonl"), purpose: "batch" });
        const batch = await client.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
        return { api: createOpenAIProvider({ apiKey: "k", baseURL: `${server.url}/v1` }).batch!, id: batch.id };
      },
    ],
    [
      "anthropic",
      async () => {
        const client = new Anthropic({ apiKey: "k", baseURL: server.url, maxRetries: 0 });
        const batch = await client.messages.batches.create({ requests: [{ custom_id: "a", params: { model: "m", max_tokens: 8, messages: [{ role: "user", content: "Hi" }] } }] });
        return { api: createAnthropicProvider({ apiKey: "k", baseURL: server.url }).batch!, id: batch.id };
      },
    ],
  ])("%s: leave no abort listener on it, and no MaxListenersExceededWarning", async (_name, make) => {
    const { api, id } = await make();
    const run = new AbortController();
    await pollLikeABatchRun(api, id, run.signal);
    await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
  });
});

describe("linkedSignal", () => {
  it("follows the caller's abort (with its reason) until unlinked, then lets go of it", () => {
    const caller = new AbortController();
    const first = linkedSignal(caller.signal);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(1);
    first.unlink();
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    const second = linkedSignal(caller.signal);
    caller.abort(new Error("stop"));
    expect(second.signal!.aborted).toBe(true);
    expect((second.signal!.reason as Error).message).toBe("stop");
    expect(first.signal!.aborted).toBe(false);
    expect(linkedSignal(caller.signal).signal!.aborted).toBe(true);
    expect(linkedSignal(undefined).signal).toBeUndefined();
  });
});
