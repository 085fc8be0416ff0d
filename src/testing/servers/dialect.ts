/**
 * The request loop shared by the provider servers: auth check, RPM limit, latency, faults, then
 * the provider's own body shapes (a `Dialect`). Provider files only describe their wire format.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  FaultPlan,
  listen,
  makeId,
  normalizeReply,
  presentedKey,
  readJson,
  record,
  sendBrokenBody,
  sendJson,
  sleep,
  startSse,
  type FaultKind,
  type FaultOptions,
  type RecordedRequest,
  type Reply,
  type TestServer,
} from "./common.js";

/** What a provider file supplies: its path, error format and body shapes. */
export interface Dialect {
  path: string;
  /** "x-request-id" (OpenAI) or "request-id" (Anthropic). */
  requestIdHeader: string;
  requestIdPrefix: string;
  /** An error body in the provider's format. */
  errorBody(status: number, message: string, requestId: string): unknown;
  /** The success body for a request and the test's reply. */
  success(body: Record<string, unknown>, reply: Exclude<Reply, string>): unknown;
  /** Writes the reply as SSE events (the caller ends the response). */
  stream(body: Record<string, unknown>, reply: Exclude<Reply, string>, send: (event: string | null, data: unknown) => void): void;
}

/** Options common to both servers. */
export interface ServerOptions extends FaultOptions {
  /** Decides the model's answer; default: the text "ok". */
  respond?: (body: Record<string, unknown>, request: RecordedRequest) => Reply | Promise<Reply>;
  /** Keep parsed bodies in `requests` (default true); benchmarks turn it off to stay flat in memory. */
  recordBodies?: boolean;
}

/** What one request ended as, for the fault counters. */
type Outcome = FaultKind | "error";

/** Starts a server for one dialect; both provider servers are this with different shapes. */
export async function startDialectServer(dialect: Dialect, options: ServerOptions = {}): Promise<TestServer<ServerOptions>> {
  const requests: RecordedRequest[] = [];
  const stats: TestServer<ServerOptions>["stats"] = { requests: 0, faults: {}, inFlight: 0, peakInFlight: 0 };
  const plan = new FaultPlan(options);
  let respond = options.respond ?? (() => "ok");
  let recordBodies = options.recordBodies ?? true;
  let count = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<Outcome> => {
    const index = count++;
    const body = await readJson(req);
    const rec = record(req, index, recordBodies ? body : undefined, plan.pick(index));
    requests.push(rec);
    stats.requests++;
    const requestId = makeId(dialect.requestIdPrefix, index);
    const rid = { [dialect.requestIdHeader]: requestId };
    const fail = (status: number, message: string, extra: Record<string, string> = {}): Outcome => {
      sendJson(res, status, dialect.errorBody(status, message, requestId), { ...rid, ...extra });
      return "error";
    };

    if (req.method !== "POST" || rec.path !== dialect.path) return fail(404, `Unknown request URL: ${req.method} ${rec.path}`);
    const expected = plan.options.expectedApiKey;
    if (expected !== undefined && presentedKey(req) !== expected) return fail(401, "Invalid API key provided.");
    if (typeof body !== "object" || body === null) return fail(400, "We could not parse the JSON body of your request.");
    const over = plan.overRpm();
    if (over !== undefined) {
      fail(429, "Rate limit reached for requests per minute.", plan.retryHeaders(over));
      return (rec.fault = "429");
    }
    await sleep(plan.latency());
    const b = body as Record<string, unknown>;
    let reply: Exclude<Reply, string>;
    try {
      reply = normalizeReply(await respond(b, rec));
    } catch (e) {
      // The message goes out as the API would echo it, so tests can check what clients do with it.
      return fail(500, `respond callback failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    const fault = reply.fault ?? rec.fault;
    rec.fault = fault;
    switch (fault) {
      case "hang":
        return fault; // never answers; the client's timeout or close() ends it
      case "drop":
        req.socket.destroy();
        return fault;
      case "429":
        sendJson(res, 429, dialect.errorBody(429, "Rate limit reached for requests per minute.", requestId), { ...rid, ...plan.retryHeaders() });
        return fault;
      case "500":
        sendJson(res, 500, dialect.errorBody(500, "The server had an error while processing your request.", requestId), rid);
        return fault;
      case "529":
        sendJson(res, 529, dialect.errorBody(529, "Overloaded", requestId), { ...rid, ...plan.retryHeaders() });
        return fault;
      case "refusal":
        reply = { ...reply, refusal: reply.refusal ?? "I can't help with that.", text: undefined, toolCalls: undefined };
        break;
    }
    if (b.stream === true) {
      const send = startSse(res, rid);
      if (fault !== "reset") {
        dialect.stream(b, reply, send);
        res.end();
        return fault;
      }
      // A reset mid-stream: half the events go out, then the socket dies.
      const events: [string | null, unknown][] = [];
      dialect.stream(b, reply, (event, data) => events.push([event, data]));
      for (const [event, data] of events.slice(0, Math.max(1, events.length >> 1))) send(event, data);
      res.write("", () => res.socket?.destroy());
      return fault;
    }
    const good = dialect.success(b, reply);
    if (!sendBrokenBody(res, fault, good, rid)) sendJson(res, 200, good, rid);
    return fault;
  };

  const { url, close } = await listen((req, res) => {
    // In flight until the response is sent or its connection dies (a hang ends with the socket).
    stats.peakInFlight = Math.max(stats.peakInFlight, ++stats.inFlight);
    res.once("close", () => stats.inFlight--);
    handle(req, res).then(
      (outcome) => {
        if (outcome !== "error") stats.faults[outcome] = (stats.faults[outcome] ?? 0) + 1;
      },
      (e: unknown) => {
        if (!res.headersSent && !res.destroyed) sendJson(res, 500, dialect.errorBody(500, String(e), "req_internal"));
      },
    );
  });
  return {
    url,
    requests,
    stats,
    setBehavior(b) {
      if (b.respond) respond = b.respond;
      if (b.recordBodies !== undefined) recordBodies = b.recordBodies;
      const { respond: _r, recordBodies: _k, ...faults } = b;
      plan.set({ ...plan.options, ...faults }, count);
    },
    close,
  };
}
