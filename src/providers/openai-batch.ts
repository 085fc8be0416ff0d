import { createReadStream } from "node:fs";
import { randomBytes } from "node:crypto";
import type OpenAI from "openai";
import { guardedSteps, scrubResponse, toProviderError } from "./errors.js";
import { fromOpenAIResponse, toOpenAIBody } from "./openai-wire.js";
import type { BatchApi, BatchLookup, BatchResultItem, BatchStatus } from "./types.js";

const ENDED = new Set(["completed", "failed", "expired", "cancelled"]);
/** Our clock and the provider's may differ; a lookup searches this far before the job's record. */
const CLOCK_SKEW_MS = 10 * 60_000;

/**
 * The OpenAI Batch API for chat completions: a JSONL file of requests is uploaded, a batch
 * created over it, polled, and its output and error files read back. `clientOf` gives the client
 * (the SDK loads on first use), which should stream (see `streamingFetch`): input files reach
 * 200 MB and result files more.
 */
export function createOpenAIBatchApi(clientOf: () => Promise<OpenAI>, name: string, secrets: string[]): BatchApi {
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      throw toProviderError(e, { provider: name, secrets });
    }
  };
  return {
    // 200 MB is the documented file limit; the margin covers the multipart framing and rounding.
    limits: { maxItems: 50_000, maxBytes: 190 * 1024 * 1024 },
    discount: 0.5,
    framing: { head: "", separator: "\n", tail: "\n" },
    encode: (item) => JSON.stringify({ custom_id: item.customId, method: "POST", url: "/v1/chat/completions", body: toOpenAIBody(item.request, name) }),
    async submit(file, options) {
      const client = await clientOf();
      // The multipart body is streamed from disk with its length known up front: memory stays flat at 200 MB.
      const boundary = `----rubricate${randomBytes(12).toString("hex")}`;
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="rubricate-batch.jsonl"\r\nContent-Type: application/jsonl\r\n\r\n`,
      );
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      const body = async function* () {
        yield head;
        for await (const chunk of createReadStream(file.path)) yield chunk as Buffer;
        yield tail;
      };
      const timeout = options.timeoutMs;
      const uploaded = await guard(() =>
        client.post<OpenAI.FileObject>("/files", {
          body: body(),
          headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(head.length + file.bytes + tail.length) },
          ...(timeout ? { timeout } : {}),
        }),
      );
      options.onUploaded?.(uploaded.id);
      const batch = await guard(() =>
        client.batches.create({ input_file_id: uploaded.id, endpoint: "/v1/chat/completions", completion_window: "24h", metadata: options.metadata }, timeout ? { timeout } : {}),
      );
      return { id: batch.id };
    },
    async find(hint, options = {}): Promise<BatchLookup> {
      const client = await clientOf();
      // `metadata.rubricate_job` (or our input file) proves a batch is the job's: no need to read results.
      const since = Math.floor((hint.createdAt - CLOCK_SKEW_MS) / 1000);
      // Newest first and no server-side filter: page back until batches older than the job.
      // Every page is guarded, not only the first: a 429 on page 2 is retried like any poll.
      const pages = await guard(async () => client.batches.list({ limit: 100 }, { signal: options.signal }));
      for await (const batch of guardedSteps(pages, guard)) {
        if (batch.created_at < since) break;
        if (hint.exclude.has(batch.id)) continue;
        if (batch.metadata?.rubricate_job === hint.jobId || (hint.fileId !== undefined && batch.input_file_id === hint.fileId)) return { found: batch.id };
      }
      return { none: true };
    },
    async status(id, options = {}): Promise<BatchStatus> {
      const client = await clientOf();
      const batch = await guard(() => client.batches.retrieve(id, { signal: options.signal }));
      const counts = batch.request_counts;
      const errors = (batch.errors?.data ?? []).map((e) => ({ code: e.code ?? "unknown", message: e.message ?? "", ...(typeof e.line === "number" ? { line: e.line } : {}) }));
      return {
        state: ENDED.has(batch.status) ? "ended" : "in_progress",
        raw: batch.status,
        counts: counts ? { total: counts.total, succeeded: counts.completed, failed: counts.failed } : undefined,
        ...(errors.length ? { errors } : {}),
      };
    },
    async *results(id, options = {}): AsyncGenerator<BatchResultItem> {
      const client = await clientOf();
      const batch = await guard(() => client.batches.retrieve(id, { signal: options.signal }));
      for (const fileId of [batch.output_file_id, batch.error_file_id]) {
        if (!fileId) continue;
        const response = await guard(() => client.files.content(fileId, { signal: options.signal }));
        // Guarded to the last line: a download cut mid-stream is a retryable network error, not INTERNAL.
        for await (const line of guardedSteps(lines(response), guard)) yield readLine(JSON.parse(line) as OutputLine, name, secrets);
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
    let start = 0;
    let newline: number;
    while ((newline = buffered.indexOf("\n", start)) >= 0) {
      const line = buffered.slice(start, newline);
      start = newline + 1;
      if (line.trim()) yield line;
    }
    buffered = buffered.slice(start);
  }
  if (buffered.trim()) yield buffered;
}

interface OutputLine {
  custom_id: string;
  response?: { status_code: number; body: unknown } | null;
  error?: { code?: string | null; message?: string } | null;
}

/** A status that will fail the same way if asked again: the request itself is wrong. */
const permanentStatus = (status: number | undefined) => status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429;

function readLine(line: OutputLine, name: string, secrets: string[]): BatchResultItem {
  const customId = line.custom_id;
  const status = line.response?.status_code;
  if (line.response && status === 200) {
    return { customId, outcome: "succeeded", response: scrubResponse(fromOpenAIResponse(line.response.body as OpenAI.ChatCompletion, name), secrets) };
  }
  const bodyError = (line.response?.body as { error?: { code?: string | null; type?: string; message?: string } } | undefined)?.error;
  const code = line.error?.code ?? (status !== undefined ? `http_${status}` : "unknown");
  const message = line.error?.message ?? bodyError?.message ?? JSON.stringify(line.response?.body ?? "no response").slice(0, 300);
  if (code === "batch_expired") return { customId, outcome: "expired", error: { code, message } };
  if (code === "batch_cancelled") return { customId, outcome: "canceled", error: { code, message } };
  return { customId, outcome: "errored", error: { code, message, permanent: permanentStatus(status) } };
}
