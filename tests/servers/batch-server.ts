/**
 * A local server speaking the providers' batch wire formats: OpenAI's Files + Batch API
 * (`POST /v1/files` multipart, `POST /v1/batches`, `GET /v1/batches[/:id]`, `GET /v1/files/:id/content`)
 * and Anthropic's Message Batches (`POST /v1/messages/batches`, `GET …[/:id][/results]`).
 * It behaves like the real services where they differ from the happy path: it enforces the
 * per-batch request count and byte limits and Anthropic's custom_id format, fails batches with
 * `errors.data`, writes error-file lines for 4xx/5xx items, answers 429/5xx on any route, 404s
 * archived batches and expired files, cancels or expires items, and can make a batch yet answer
 * the create too late for the client.
 *
 * Like the services, and unlike a happy-path fake: a batch moves along `statuses` with time (one
 * step every `stepMs`), not with polls, so a batch nobody polls (orphaned by a lost create) still
 * runs and is billed (`Job.processedAt`); batch and file ids are random, never sequential (a client
 * cannot guess one; tests name a job by `Job.seq`); result files stream in chunks, and `cut` breaks a
 * download part-way, as a connection reset does.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { listen, normalizeReply, sendJson, type Reply } from "../../src/testing/servers/common.js";
import { openAIDialect } from "../../src/testing/servers/openai-server.js";
import { anthropicDialect } from "../../src/testing/servers/anthropic-server.js";

/** What happens to one request: answered, a 5xx, expired, canceled, or refused as invalid (a 400). */
export type ItemFate = "ok" | "failed" | "expired" | "canceled" | "invalid";

export interface BatchLimits {
  maxItems: number;
  maxBytes: number;
}

export interface BatchServerOptions {
  respond: (body: Record<string, unknown>) => Reply;
  /** The statuses a job goes through, one every `stepMs` from its creation; the last one sticks (default: in_progress, then ended). */
  statuses?: string[];
  /** Time a job spends in each status (default 20 ms). */
  stepMs?: number;
  /** Bytes per chunk of a streamed result file (default 64 KiB). */
  chunkBytes?: number;
  /** Cut this download (`route` as in `calls`, `n` its 1-based count) after so many bytes: the connection is destroyed mid-stream. */
  cut?: (route: string, n: number) => number | undefined;
  fate?: (customId: string, index: number, job: Job) => ItemFate;
  /** Per-batch limits (default the real ones: OpenAI 50,000 / 200 MB a file, Anthropic 100,000 / 256 MB a body). */
  limits?: { openai?: BatchLimits; anthropic?: BatchLimits };
  /** OpenAI: fail this batch as a whole with these `errors.data` entries. */
  failBatch?: (job: Job) => { code: string; message: string; line?: number | null }[] | undefined;
  /** An HTTP status to answer this request with instead (429, 500, …); `route` as in `calls`, `n` its 1-based count. */
  fault?: (route: string, n: number) => number | undefined;
  /** The create is carried out, then answered this late (a client with a shorter timeout never hears it). */
  createDelayMs?: number;
  /** Archived (Anthropic) or its result files expired (OpenAI): results answer 404. */
  archived?: (job: Job) => boolean;
  /** Its results answer 404 though the batch itself is known and not archived (a key that cannot read them, a proxy). */
  resultsGone?: (job: Job) => boolean;
  /** Unknown to this key (deleted, another project): every request about it answers 404. */
  missing?: (job: Job) => boolean;
  /**
   * Forget input files once a batch is made from them, and request bodies once a batch's results
   * are made (a million-request benchmark would otherwise hold gigabytes; tests keep both to inspect).
   */
  forgetInputs?: boolean;
}

export interface Job {
  id: string;
  /** 1 for the first job the server made, 2 for the next… (ids are random). */
  seq: number;
  kind: "openai" | "anthropic";
  items: { customId: string; body: Record<string, unknown> }[];
  bytes: number;
  polls: number;
  createdAt: number;
  metadata?: unknown;
  inputFileId?: string;
  /** Jobs of the same kind not yet ended when this one was created. */
  concurrent: number;
  ended: boolean;
  /** When the job's requests were answered (and billed): at its end, whether or not anyone polled. */
  processedAt?: number;
  outputFile?: string;
  errorFile?: string;
  results?: string;
  errors?: { code: string; message: string; line?: number | null }[];
}

