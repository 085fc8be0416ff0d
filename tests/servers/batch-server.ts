/**
 * A local server speaking the providers' batch wire formats: OpenAI's Files + Batch API
 * (`POST /v1/files` multipart, `POST /v1/batches`, `GET /v1/batches/:id`, `GET /v1/files/:id/content`)
 * and Anthropic's Message Batches (`POST /v1/messages/batches`, `GET …/:id`, `GET …/:id/results`).
 * Each poll advances a job one step along `statuses`; each item's fate (answered, failed,
 * expired) is the test's decision, and answers come from the same `respond` callback as live servers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { listen, normalizeReply, sendJson, type Reply } from "./common.js";
import { openAIDialect } from "./openai-server.js";
import { anthropicDialect } from "./anthropic-server.js";

export type ItemFate = "ok" | "failed" | "expired";

export interface BatchServerOptions {
  respond: (body: Record<string, unknown>) => Reply;
  /** The statuses a job reports on successive polls; the last one sticks (default: in_progress, then ended). */
  statuses?: string[];
  fate?: (customId: string, index: number) => ItemFate;
}

interface Job {
  id: string;
  kind: "openai" | "anthropic";
  items: { customId: string; body: Record<string, unknown> }[];
  polls: number;
  metadata?: unknown;
  outputFile?: string;
  errorFile?: string;
  results?: string;
}

/** A running batch server and what it has seen. */
export interface BatchServer {
  url: string;
  jobs: Job[];
  /** Counts of requests by route, e.g. "POST /v1/batches". */
  calls: Record<string, number>;
  setOptions(options: Partial<BatchServerOptions>): void;
  close(): Promise<void>;
}

