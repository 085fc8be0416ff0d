import type { CustomChecks } from "../checks/custom.js";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { score } from "../score/score.js";
import { advantagesByPrompt } from "../score/group.js";
import { toRubricateError, type ErrorCode } from "../errors.js";
import type { EngineJudge } from "../judge/create.js";
import type { ErrorPolicy } from "../score/aggregate.js";
import type { Rubric } from "../rubric/schema.js";
import { addUsage, emptyUsage, type Sample, type ScoreResult } from "../types.js";
import { bearerToken, tokenMatches } from "./auth.js";
import { allowedHosts, guardRequest } from "./guard.js";
import { HttpError, parseJson, readBody, sendError, sendJson } from "./http.js";
import {
  defaultMapping,
  errorText,
  openrlhfResponse,
  openrlhfSamples,
  OpenRLHFRequestSchema,
  parseRequest,
  ScoreOneRequestSchema,
  ScoreRequestSchema,
  trainerJson,
  wireResult,
  type FieldMapping,
  type RowOutcome,
} from "./protocol.js";
import { refusedSampleCriterion, type SampleCriteriaPolicy } from "./sample-criteria.js";
import { StatsRecorder, type BridgeStats } from "./stats.js";

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
   * trainer's retry is cheap. When nothing was scored the answer is a 504.
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
  /** A client must send its request headers within this (default 10,000 ms), its whole request within `requestTimeoutMs`. */
  headersTimeoutMs?: number;
  /** Time to receive a whole request, body included (default 120,000 ms); scoring time is not counted. */
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

