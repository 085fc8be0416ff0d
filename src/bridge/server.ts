import type { CustomChecks } from "../checks/custom.js";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { score } from "../score/score.js";
import { toRubricateError } from "../errors.js";
import type { EngineJudge } from "../judge/create.js";
import type { ErrorPolicy } from "../score/aggregate.js";
import type { Rubric } from "../rubric/schema.js";
import { addUsage, emptyUsage, type Sample, type ScoreResult } from "../types.js";
import { bearerToken, tokenMatches } from "./auth.js";
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
  wireResult,
  type FieldMapping,
} from "./protocol.js";
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
  /** Largest request body in bytes (default 16 MiB). */
  maxBodyBytes?: number;
  /** Most samples in one request (default 4096); more is a 413 telling the client to split. */
  maxSamples?: number;
  /** A request still scoring after this long is answered 504; paid answers stay cached (default 600,000). */
  timeoutMs?: number;
  /** Samples of one request scored at once (default 128); the judge's scheduler limits calls across requests. */
  concurrency?: number;
  /** What a criterion error does to the reward (default "null": no reward, reason in `errors`). */
  errors?: ErrorPolicy;
  /** How OpenRLHF rows map to the rubric's inputs (default: `defaultMapping(rubric)`). */
  mapping?: FieldMapping;
  /**
   * Accept samples that carry their own `criteria` (per-sample rubrics, default true). Off, such
   * a request is a 400: clients cannot make the judge answer questions the operator did not write.
   */
  allowSampleCriteria?: boolean;
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

type Handler = (body: unknown, signal: AbortSignal) => Promise<unknown>;

/**
 * Builds the HTTP reward server: OpenRLHF's `POST /get_reward`, `POST /v1/score`,
 * `POST /v1/score/one`, `GET /v1/stats` and `GET /healthz`, each a thin adapter over `score()`.
 * @example
 * const srv = createRewardServer({ rubric, judge: createJudge("judges/openai-small.yaml") });
 * const url = await srv.listen(8000); // POST {url}/v1/score {"samples":[{"response":"..."}]}
 */