export async function startBatchServer(initial: BatchServerOptions): Promise<BatchServer> {
  let options: BatchServerOptions = initial;
  const jobs: Job[] = [];
  const files = new Map<string, string>();
  const calls: Record<string, number> = {};
  const openai = openAIDialect();
  const anthropic = anthropicDialect();
  let url = "";

  const statusAt = (job: Job, poll: number) => {
    const list = options.statuses ?? (job.kind === "openai" ? ["validating", "in_progress", "completed"] : ["in_progress", "ended"]);
    return list[Math.min(poll, list.length - 1)];
  };

  const finish = (job: Job) => {
    const fate = options.fate ?? (() => "ok");
    const out: string[] = [];
    const errors: string[] = [];
    job.items.forEach((item, i) => {
      const f = fate(item.customId, i);
      if (job.kind === "openai") {
        if (f === "ok") out.push(JSON.stringify({ id: `batch_req_${i}`, custom_id: item.customId, response: { status_code: 200, request_id: `req_${i}`, body: openai.success(item.body, normalizeReply(options.respond(item.body))) }, error: null }));
        else errors.push(JSON.stringify({ id: `batch_req_${i}`, custom_id: item.customId, response: null, error: { code: f === "expired" ? "batch_expired" : "server_error", message: f === "expired" ? "This request could not be executed before the completion window expired." : "The server had an error." } }));
      } else if (f === "ok") out.push(JSON.stringify({ custom_id: item.customId, result: { type: "succeeded", message: anthropic.success(item.body, normalizeReply(options.respond(item.body))) } }));
      else if (f === "expired") out.push(JSON.stringify({ custom_id: item.customId, result: { type: "expired" } }));
      else out.push(JSON.stringify({ custom_id: item.customId, result: { type: "errored", error: { type: "error", error: { type: "api_error", message: "Internal server error" } } } }));
    });
    if (job.kind === "openai") {
      if (out.length) files.set((job.outputFile = `file-out-${job.id}`), `${out.join("\n")}\n`);
      if (errors.length) files.set((job.errorFile = `file-err-${job.id}`), `${errors.join("\n")}\n`);
    } else job.results = `${out.join("\n")}\n`;
  };

  const openaiBatch = (job: Job) => {
    const status = statusAt(job, job.polls);
    const ended = ["completed", "expired", "failed", "cancelled"].includes(status);
    if (ended && !job.outputFile && !job.errorFile && status !== "failed") finish(job);
    return {
      id: job.id, object: "batch", endpoint: "/v1/chat/completions", errors: null, input_file_id: `file-in-${job.id}`, completion_window: "24h",
      status, output_file_id: ended ? (job.outputFile ?? null) : null, error_file_id: ended ? (job.errorFile ?? null) : null,
      created_at: 1_700_000_000, in_progress_at: null, expires_at: 1_700_086_400, finalizing_at: null, completed_at: null, failed_at: null, expired_at: null, cancelling_at: null, cancelled_at: null,
      request_counts: { total: job.items.length, completed: 0, failed: 0 }, metadata: job.metadata ?? null,
    };
  };

  const anthropicBatch = (job: Job) => {
    const status = statusAt(job, job.polls);
    if (status === "ended" && job.results === undefined) finish(job);
    return {
      id: job.id, type: "message_batch", processing_status: status,
      request_counts: { processing: status === "ended" ? 0 : job.items.length, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
      ended_at: status === "ended" ? "2026-11-29T00:00:00Z" : null, created_at: "2026-11-29T00:00:00Z", expires_at: "2026-11-30T00:00:00Z",
      cancel_initiated_at: null, archived_at: null, results_url: status === "ended" ? `${url}/v1/messages/batches/${job.id}/results` : null,
    };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const route = `${req.method} ${path.replace(/(batch_|msgbatch_|file-)[\w-]+/g, ":id")}`;
    calls[route] = (calls[route] ?? 0) + 1;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    if (req.method === "POST" && path === "/v1/files") {
      const form = await new Request("http://x", { method: "POST", headers: { "content-type": req.headers["content-type"] ?? "" }, body: raw }).formData();
      const file = form.get("file") as File;
      const id = `file-${Object.keys(Object.fromEntries(files)).length + 1}`;
      files.set(id, await file.text());
      return sendJson(res, 200, { id, object: "file", bytes: file.size, created_at: 1_700_000_000, filename: file.name, purpose: form.get("purpose"), status: "processed" });
    }
    if (req.method === "POST" && path === "/v1/batches") {
      const body = JSON.parse(raw.toString()) as { input_file_id: string; metadata?: unknown };
      const lines = (files.get(body.input_file_id) ?? "").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { custom_id: string; body: Record<string, unknown> });
      const job: Job = { id: `batch_${jobs.length + 1}`, kind: "openai", items: lines.map((l) => ({ customId: l.custom_id, body: l.body })), polls: 0, metadata: body.metadata };
      jobs.push(job);
      return sendJson(res, 200, openaiBatch(job));
    }
    let m = /^\/v1\/batches\/([\w-]+)$/.exec(path);
    if (req.method === "GET" && m) {
      const job = jobs.find((j) => j.id === m![1]);
      if (!job) return sendJson(res, 404, { error: { message: "No batch found", type: "invalid_request_error", code: null } });
      const body = openaiBatch(job);
      job.polls++;
      return sendJson(res, 200, body);
    }
    m = /^\/v1\/files\/([\w-]+)\/content$/.exec(path);
    if (req.method === "GET" && m) {
      const text = files.get(m[1]);
      if (text === undefined) return sendJson(res, 404, { error: { message: "No such File object", type: "invalid_request_error", code: null } });
      res.writeHead(200, { "content-type": "application/octet-stream" }).end(text);
      return;
    }
    if (req.method === "POST" && path === "/v1/messages/batches") {
      const body = JSON.parse(raw.toString()) as { requests: { custom_id: string; params: Record<string, unknown> }[] };
      const job: Job = { id: `msgbatch_${jobs.length + 1}`, kind: "anthropic", items: body.requests.map((r) => ({ customId: r.custom_id, body: r.params })), polls: 0 };
      jobs.push(job);
      return sendJson(res, 200, anthropicBatch(job));
    }
    m = /^\/v1\/messages\/batches\/([\w-]+)(\/results)?$/.exec(path);
    if (req.method === "GET" && m) {
      const job = jobs.find((j) => j.id === m![1]);
      if (!job) return sendJson(res, 404, { type: "error", error: { type: "not_found_error", message: "batch not found" } });
      if (m[2]) {
        res.writeHead(200, { "content-type": "application/binary" }).end(job.results ?? "");
        return;
      }
      const body = anthropicBatch(job);
      job.polls++;
      return sendJson(res, 200, body);
    }
    sendJson(res, 404, { error: { message: `Unknown request URL: ${req.method} ${path}`, type: "invalid_request_error", code: "unknown_url" } });
  };

  const server = await listen((req, res) => void handle(req, res).catch((e) => sendJson(res, 500, { error: { message: String(e), type: "server_error" } })));
  url = server.url;
  return { url, jobs, calls, setOptions: (o) => (options = { ...options, ...o }), close: server.close };
}
