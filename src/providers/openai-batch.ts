import { createWriteStream, openAsBlob } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI, { toFile } from "openai";
import { scrubResponse, toProviderError } from "./errors.js";
import { fromOpenAIResponse, toOpenAIBody } from "./openai-wire.js";
import type { BatchApi, BatchResultItem, BatchStatus } from "./types.js";

const ENDED = new Set(["completed", "failed", "expired", "cancelled"]);

/**
 * The OpenAI Batch API for chat completions: a JSONL file of requests is uploaded, a batch
 * created over it, polled, and its output and error files read back.
 */
export function createOpenAIBatchApi(client: OpenAI, name: string, secrets: string[]): BatchApi {
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      throw toProviderError(e, { provider: name, secrets });
    }
  };
  return {
    maxItems: 50_000,
    async submit(items, options = {}) {
      // The input file is written to disk and uploaded from a file-backed Blob: memory stays flat at any size.
      const dir = await mkdtemp(join(tmpdir(), "rubricate-batch-"));
      const path = join(dir, "input.jsonl");
      try {
        const out = createWriteStream(path);
        for await (const item of items) {
          const line = `${JSON.stringify({ custom_id: item.customId, method: "POST", url: "/v1/chat/completions", body: toOpenAIBody(item.request, name) })}\n`;
          if (!out.write(line)) await once(out, "drain");
        }
        await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
        const upload = await toFile(await openAsBlob(path), "rubricate-batch.jsonl");
        const file = await guard(() => client.files.create({ file: upload, purpose: "batch" }, { signal: options.signal }));
        const batch = await guard(() =>
          client.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h", metadata: options.metadata }, { signal: options.signal }),
        );
        return { id: batch.id };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    async status(id, options = {}): Promise<BatchStatus> {
      const batch = await guard(() => client.batches.retrieve(id, { signal: options.signal }));
      const counts = batch.request_counts;
      return { state: ENDED.has(batch.status) ? "ended" : "in_progress", raw: batch.status, counts: counts ? { total: counts.total, succeeded: counts.completed, failed: counts.failed } : undefined };
    },
    async *results(id, options = {}): AsyncGenerator<BatchResultItem> {
      const batch = await guard(() => client.batches.retrieve(id, { signal: options.signal }));
      for (const fileId of [batch.output_file_id, batch.error_file_id]) {
        if (!fileId) continue;
        const response = await guard(() => client.files.content(fileId, { signal: options.signal }));
        for await (const line of lines(response)) yield readLine(JSON.parse(line), name, secrets);
      }
    },
  };
}

/** The lines of a response body, read as a stream (result files can be hundreds of megabytes). */
async function* lines(response: Response): AsyncGenerator<string> {
  if (!response.body) return;
  let buffered = "";
  for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim()) yield line;
    }
  }
  if (buffered.trim()) yield buffered;
}

interface OutputLine {
  custom_id: string;
  response?: { status_code: number; body: unknown } | null;
  error?: { code?: string; message?: string } | null;
}

function readLine(line: OutputLine, name: string, secrets: string[]): BatchResultItem {
  const customId = line.custom_id;
  if (line.response && line.response.status_code === 200) {
    return { customId, outcome: "succeeded", response: scrubResponse(fromOpenAIResponse(line.response.body as OpenAI.ChatCompletion, name), secrets) };
  }
  const code = line.error?.code ?? `http_${line.response?.status_code ?? "unknown"}`;
  const message = line.error?.message ?? JSON.stringify(line.response?.body ?? "no response").slice(0, 300);
  return { customId, outcome: code === "batch_expired" ? "expired" : code === "batch_cancelled" ? "canceled" : "errored", error: { code, message } };
}