/** One route: its method, whether it needs the token, and the handler of its parsed JSON body. */
export interface Route {
  method: "GET" | "POST";
  auth: boolean;
  handle: (body: unknown, signal: AbortSignal) => Promise<unknown>;
  /** Writes the answer as JSON text (default `JSON.stringify`); `/get_reward` writes floats. */
  serialize?: (answer: unknown) => string;
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

/** Error codes that mean the judge is out (or too slow), not that the sample is bad. */
const OUTAGE_CODES = new Set<ErrorCode>(["PROVIDER_HTTP", "PROVIDER_TIMEOUT", "PROVIDER_NETWORK", "RATE_LIMITED", "MISSING_API_KEY", "CACHE", "INTERNAL", "DEADLINE"]);
// Whatever --errors made of the reward: with "zero" an outage must not hide behind 0s.
const isOutage = (r: ScoreResult) => r.errors.some((e) => OUTAGE_CODES.has(e.code));

const deadlineResult = (ms: number): ScoreResult => ({
  reward: null,
  verdicts: [],
  errors: [{ criterion: "*", code: "DEADLINE", message: `not scored within the request deadline of ${ms} ms (--timeout-ms); its judge calls go on and are cached, so a retry is cheap` }],
  feedback: "",
  usage: emptyUsage(),
});

/**
 * Builds the HTTP reward server: OpenRLHF's `POST /get_reward`, `POST /v1/score`,
 * `POST /v1/score/one`, `GET /v1/stats` and `GET /healthz`, each a thin adapter over `score()`.
 * @example
 * const srv = createRewardServer({ rubric, judge: createJudge("judges/openai-small.yaml") });
 * const url = await srv.listen(8000); // POST {url}/v1/score {"samples":[{"response":"..."}]}
 */
export function createRewardServer(options: RewardServerOptions): RewardServer {
  const { rubric, judge } = options;
  const maxBody = options.maxBodyBytes ?? 128 * 1024 * 1024;
  const maxSamples = options.maxSamples ?? 16_384;
  const deadlineMs = options.timeoutMs ?? 150_000;
  const mapping = options.mapping ?? defaultMapping(rubric);
  const fallback = options.fallbackReward ?? 0;
  const maxErrorShare = options.maxErrorShare ?? 0.25;
  const retryAfter = String(options.retryAfterS ?? 10);
  const sampleCriteria: SampleCriteriaPolicy = options.sampleCriteria ?? (options.allowSampleCriteria === false ? "off" : "checks");
  const criterionIds = rubric.criteria.map((c) => c.id);
  const log = options.log ?? (() => undefined);
  const stats = new StatsRecorder(judge);
  let hosts: Set<string> | undefined;
  let draining = false;
  let closing: Promise<void> | undefined;
  const idle: (() => void)[] = [];
  /** The work of every request being handled, aborted when the close grace runs out. */
  const inFlight = new Set<AbortController>();

  /**
   * Scores samples until they are done or the deadline passes (unfinished ones become `DEADLINE`
   * failures). Too many outage failures make the whole request a 503 (or a 504 when nothing was
   * scored in time): a trainer retries those instead of training on fallback rewards.
   */
  const scoreAll = async (samples: Sample[], signal: AbortSignal): Promise<ScoreResult[]> => {
    if (samples.length > maxSamples) throw new HttpError(413, "TOO_MANY_SAMPLES", `${samples.length} samples in one request; the limit is ${maxSamples}: start rubricate serve with a larger --max-samples, or split the batch`);
    const tooDeep = samples.findIndex((s) => nestingDepth(s) > MAX_SAMPLE_DEPTH);
    if (tooDeep >= 0) throw new HttpError(400, "SAMPLE_TOO_DEEP", `samples.${tooDeep}: nested deeper than ${MAX_SAMPLE_DEPTH} levels of objects and arrays; a sample is its inputs, a few levels at most (a transcript's tool calls are 6)`, `samples.${tooDeep}`);
    const refused = refusedSampleCriterion(samples, sampleCriteria);
    if (refused) throw refused;
    stats.samplesStarted(samples.length);
    const done: (ScoreResult | undefined)[] = Array.from({ length: samples.length }, () => undefined);
    let timer: NodeJS.Timeout | undefined;
    try {
      const run = score(rubric, samples, { judge, concurrency: options.concurrency ?? 128, errors: options.errors, signal, checks: options.checks, clientCriteria: true, onProgress: ({ result, index }) => (done[index] = result) });
      run.catch(() => undefined); // past the deadline nobody awaits it; its calls still land in the cache
      const expired = new Promise<"expired">((resolve) => (timer = setTimeout(() => resolve("expired"), deadlineMs)));
      await Promise.race([run, expired]);
    } catch (e) {
      stats.samplesDone(samples.length, done.filter((r): r is ScoreResult => r !== undefined));
      throw e;
    } finally {
      clearTimeout(timer);
    }
    const late = done.filter((r) => r === undefined).length;
    const results = Array.from(done, (r) => r ?? deadlineResult(deadlineMs));
    stats.samplesDone(samples.length, results);
    const failed = results.filter((r) => r.reward === null).length;
    if (failed > 0) log(`${failed} of ${samples.length} sample(s) without a reward (${summarize(results)})`);
    if (late === samples.length && samples.length > 0) {
      throw new HttpError(504, "TIMEOUT", `scoring took longer than ${deadlineMs} ms (--timeout-ms); answers already paid for are cached, so a retry is cheap`, undefined, { "retry-after": retryAfter });
    }
    const outages = results.filter(isOutage).length;
    if (samples.length > 0 && outages / samples.length > maxErrorShare) {
      log(`answering 503: ${outages} of ${samples.length} samples failed from a judge outage (more than --max-error-share ${maxErrorShare})`);
      throw new HttpError(503, "JUDGE_UNAVAILABLE", `${outages} of ${samples.length} samples could not be scored because the judge failed (${summarize(results)}); retry later: answers already paid for are cached`, undefined, { "retry-after": retryAfter });
    }
    return results;
  };
  const usageOf = (results: ScoreResult[]) => results.reduce((u, r) => addUsage(u, r.usage ?? {}), emptyUsage());

  const cacheHealth = () => {
    const c = judge?.engine.cache.stats;
    return c?.status === "degraded" ? { status: "degraded" as const, reason: c.reason, since: c.since } : { status: "ok" as const };
  };
  const routes: Record<string, Route> = {
    // Still 200 while the shared cache is degraded (this replica answers from its own memory and
    // pays for misses): `status` and `cache` say so, with the reason, for whoever watches.
    "/healthz": { method: "GET", auth: false, handle: async () => ({ ok: true, status: cacheHealth().status, cache: cacheHealth(), rubric: rubric.id, version: rubric.version, inputs: rubric.inputs, response_field: mapping.response, prompt_field: mapping.prompt ?? null, label_field: mapping.label ?? null, label_fields: mapping.labelFields, draining }) },
    "/v1/stats": { method: "GET", auth: true, handle: async () => stats.snapshot() },
    "/v1/score": {
      method: "POST",
      auth: true,
      handle: async (body, signal) => {
        const { samples, group_by: groupBy, advantage } = parseRequest(ScoreRequestSchema, body);
        if (groupBy !== undefined) {
          const missing = samples.findIndex((s) => s[groupBy] === undefined);
          if (missing >= 0) throw new HttpError(400, "INVALID_REQUEST", `samples.${missing}.${groupBy}: group_by names a field every sample must have`, `samples.${missing}.${groupBy}`);
        }
        const results = await scoreAll(samples as Sample[], signal);
        const rewards = results.map((r) => r.reward);
        const advantages = groupBy === undefined ? undefined : advantagesByPrompt(samples.map((s) => (typeof s[groupBy] === "string" ? (s[groupBy] as string) : JSON.stringify(s[groupBy]))), rewards, { scale: advantage });
        return { rewards, ...(advantages ? { advantages } : {}), errors: results.map(errorText), results: results.map(wireResult), usage: usageOf(results) };
      },
    },
    "/v1/score/one": {
      method: "POST",
      auth: true,
      handle: async (body, signal) => {
        const { sample } = parseRequest(ScoreOneRequestSchema, body);
        const [result] = await scoreAll([sample as Sample], signal);
        return { reward: result.reward, error: errorText(result), result: wireResult(result), usage: result.usage };
      },
    },
    "/get_reward": {
      method: "POST",
      auth: true,
      serialize: trainerJson,
      handle: async (body, signal) => {
        const request = parseRequest(OpenRLHFRequestSchema, body);
        if (request.query.length > maxSamples) throw new HttpError(413, "TOO_MANY_SAMPLES", `${request.query.length} queries in one request; the limit is ${maxSamples}: start rubricate serve with a larger --max-samples`);
        const rows = openrlhfSamples(request, mapping);
        const scorable = rows.flatMap((row, i) => ("sample" in row ? [{ i, sample: row.sample }] : []));
        const results = await scoreAll(
          scorable.map((s) => s.sample),
          signal,
        );
        const merged: RowOutcome[] = rows.map((row) => ("error" in row ? row.error : ""));
        scorable.forEach((s, k) => (merged[s.i] = results[k]));
        const unscorable = rows.length - scorable.length;
        if (unscorable > 0) log(`${unscorable} of ${rows.length} OpenRLHF queries could not be mapped to a sample (${(rows.find((r) => "error" in r) as { error: string }).error})`);
        const answer = openrlhfResponse(merged, criterionIds, fallback);
        const given = answer.extra_logs.rubricate_error.filter((e) => e === 1).length;
        if (given > 0) {
          stats.fallbacksGiven(given);
          log(`${given} of ${rows.length} OpenRLHF sample(s) answered with the fallback reward ${fallback} (counted in extra_logs.rubricate_error)`);
        }
        return answer;
      },
    },
    ...options.routes,
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname.replace(/\/+$/, "") || "/";
    const route = (Object.hasOwn(routes, path) ? routes[path] : undefined) ?? options.dynamicRoutes?.(req.method ?? "GET", path);
    // Dynamic routes carry ids in their paths: their stats go under the route's label, not each path.
    const end = stats.begin(route ? ((route as { label?: string }).label ?? path) : "other");
    res.on("close", () => end(res.statusCode));
    try {
      // Order matters: nothing of the body is read before the request is known to be ours and allowed.
      guardRequest(req, hosts);
      if (!route) throw new HttpError(404, "NOT_FOUND", `no route ${req.method} ${path}; try ${Object.entries(routes).map(([p, r]) => `${r.method} ${p}`).join(", ")}`);
      if (req.method !== route.method) throw new HttpError(405, "METHOD_NOT_ALLOWED", `${path} takes ${route.method}, not ${req.method}`);
      if (draining && path !== "/healthz") throw new HttpError(503, "SHUTTING_DOWN", "the server is shutting down; retry against its replacement");
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
        sendJson(res, 200, answer, draining ? { connection: "close" } : {}, route.serialize);
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
      if (!req.complete || error.status === 413 || draining) headers.connection = "close";
      res.once("finish", () => end(error.status, error.code));
      sendError(res, error, headers);
      if (headers.connection === "close") res.once("finish", () => req.socket.destroySoon());
    }
  };

  let active = 0;
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const server = createServer({ connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 2))) }, (req, res) => {
    active++;
    handle(req, res).finally(() => {
      if (--active === 0) for (const done of idle.splice(0)) done();
    });
  });
  server.keepAliveTimeout = 65_000;
  // Slow clients (slowloris) cannot hold sockets: headers within headersTimeout, the whole request
  // (body included, scoring not) within requestTimeout, and a cap on open connections.
  server.headersTimeout = headersTimeout;
  server.requestTimeout = Math.max(headersTimeout, options.requestTimeoutMs ?? 120_000);
  server.maxConnections = options.maxConnections ?? 512;
  // Sockets that have not shown the token share a small budget of their own: past it, the oldest
  // that have waited a second without doing so are closed (a burst of new clients is not: they are
  // still sending their first request), so idle or trickling sockets cannot hold the places of
  // the clients that have the token.
  const maxPending = options.maxPendingConnections ?? Math.max(1, Math.min(64, Math.floor(server.maxConnections / 4)));
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
  const admitted = (socket: Socket) => void pending.delete(socket);

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

/** How long a new socket may take to show the token before it can be closed to make room. */
const PENDING_GRACE_MS = 1000;

/** Deeper samples are refused: the judge's prompt and cache key are built by recursion, which such a sample would overflow. */
const MAX_SAMPLE_DEPTH = 128;

/** How deeply objects and arrays nest in a JSON value (a loop, not recursion: the value may be 100,000 levels deep). */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_SAMPLE_DEPTH) return deepest;
    for (const child of Object.values(node)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return deepest;
}

/** "3 JUDGE_PARSE, 1 DEADLINE: first message" for log lines and 503 bodies. */
function summarize(results: ScoreResult[]): string {
  const counts = new Map<string, number>();
  let first: string | undefined;
  for (const r of results) {
    if (r.reward !== null) continue;
    for (const code of new Set(r.errors.map((e) => e.code))) counts.set(code, (counts.get(code) ?? 0) + 1);
    first ??= r.errors[0]?.message;
  }
  const codes = [...counts].map(([code, n]) => `${n} ${code}`).join(", ") || "no reward";
  return first ? `${codes}; first: ${first.slice(0, 200)}` : codes;
}
