import type { CustomChecks } from "../checks/custom.js";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { RubricateError, toRubricateError } from "../errors.js";
import type { EngineJudge } from "../judge/create.js";
import type { ErrorPolicy } from "../score/aggregate.js";
import type { Rubric } from "../rubric/schema.js";
import { bearerToken, tokenMatches } from "./auth.js";
import { allowedHosts, guardRequest } from "./guard.js";
import { answerClientErrors, HttpAnswer, HttpError, parseJson, readBody, sendError, sendJson } from "./http.js";
import { defaultMapping, type FieldMapping } from "./protocol.js";
import { requestScorer } from "./request-scoring.js";
import { rewardRoutes, type Route } from "./routes.js";
import type { SampleCriteriaPolicy } from "./sample-criteria.js";
import { StatsRecorder, type BridgeStats } from "./stats.js";

export type { Route } from "./routes.js";

/** Options of `createRewardServer`. */
export interface RewardServerOptions {
  rubric: Rubric;
  /** Custom check functions by name for the rubric's `check: { custom: name }` (built-ins need not be passed). */
  checks?: CustomChecks;
  /** One judge (one engine, cache and scheduler) shared by every request. */
  judge?: EngineJudge;
  /** When set, every route but `/healthz` needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Largest request body in bytes (default 128 MiB: a whole OpenRLHF batch of 8,192+ long queries). */
  maxBodyBytes?: number;
  /** Most samples in one request (default 16,384); more is a 413 naming --max-samples. */
  maxSamples?: number;
  /**
   * Per-request deadline (default 150,000 ms, under OpenRLHF's 180 s client timeout). Samples not
   * scored by then are failures (`DEADLINE`); their judge calls go on and are cached, so the
   * trainer's retry is cheap (with a judge on no cache, `--no-cache`, the retry pays again, and
   * the answer says so). When nothing was scored the answer is a 504.
   */
  timeoutMs?: number;
  /** Samples of one request scored at once (default 128); the judge's scheduler limits calls across requests. */
  concurrency?: number;
  /** What a criterion error does to the reward (default "null": no reward, reason in `errors`). */
  errors?: ErrorPolicy;
  /** How OpenRLHF rows map to the rubric's inputs (default: `defaultMapping(rubric)`). */
  mapping?: FieldMapping;
  /** Sample-added criteria: "checks" (default: pure checks only), "questions" (also paid LLM questions), "off". */
  sampleCriteria?: SampleCriteriaPolicy;
  /** @deprecated use `sampleCriteria`; `false` is "off". */
  allowSampleCriteria?: boolean;
  /** `/get_reward` reward of a sample without one (default 0.0); it is counted in `extra_logs`, stats and the log. */
  fallbackReward?: number;
  /**
   * Share of a request's samples that may fail from a judge outage (provider errors, deadline)
   * before the whole request is answered 503 + Retry-After instead (default 0.25): trainers retry
   * rather than train on fallback rewards.
   */
  maxErrorShare?: number;
  /** Seconds sent in `Retry-After` with a 503 (default 10). */
  retryAfterS?: number;
  /** Extra `Host` names accepted besides the bound address (e.g. "reward.internal:8000"). */
  allowHosts?: string[];
  /**
   * A client must send its request headers within this (default 10,000 ms, or `requestTimeoutMs`
   * when that is lower), its whole request within `requestTimeoutMs`. Above a `requestTimeoutMs`
   * also given, it is a BAD_INPUT error.
   */
  headersTimeoutMs?: number;
  /** Time to receive a whole request, body included (default 120,000 ms, or `headersTimeoutMs` when that is higher); scoring time is not counted. */
  requestTimeoutMs?: number;
  /** Open connections at once (default 512); more are closed at once. */
  maxConnections?: number;
  /**
   * Of those, connections that have not yet sent a request that passed the token check (default
   * a quarter of `maxConnections`, at most 64): past it the oldest such socket is closed, so idle
   * or trickling sockets of clients without the token can never fill the server.
   */
  maxPendingConnections?: number;
  /** Told one line per event worth an operator's eye (failed samples, outages); default: nothing. */
  log?: (line: string) => void;
  /** More routes at fixed paths: merged over the built-in ones. */
  routes?: Record<string, Route>;
  /** Routes whose paths carry ids (the environment API of `serve --env`): the route for a method and path, or undefined. */
  dynamicRoutes?: (method: string, path: string) => (Omit<Route, "method"> & { method: string; label?: string }) | undefined;
  /**
   * How long `close` lets requests in flight finish (default 30,000 ms); past it they are aborted
   * (a stalled rollout's policy call, say) and their connections closed, so SIGTERM always ends.
   */
  closeGraceMs?: number;
  /** Runs when the server has drained, before the judge's cache closes (e.g. closing environment sessions). */
  onClose?: () => void | Promise<void>;
}