/** A running batch server and what it has seen. */
export interface BatchServer {
  url: string;
  jobs: Job[];
  /** Counts of requests by route, e.g. "POST /v1/batches". */
  calls: Record<string, number>;
  /** Requests the server refused for breaking a limit or format rule (a correct client causes none). */
  violations: string[];
  setOptions(options: Partial<BatchServerOptions>): void;
  close(): Promise<void>;
}

// Anthropic documents "256 MB": the decimal reading is the stricter one, so the server enforces it.
const REAL_LIMITS = { openai: { maxItems: 50_000, maxBytes: 200 * 1024 * 1024 }, anthropic: { maxItems: 100_000, maxBytes: 256_000_000 } };
const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

export async function startBatchServer(initial: BatchServerOptions): Promise<BatchServer> {
  let options: BatchServerOptions = initial;
  const jobs: Job[] = [];
  const files = new Map<string, string>();
  const calls: Record<string, number> = {};
  const violations: string[] = [];
  const openai = openAIDialect();
  const anthropic = anthropicDialect();
  let url = "";
  const timers = new Set<NodeJS.Timeout>();
  const limits = (kind: Job["kind"]) => options.limits?.[kind] ?? REAL_LIMITS[kind];

  const stepMs = () => options.stepMs ?? 20;
  const statusesOf = (job: Job) => (job.errors ? ["validating", "failed"] : (options.statuses ?? (job.kind === "openai" ? ["validating", "in_progress", "completed"] : ["in_progress", "ended"])));
  const statusAt = (job: Job) => {
    const list = statusesOf(job);
    const step = stepMs() > 0 ? Math.floor((Date.now() - job.createdAt) / stepMs()) : list.length;
    return list[Math.min(step, list.length - 1)];
  };

  const finish = (job: Job) => {
    const fate = options.fate ?? (() => "ok");
    const out: string[] = [];
    const errors: string[] = [];
    job.items.forEach((item, i) => {
      const f = fate(item.customId, i, job);
      if (job.kind === "openai") {
        const line = (response: unknown, error: unknown) => JSON.stringify({ id: `batch_req_${i}`, custom_id: item.customId, response, error });
        if (f === "ok") out.push(line({ status_code: 200, request_id: `req_${i}`, body: openai.success(item.body, normalizeReply(options.respond(item.body))) }, null));
        else if (f === "invalid") errors.push(line({ status_code: 400, request_id: `req_${i}`, body: { error: { message: "Invalid 'messages[0].content': string too long.", type: "invalid_request_error", param: "messages[0].content", code: "string_above_max_length" } } }, null));
        else if (f === "failed") errors.push(line({ status_code: 500, request_id: `req_${i}`, body: { error: { message: "The server had an error while processing your request.", type: "server_error", param: null, code: null } } }, null));
        else errors.push(line(null, f === "expired" ? { code: "batch_expired", message: "This request could not be executed before the completion window expired." } : { code: "batch_cancelled", message: "This request was not executed because the batch was cancelled." }));
      } else {
        const result =
          f === "ok" ? { type: "succeeded", message: anthropic.success(item.body, normalizeReply(options.respond(item.body))) }
          : f === "invalid" ? { type: "errored", error: { type: "error", error: { type: "invalid_request_error", message: "messages: text content blocks must be non-empty" } } }
          : f === "failed" ? { type: "errored", error: { type: "error", error: { type: "api_error", message: "Internal server error" } } }
          : { type: f };
        out.push(JSON.stringify({ custom_id: item.customId, result }));
      }
    });
    job.processedAt = Date.now();
    if (options.forgetInputs) job.items = job.items.map((item) => ({ customId: item.customId, body: {} }));
    if (job.kind === "openai") {
      if (out.length) files.set((job.outputFile = `file-out-${job.id}`), `${out.join("\n")}\n`);
      if (errors.length) files.set((job.errorFile = `file-err-${job.id}`), `${errors.join("\n")}\n`);
    } else job.results = `${out.join("\n")}\n`;
  };

  /** Brings a job up to date with the clock: an ended job's requests are answered (billed) once. */
  const advance = (job: Job): string => {
    const status = statusAt(job);
    const ended = job.kind === "openai" ? ["completed", "expired", "failed", "cancelled"].includes(status) : status === "ended";
    if (ended) job.ended = true;
    if (ended && job.processedAt === undefined && status !== "failed") finish(job);
    return status;
  };

  const openaiBatch = (job: Job) => {
    const status = advance(job);
    const ended = job.ended;
    const counts = ended && status !== "failed" ? { total: job.items.length, completed: countLines(files.get(job.outputFile ?? "")), failed: countLines(files.get(job.errorFile ?? "")) } : { total: job.items.length, completed: 0, failed: 0 };
    return {
      id: job.id, object: "batch", endpoint: "/v1/chat/completions", errors: job.errors ? { object: "list", data: job.errors } : null, input_file_id: job.inputFileId ?? "", completion_window: "24h",
      status, output_file_id: ended ? (job.outputFile ?? null) : null, error_file_id: ended ? (job.errorFile ?? null) : null,
      created_at: Math.floor(job.createdAt / 1000), in_progress_at: null, expires_at: Math.floor(job.createdAt / 1000) + 86_400, finalizing_at: null, completed_at: null, failed_at: status === "failed" ? Math.floor(Date.now() / 1000) : null, expired_at: null, cancelling_at: null, cancelled_at: null,
      request_counts: counts, metadata: job.metadata ?? null,
    };
  };

  const anthropicBatch = (job: Job) => {
    const status = advance(job);
    const counts = { processing: job.items.length, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    if (status === "ended") {
      counts.processing = 0;
      for (const line of (job.results ?? "").split("\n").filter(Boolean)) {
        const t = (JSON.parse(line) as { result: { type: "succeeded" | "errored" | "canceled" | "expired" } }).result.type;
        counts[t]++;
      }
    }
    const archived = options.archived?.(job) ?? false;
    return {
      id: job.id, type: "message_batch", processing_status: status, request_counts: counts,
      ended_at: status === "ended" ? new Date().toISOString() : null, created_at: new Date(job.createdAt).toISOString(), expires_at: new Date(job.createdAt + 86_400_000).toISOString(),
      cancel_initiated_at: null, archived_at: archived ? new Date().toISOString() : null, results_url: status === "ended" ? `${url}/v1/messages/batches/${job.id}/results` : null,
    };
  };

  const createJob = (kind: Job["kind"], items: Job["items"], bytes: number, extra: Partial<Job> = {}): Job => {
    for (const j of jobs) advance(j);
    const concurrent = jobs.filter((j) => j.kind === kind && !j.ended).length;
    const id = kind === "openai" ? `batch_${randomBytes(12).toString("hex")}` : `msgbatch_01${randomBytes(12).toString("base64url").replace(/[-_]/g, "x")}`;
    const job: Job = { id, seq: jobs.length + 1, kind, items, bytes, polls: 0, createdAt: Date.now(), concurrent, ended: false, ...extra };
    jobs.push(job);
    // The service runs a batch whether or not anyone polls it: it ends (and is billed) on time.
    const timer = setTimeout(() => {
      timers.delete(timer);
      advance(job);
    }, stepMs() * statusesOf(job).length + 1);
    timer.unref();
    timers.add(timer);
    return job;
  };

  /** Newest first, paged the way each API pages. */
  const list = (kind: Job["kind"], query: URLSearchParams, render: (j: Job) => unknown) => {
    const mine = jobs.filter((j) => j.kind === kind && !(options.missing?.(j) ?? false)).reverse();
    const limit = Number(query.get("limit") ?? 20);
    const after = query.get(kind === "openai" ? "after" : "after_id");
    const start = after ? mine.findIndex((j) => j.id === after) + 1 : 0;
    const page = mine.slice(start, start + limit);
    const data = page.map(render);
    return kind === "openai"
      ? { object: "list", data, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: start + limit < mine.length }
      : { data, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: start + limit < mine.length };
  };

  /** A result file as the services send one: streamed in chunks; `cutAt` bytes in, the connection is destroyed. */
  const streamFile = async (res: ServerResponse, text: string, contentType: string, cutAt: number | undefined) => {
    const body = Buffer.from(text);
    const size = options.chunkBytes ?? 65_536;
    const end = cutAt === undefined ? body.length : Math.min(cutAt, body.length);
    res.writeHead(200, { "content-type": contentType });
    for (let at = 0; at < end && !res.destroyed; at += size) {
      // Each chunk reaches the socket before the next is written: a cut comes after what was sent.
      await new Promise<void>((resolve) => res.write(body.subarray(at, Math.min(at + size, end)), () => resolve()));
    }
    if (cutAt === undefined) res.end();
    else res.socket?.destroy();
  };

  const anthropicError = (res: ServerResponse, status: number, type: string, message: string) => sendJson(res, status, { type: "error", error: { type, message } });
  const openaiError = (res: ServerResponse, status: number, message: string, code: string | null = null) =>
    sendJson(res, status, { error: { message, type: status >= 500 ? "server_error" : "invalid_request_error", param: null, code } });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const parsed = new URL(req.url ?? "/", "http://x");
    const path = parsed.pathname;
    const route = `${req.method} ${path.replace(/(batch_|msgbatch_|file-)[\w-]+/g, ":id")}`;
    const n = (calls[route] = (calls[route] ?? 0) + 1);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const anthropicRoute = path.startsWith("/v1/messages");
    const fault = options.fault?.(route, n);
    if (fault) {
      const headers: Record<string, string> = fault === 429 ? { "retry-after": "0" } : {};
      return anthropicRoute
        ? sendJson(res, fault, { type: "error", error: { type: fault === 429 ? "rate_limit_error" : fault === 529 ? "overloaded_error" : "api_error", message: "try again" } }, headers)
        : sendJson(res, fault, { error: { message: "try again", type: fault === 429 ? "rate_limit_exceeded" : "server_error", param: null, code: null } }, headers);
    }
    const late = async (send: () => void) => {
      // Unref'd: a client killed mid-create must not keep the test process waiting for this answer.
      if (options.createDelayMs) await new Promise((r) => setTimeout(r, options.createDelayMs).unref());
      if (!res.destroyed) send();
    };

    if (req.method === "POST" && path === "/v1/files") {
      const form = await new Request("http://x", { method: "POST", headers: { "content-type": req.headers["content-type"] ?? "" }, body: raw }).formData();
      const file = form.get("file") as File;
      if (form.get("purpose") !== "batch") return openaiError(res, 400, "purpose must be batch");
      const id = `file-${randomBytes(12).toString("hex")}`;
      files.set(id, await file.text());
      return sendJson(res, 200, { id, object: "file", bytes: file.size, created_at: Math.floor(Date.now() / 1000), filename: file.name, purpose: "batch", status: "processed" });
    }
    if (req.method === "POST" && path === "/v1/batches") {
      const body = JSON.parse(raw.toString()) as { input_file_id: string; metadata?: unknown };
      const text = files.get(body.input_file_id);
      if (text === undefined) return openaiError(res, 404, `No such File object: ${body.input_file_id}`);
      const lines = text.split("\n").filter(Boolean).map((l) => JSON.parse(l) as { custom_id: string; body: Record<string, unknown> });
      const job = createJob("openai", lines.map((l) => ({ customId: l.custom_id, body: l.body })), Buffer.byteLength(text), { metadata: body.metadata, inputFileId: body.input_file_id });
      if (options.forgetInputs) files.delete(body.input_file_id);
      const limit = limits("openai");
      const problems: { code: string; message: string; line?: number | null }[] = [];
      if (job.bytes > limit.maxBytes) problems.push({ code: "file_too_large", message: `The batch input file is larger than the ${limit.maxBytes} byte limit.`, line: null });
      if (job.items.length > limit.maxItems) problems.push({ code: "too_many_requests", message: `The batch input file has more than ${limit.maxItems} requests.`, line: null });
      const seen = new Set<string>();
      job.items.forEach((item, i) => {
        if (seen.has(item.customId)) problems.push({ code: "duplicate_custom_id", message: `The custom_id for this request is a duplicate of another request: ${item.customId}`, line: i + 1 });
        seen.add(item.customId);
      });
      violations.push(...problems.map((p) => `${job.id}: ${p.code}`));
      const failure = problems.length ? problems : options.failBatch?.(job);
      if (failure) job.errors = failure;
      return late(() => sendJson(res, 200, openaiBatch(job)));
    }
    if (req.method === "GET" && path === "/v1/batches") return sendJson(res, 200, list("openai", parsed.searchParams, openaiBatch));
    let m = /^\/v1\/batches\/([\w-]+)$/.exec(path);
    if (req.method === "GET" && m) {
      const job = jobs.find((j) => j.id === m![1]);
      if (!job || options.missing?.(job)) return openaiError(res, 404, `No batch found with id '${m[1]}'.`);
      const body = openaiBatch(job);
      job.polls++;
      return sendJson(res, 200, body);
    }
    m = /^\/v1\/files\/([\w-]+)\/content$/.exec(path);
    if (req.method === "GET" && m) {
      const owner = jobs.find((j) => j.outputFile === m![1] || j.errorFile === m![1]);
      const text = files.get(m[1]);
      if (text === undefined || (owner && (options.archived?.(owner) || options.resultsGone?.(owner)))) return openaiError(res, 404, `No such File object: ${m[1]}`);
      return streamFile(res, text, "application/octet-stream", options.cut?.(route, n));
    }
    if (req.method === "POST" && path === "/v1/messages/batches") {
      const limit = limits("anthropic");
      if (raw.length > limit.maxBytes) {
        violations.push(`request_too_large: ${raw.length} bytes`);
        return anthropicError(res, 413, "request_too_large", `Request exceeds the maximum allowed number of bytes (${limit.maxBytes}).`);
      }
      const body = JSON.parse(raw.toString()) as { requests: { custom_id: string; params: Record<string, unknown> }[] };
      const bad = body.requests.find((r) => !CUSTOM_ID.test(r.custom_id));
      const ids = new Set(body.requests.map((r) => r.custom_id));
      const problem =
        body.requests.length === 0 ? "requests: List should have at least 1 item"
        : body.requests.length > limit.maxItems ? `requests: List should have at most ${limit.maxItems} items`
        : bad ? `requests.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$' (got ${JSON.stringify(bad.custom_id).slice(0, 80)})`
        : ids.size < body.requests.length ? "requests: custom_id values must be unique within a batch"
        : undefined;
      if (problem) {
        violations.push(problem);
        return anthropicError(res, 400, "invalid_request_error", problem);
      }
      const job = createJob("anthropic", body.requests.map((r) => ({ customId: r.custom_id, body: r.params })), raw.length);
      return late(() => sendJson(res, 200, anthropicBatch(job)));
    }
    if (req.method === "GET" && path === "/v1/messages/batches") return sendJson(res, 200, list("anthropic", parsed.searchParams, anthropicBatch));
    m = /^\/v1\/messages\/batches\/([\w-]+)(\/results)?$/.exec(path);
    if (req.method === "GET" && m) {
      const job = jobs.find((j) => j.id === m![1]);
      if (!job || options.missing?.(job)) return anthropicError(res, 404, "not_found_error", `Message batch ${m[1]} not found`);
      if (m[2]) {
        if (options.archived?.(job) || options.resultsGone?.(job)) return anthropicError(res, 404, "not_found_error", "Results for this batch are no longer available");
        anthropicBatch(job);
        if (!job.ended) return anthropicError(res, 400, "invalid_request_error", `Message batch ${job.id} is still in progress; results are available once it has ended`);
        return streamFile(res, job.results ?? "", "application/binary", options.cut?.(route, n));
      }
      const body = anthropicBatch(job);
      job.polls++;
      return sendJson(res, 200, body);
    }
    sendJson(res, 404, { error: { message: `Unknown request URL: ${req.method} ${path}`, type: "invalid_request_error", code: "unknown_url" } });
  };

  const server = await listen((req, res) => void handle(req, res).catch((e) => (res.headersSent ? res.destroy() : sendJson(res, 500, { error: { message: String(e), type: "server_error" } }))));
  url = server.url;
  const close = () => {
    for (const timer of timers) clearTimeout(timer);
    return server.close();
  };
  return { url, jobs, calls, violations, setOptions: (o) => (options = { ...options, ...o }), close };
}

function countLines(text: string | undefined): number {
  return text ? text.split("\n").filter(Boolean).length : 0;
}