export function createRewardServer(options: RewardServerOptions): RewardServer {
  const { rubric, judge } = options;
  const maxBody = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const maxSamples = options.maxSamples ?? 4096;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const mapping = options.mapping ?? defaultMapping(rubric);
  const stats = new StatsRecorder(judge);
  let draining = false;
  let closing: Promise<void> | undefined;
  const idle: (() => void)[] = [];

  const scoreAll = async (samples: Sample[], signal: AbortSignal) => {
    if (samples.length > maxSamples) throw new HttpError(413, "TOO_MANY_SAMPLES", `${samples.length} samples in one request; the limit is ${maxSamples} (--max-samples): split the batch`);
    if (options.allowSampleCriteria === false) {
      const index = samples.findIndex((sample) => sample && typeof sample === "object" && "criteria" in sample);
      if (index >= 0) throw new HttpError(400, "SAMPLE_CRITERIA_REFUSED", `samples.${index}.criteria: this server scores only its rubric's criteria (started with --no-sample-criteria)`, `samples.${index}.criteria`);
    }
    stats.samplesStarted(samples.length);
    let results: ScoreResult[] = [];
    try {
      results = await score(rubric, samples, { judge, concurrency: options.concurrency ?? 128, errors: options.errors, signal, checks: options.checks });
      return results;
    } finally {
      stats.samplesDone(samples.length, results);
    }
  };
  const usageOf = (results: ScoreResult[]) => results.reduce((u, r) => addUsage(u, r.usage ?? {}), emptyUsage());

  const routes: Record<string, { method: string; auth: boolean; handle: Handler }> = {
    "/healthz": { method: "GET", auth: false, handle: async () => ({ ok: true, rubric: rubric.id, version: rubric.version, inputs: rubric.inputs, response_field: mapping.response, draining }) },
    "/v1/stats": { method: "GET", auth: true, handle: async () => stats.snapshot() },
    "/v1/score": {
      method: "POST",
      auth: true,
      handle: async (body, signal) => {
        const { samples } = parseRequest(ScoreRequestSchema, body);
        const results = await scoreAll(samples as Sample[], signal);
        return { rewards: results.map((r) => r.reward), errors: results.map(errorText), results: results.map(wireResult), usage: usageOf(results) };
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
      handle: async (body, signal) => {
        const rows = openrlhfSamples(parseRequest(OpenRLHFRequestSchema, body), mapping);
        if (rows.length > maxSamples) throw new HttpError(413, "TOO_MANY_SAMPLES", `${rows.length} queries in one request; the limit is ${maxSamples} (--max-samples): split the batch`);
        const scorable = rows.flatMap((row, i) => ("sample" in row ? [{ i, sample: row.sample }] : []));
        const results = await scoreAll(scorable.map((s) => s.sample), signal);
        const merged: (ScoreResult | string)[] = rows.map((row) => ("error" in row ? row.error : ""));
        scorable.forEach((s, k) => (merged[s.i] = results[k]));
        return openrlhfResponse(merged);
      },
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname.replace(/\/+$/, "") || "/";
    const route = routes[path];
    const end = stats.begin(route ? path : "other");
    res.on("close", () => end(res.statusCode));
    try {
      if (!route) throw new HttpError(404, "NOT_FOUND", `no route ${req.method} ${path}; try POST /v1/score, POST /v1/score/one, POST /get_reward, GET /v1/stats, GET /healthz`);
      if (req.method !== route.method) throw new HttpError(405, "METHOD_NOT_ALLOWED", `${path} takes ${route.method}, not ${req.method}`);
      if (draining && path !== "/healthz") throw new HttpError(503, "SHUTTING_DOWN", "the server is shutting down; retry against its replacement");
      if (route.auth && options.token !== undefined && !tokenMatches(bearerToken(req), options.token)) {
        throw new HttpError(401, "UNAUTHORIZED", req.headers.authorization ? "wrong token" : "this server needs a token: send Authorization: Bearer <token>");
      }
      const body = route.method === "POST" ? parseJson(await readBody(req, maxBody)) : undefined;
      if (route.method === "POST" && (typeof body !== "object" || body === null || Array.isArray(body))) throw new HttpError(400, "INVALID_REQUEST", "the body must be a JSON object");
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new HttpError(504, "TIMEOUT", `scoring took longer than ${timeoutMs} ms (--timeout-ms); answers already paid for are cached, so a retry is cheap`)), timeoutMs);
      // A client that hangs up stops its own work (a shared in-flight call continues for the others).
      const onClose = () => {
        if (!res.writableFinished) controller.abort(new HttpError(499, "CLIENT_CLOSED", "the client closed the connection"));
      };
      res.on("close", onClose);
      try {
        const answer = await route.handle(body, controller.signal);
        sendJson(res, 200, answer, draining ? { connection: "close" } : {});
      } catch (e) {
        if (controller.signal.aborted && controller.signal.reason instanceof HttpError) throw controller.signal.reason;
        throw e;
      } finally {
        clearTimeout(timer);
        res.off("close", onClose);
      }
    } catch (e) {
      const error = e instanceof HttpError ? e : new HttpError(500, toRubricateError(e).code, toRubricateError(e).message);
      const headers: Record<string, string> = {};
      if (error.status === 401) headers["www-authenticate"] = 'Bearer realm="rubricate"';
      // We did not read all of an oversized body; the connection cannot carry another request.
      if (error.status === 413 || draining) headers.connection = "close";
      res.once("finish", () => end(error.status, error.code));
      sendError(res, error, headers);
    }
  };

  let active = 0;
  const server = createServer((req, res) => {
    active++;
    handle(req, res).finally(() => {
      if (--active === 0) for (const done of idle.splice(0)) done();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0; // our own per-request timeout answers 504; Node's would just cut the socket

  return {
    server,
    stats: () => stats.snapshot(),
    listen: (port, host = "127.0.0.1") =>
      new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          const address = server.address() as AddressInfo;
          const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
          resolve(`http://${shown}:${address.port}`);
        });
      }),
    close: () =>
      (closing ??= (async () => {
        draining = true;
        const stopped = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        // In-flight requests finish and are answered; then idle keep-alive sockets go.
        if (active > 0) await new Promise<void>((r) => idle.push(r));
        server.closeAllConnections();
        await stopped;
        await judge?.close?.();
      })()),
  };
}