/** A running reward server. */
export interface RewardServer {
  readonly server: Server;
  /** Starts listening; resolves with the base URL (port 0 picks a free port). */
  listen(port: number, host?: string): Promise<string>;
  /** Stops taking requests, lets the ones in flight finish, then closes the judge's cache. */
  close(): Promise<void>;
  stats(): BridgeStats;
}

/**
 * Builds the HTTP reward server: OpenRLHF's `POST /get_reward`, `POST /v1/score`,
 * `POST /v1/score/one`, `GET /v1/stats` and `GET /healthz`, each a thin adapter over `score()`.
 * The scoring policy (deadline, outages) is request-scoring.ts, the routes routes.ts; here are the
 * dispatch of a request (guard, token, body) and the server's lifecycle (socket limits, drain).
 * @example
 * const srv = createRewardServer({ rubric, judge: createJudge("judges/openai-small.yaml") });
 * const url = await srv.listen(8000); // POST {url}/v1/score {"samples":[{"response":"..."}]}
 */
export function createRewardServer(options: RewardServerOptions): RewardServer {
  const { rubric, judge } = options;
  const maxSamples = options.maxSamples ?? 16_384;
  // The headers are part of the request: a default gives way to the other one given; both given must agree.
  const headersTimeout = options.headersTimeoutMs ?? Math.min(10_000, options.requestTimeoutMs ?? 10_000);
  const requestTimeout = options.requestTimeoutMs ?? Math.max(120_000, headersTimeout);
  if (headersTimeout > requestTimeout) throw new RubricateError("BAD_INPUT", `headersTimeoutMs ${headersTimeout} is above requestTimeoutMs ${requestTimeout}, which bounds it: lower headersTimeoutMs or raise requestTimeoutMs`);
  const log = options.log ?? (() => undefined);
  const stats = new StatsRecorder(judge);
  let hosts: Set<string> | undefined;
  let draining = false;
  let closing: Promise<void> | undefined;
  const idle: (() => void)[] = [];
  /** The work of every request being handled, aborted when the close grace runs out. */
  const inFlight = new Set<AbortController>();

  const scoreRequest = requestScorer({
    rubric,
    judge,
    checks: options.checks,
    maxSamples,
    deadlineMs: options.timeoutMs ?? 150_000,
    concurrency: options.concurrency ?? 128,
    errors: options.errors,
    sampleCriteria: options.sampleCriteria ?? (options.allowSampleCriteria === false ? "off" : "checks"),
    maxErrorShare: options.maxErrorShare ?? 0.25,
    retryAfter: String(options.retryAfterS ?? 10),
    stats,
    log,
  });
  const routes: Record<string, Route> = {
    ...rewardRoutes({ rubric, judge, mapping: options.mapping ?? defaultMapping(rubric), scoreRequest, stats, maxSamples, fallback: options.fallbackReward ?? 0, log, draining: () => draining }),
    ...options.routes,
  };
  const dispatch = requestDispatcher({ routes, options, stats, inFlight, maxBody: options.maxBodyBytes ?? 128 * 1024 * 1024, hosts: () => hosts, draining: () => draining, admitted: (socket) => admitted(socket) });

  let active = 0;
  const server = createServer({ connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 2))) }, (req, res) => {
    active++;
    dispatch(req, res)
      .catch((e) => answerUnexpected(req, res, e, log))
      .finally(() => {
        if (--active === 0) for (const done of idle.splice(0)) done();
      });
  });
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server);
  // Slow clients (slowloris) cannot hold sockets: headers within headersTimeout, the whole request
  // (body included, scoring not) within requestTimeout, and a cap on open connections.
  server.headersTimeout = headersTimeout;
  server.requestTimeout = requestTimeout;
  server.maxConnections = options.maxConnections ?? 512;
  // Sockets that have not shown the token share a small budget of their own (limitPendingSockets).
  const admitted = limitPendingSockets(server, options.maxPendingConnections ?? Math.max(1, Math.min(64, Math.floor(server.maxConnections / 4))));

  /** Waits for requests in flight; past `graceMs` aborts their work and gives them a second to answer before their sockets go. */
  const drainWithin = async (graceMs: number) => {
    const drained = new Promise<void>((r) => idle.push(r));
    const waited = (ms: number) => new Promise<"late">((r) => setTimeout(() => r("late"), ms).unref());
    if ((await Promise.race([drained, waited(graceMs)])) !== "late") return;
    log(`aborting ${active} request(s) still running after the ${graceMs} ms shutdown grace`);
    for (const controller of inFlight) controller.abort(new HttpError(503, "SHUTTING_DOWN", `the server is shutting down and stopped this request after ${graceMs} ms; retry against its replacement`));
    await Promise.race([drained, waited(1000)]);
  };

  return {
    server,
    stats: () => stats.snapshot(),
    listen: (port, host = "127.0.0.1") =>
      new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          const address = server.address() as AddressInfo;
          hosts = allowedHosts(address.address, address.port, options.allowHosts);
          const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
          resolve(`http://${shown}:${address.port}`);
        });
      }),
    close: () =>
      (closing ??= (async () => {
        draining = true;
        const stopped = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        // In-flight requests finish and are answered within the grace; then idle keep-alive sockets go.
        if (active > 0) await drainWithin(options.closeGraceMs ?? 30_000);
        server.closeAllConnections();
        await stopped;
        await options.onClose?.();
        await judge?.close?.();
      })()),
  };
}

