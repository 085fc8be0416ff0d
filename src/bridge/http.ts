import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { ErrorCode } from "../errors.js";

/** An error that becomes an HTTP answer: a status, a stable code and, for bad input, the field at fault. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    /** Extra response headers (e.g. `retry-after`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

/** A route's answer sent with response headers of its own (`Idempotent-Replayed` on an answer given again from a record). */
export class HttpAnswer {
  constructor(
    readonly body: unknown,
    readonly headers: Record<string, string>,
  ) {}
}

/** True when a request's work was aborted because its client hung up, not because the server stopped it. */
export const clientClosed = (reason: unknown): boolean => reason instanceof HttpError && reason.code === "CLIENT_CLOSED";

/** Bytes a client may keep sending after we decided its body is too large, before we hang up. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

/**
 * Reads a request body of at most `limit` bytes. A larger body is drained (so the client gets
 * to read our 413 instead of a reset) but not kept; a client that keeps going is disconnected.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number.isFinite(declared) && declared > limit;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      if (!over) chunks.push(chunk);
      else if (size > limit + DRAIN_LIMIT) req.destroy();
    });
    req.on("end", () => (over ? reject(tooLarge(limit)) : resolve(Buffer.concat(chunks))));
    req.on("error", reject);
    req.on("close", () => {
      if (!req.complete) reject(new HttpError(400, "ABORTED", "the client closed the request before its body ended"));
    });
  });
}

const tooLarge = (limit: number) => new HttpError(413, "BODY_TOO_LARGE", `the request body exceeds ${limit} bytes: start rubricate serve with a larger --max-body (e.g. --max-body 512mb), or send fewer samples per request`);

/** Parses a JSON body; a syntax error is a 400 that says where. */
export function parseJson(body: Buffer): unknown {
  if (body.length === 0) throw new HttpError(400, "INVALID_JSON", "the request body is empty; send a JSON object");
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (e) {
    throw new HttpError(400, "INVALID_JSON", `the request body is not valid JSON: ${(e as Error).message}`);
  }
}

/** Sends a JSON answer (unless the client is gone); `serialize` writes the text (default `JSON.stringify`). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, serialize: (body: unknown) => string = JSON.stringify): void {
  if (res.headersSent || res.destroyed) return;
  const text = serialize(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** What follows the status in the reason phrase: trainers' HTTP clients show the phrase, not the body. */
const REASON_HINTS: Record<string, string> = {
  BODY_TOO_LARGE: "raise rubricate serve --max-body",
  TOO_MANY_SAMPLES: "raise rubricate serve --max-samples",
  SAMPLE_CRITERIA_TOO_LARGE: "smaller client criteria, or fewer samples per request",
  JUDGE_UNAVAILABLE: "judge outage, retry later",
  TIMEOUT: "scoring deadline passed, retry (answers are cached)",
  UNSUPPORTED_MEDIA_TYPE: "send Content-Type: application/json",
};

/**
 * Sends an HttpError as `{ "error": { code, message, field? } }`. The reason phrase carries the
 * code and, for limits, the flag to raise: OpenRLHF logs only "413 Client Error: <phrase>".
 */
export function sendError(res: ServerResponse, error: HttpError, headers: Record<string, string> = {}): void {
  if (!res.headersSent) res.statusMessage = `${STATUS_CODES[error.status] ?? "Error"} (${error.code}${REASON_HINTS[error.code] ? `: ${REASON_HINTS[error.code]}` : ""})`;
  sendJson(res, error.status, { error: { code: error.code, message: error.message, ...(error.field !== undefined ? { field: error.field } : {}) } }, headers);
}

/**
 * Answers what node:http's parser refuses before any route sees it (a request line or header that
 * is not HTTP, headers past the size limit, headers or a request too slow to arrive) with the same
 * `{ error: { code, message } }` body as every other answer. Node's own answer is a status line
 * with an empty body, which a client reading every answer's body as JSON (each trainer's) cannot take.
 */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A client that went away, or a socket already answering, gets nothing more (as node:http does).
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, code, message] = clientErrorAnswer(err.code);
    const body = JSON.stringify({ error: { code, message } });
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
}

/** node:http's status for a parser error (431 for oversized headers, 408 for a slow request, else 400), with our code and words. */
function clientErrorAnswer(code: string | undefined): [number, ErrorCode, string] {
  if (code === "HPE_HEADER_OVERFLOW") return [431, "INVALID_REQUEST", "the request's headers are over the server's size limit"];
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return [408, "TIMEOUT", "the request did not arrive in time (headers or body too slow)"];
  return [400, "INVALID_REQUEST", "the request is not valid HTTP/1.1"];
}