/** What a request's dispatch reads of the server. */
interface DispatchContext {
  routes: Record<string, Route>;
  options: Pick<RewardServerOptions, "token" | "dynamicRoutes">;
  stats: StatsRecorder;
  inFlight: Set<AbortController>;
  maxBody: number;
  hosts: () => Set<string> | undefined;
  draining: () => boolean;
  /** Called once a request showed the token: its socket leaves the pending budget. */
  admitted: (socket: Socket) => void;
}

/**
 * Handles one request: the route by path, then the guard (Host, Origin, Content-Type), the method,
 * the token, and only then the body; every failure is answered as `{ error: { code, message } }`.
 */
function requestDispatcher({ routes, options, stats, inFlight, maxBody, hosts, draining, admitted }: DispatchContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const path = pathOf(req.url ?? "/");
    const route = path === undefined ? undefined : ((Object.hasOwn(routes, path) ? routes[path] : undefined) ?? options.dynamicRoutes?.(req.method ?? "GET", path));
    // Dynamic routes carry ids in their paths: their stats go under the route's label, not each path.
    const end = stats.begin(route === undefined || path === undefined ? "other" : ((route as { label?: string }).label ?? path));
    res.on("close", () => end(res.statusCode));
    try {
      if (path === undefined) throw new HttpError(400, "INVALID_REQUEST", "the request target is not a URL path; send a path such as /get_reward");
      // Order matters: nothing of the body is read before the request is known to be ours and allowed.
      guardRequest(req, hosts());
      if (!route) throw new HttpError(404, "NOT_FOUND", `no route ${req.method} ${path}; try ${Object.entries(routes).map(([p, r]) => `${r.method} ${p}`).join(", ")}`);
      if (req.method !== route.method) throw new HttpError(405, "METHOD_NOT_ALLOWED", `${path} takes ${route.method}, not ${req.method}`);
      if (draining() && path !== "/healthz") throw new HttpError(503, "SHUTTING_DOWN", "the server is shutting down; retry against its replacement");
      if (route.auth && options.token !== undefined && !tokenMatches(bearerToken(req), options.token)) {
        throw new HttpError(401, "UNAUTHORIZED", req.headers.authorization ? "wrong token" : "this server needs a token: send Authorization: Bearer <token>");
      }
      if (route.auth) admitted(req.socket);
      const body = route.method === "POST" ? parseJson(await readBody(req, maxBody)) : undefined;
      if (route.method === "POST" && (typeof body !== "object" || body === null || Array.isArray(body))) throw new HttpError(400, "INVALID_REQUEST", "the body must be a JSON object");
      const controller = new AbortController();
      // A client that hangs up stops its own work (a shared in-flight call continues for the others).
      const onClose = () => {
        if (!res.writableFinished) controller.abort(new HttpError(499, "CLIENT_CLOSED", "the client closed the connection"));
      };
      res.on("close", onClose);
      inFlight.add(controller);
      try {
        const answer = await route.handle(body, controller.signal);
        const { body: sent, headers } = answer instanceof HttpAnswer ? answer : { body: answer, headers: {} };
        sendJson(res, 200, sent, draining() ? { ...headers, connection: "close" } : headers, route.serialize);
      } catch (e) {
        if (controller.signal.aborted && controller.signal.reason instanceof HttpError) throw controller.signal.reason;
        throw e;
      } finally {
        inFlight.delete(controller);
        res.off("close", onClose);
      }
    } catch (e) {
      const error = e instanceof HttpError ? e : new HttpError(500, toRubricateError(e).code, toRubricateError(e).message);
      const headers: Record<string, string> = { ...error.headers };
      if (error.status === 401) headers["www-authenticate"] = 'Bearer realm="rubricate"';
      // A refused request's body is never read, so the connection cannot carry another request.
      if (!req.complete || error.status === 413 || draining()) headers.connection = "close";
      res.once("finish", () => end(error.status, error.code));
      sendError(res, error, headers);
      if (headers.connection === "close") res.once("finish", () => req.socket.destroySoon());
    }
  };
}

/**
 * The path a request targets, trailing slashes dropped; undefined when the target is no URL at
 * all. Node's parser accepts any target without spaces (`//[`, `http://a:99999/x`), which
 * `new URL` refuses by throwing: thrown outside the dispatch's error handling, one such request
 * ended the server.
 */
function pathOf(target: string): string | undefined {
  if (!URL.canParse(target, "http://localhost")) return undefined;
  return new URL(target, "http://localhost").pathname.replace(/\/+$/, "") || "/";
}

/**
 * The backstop under every request: a throw the dispatch did not answer (a bug, or a failing
 * `dynamicRoutes` of the embedding code) is a 500 in the usual JSON shape, or a closed socket when
 * the answer had begun; never an unhandled rejection, which would end the process. The client
 * gets no stack; the operator's log gets the error.
 */
function answerUnexpected(req: IncomingMessage, res: ServerResponse, error: unknown, log: (line: string) => void): void {
  try {
    if (res.headersSent) res.destroy();
    else {
      sendError(res, new HttpError(500, "INTERNAL", "the server failed to answer this request; the operator's log has the reason"), { connection: "close" });
      res.once("finish", () => req.socket.destroySoon());
    }
  } catch {
    res.destroy();
  }
  try {
    log(`unexpected error answering ${req.method} ${JSON.stringify(req.url)}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } catch {
    // The log is the operator's function: its failure must not end the server either.
  }
}

/**
 * Sockets that have not yet sent a request that passed the token check share a budget of their
 * own: past it, the oldest that have waited a second without doing so are closed (a burst of new
 * clients is not: they are still sending their first request), so idle or trickling sockets
 * cannot hold the places of the clients that have the token. Returns the call that admits a socket.
 */
function limitPendingSockets(server: Server, maxPending: number): (socket: Socket) => void {
  const pending = new Map<Socket, number>();
  const evictStale = () => {
    const cutoff = Date.now() - PENDING_GRACE_MS;
    for (const [socket, since] of pending) {
      if (pending.size <= maxPending || since > cutoff) break;
      pending.delete(socket);
      socket.destroy();
    }
  };
  server.on("connection", (socket: Socket) => {
    pending.set(socket, Date.now());
    socket.once("close", () => pending.delete(socket));
    evictStale();
  });
  const sweeper = setInterval(evictStale, PENDING_GRACE_MS / 2).unref();
  server.once("close", () => clearInterval(sweeper));
  return (socket) => void pending.delete(socket);
}

/** How long a new socket may take to show the token before it can be closed to make room. */
const PENDING_GRACE_MS = 1000;
