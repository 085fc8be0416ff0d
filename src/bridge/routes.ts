/**
 * The reward server's built-in routes, each a thin adapter over the request scorer: OpenRLHF's
 * `POST /get_reward`, `POST /v1/score`, `POST /v1/score/one`, `GET /v1/stats` and `GET /healthz`.
 */
import type { EngineJudge } from "../judge/create.js";
import type { Rubric } from "../rubric/schema.js";
import { advantagesByPrompt } from "../score/group.js";
import { addUsage, emptyUsage, type Sample, type ScoreResult } from "../types.js";
import { HttpError } from "./http.js";
import {
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
import type { ScoreRequest } from "./request-scoring.js";
import type { StatsRecorder } from "./stats.js";

/** One route: its method, whether it needs the token, and the handler of its parsed JSON body. */
export interface Route {
  method: "GET" | "POST";
  auth: boolean;
  handle: (body: unknown, signal: AbortSignal) => Promise<unknown>;
  /** Writes the answer as JSON text (default `JSON.stringify`); `/get_reward` writes floats. */
  serialize?: (answer: unknown) => string;
}

/** What the built-in routes read. */
export interface RewardRoutesOptions {
  rubric: Rubric;
  judge?: EngineJudge;
  mapping: FieldMapping;
  scoreRequest: ScoreRequest;
  stats: StatsRecorder;
  maxSamples: number;
  /** `/get_reward` reward of a sample without one. */
  fallback: number;
  log: (line: string) => void;
  /** Whether the server is shutting down (shown by `/healthz`). */
  draining: () => boolean;
}

const usageOf = (results: ScoreResult[]) => results.reduce((u, r) => addUsage(u, r.usage ?? {}), emptyUsage());

/** The built-in routes by path. */
export function rewardRoutes(o: RewardRoutesOptions): Record<string, Route> {
  const { rubric, mapping } = o;
  const criterionIds = rubric.criteria.map((c) => c.id);
  const cacheHealth = () => {
    const c = o.judge?.engine.cache.stats;
    return c?.status === "degraded" ? { status: "degraded" as const, reason: c.reason, since: c.since } : { status: "ok" as const };
  };
  return {
    // Still 200 while the shared cache is degraded (this replica answers from its own memory and
    // pays for misses): `status` and `cache` say so, with the reason, for whoever watches.
    "/healthz": { method: "GET", auth: false, handle: async () => ({ ok: true, status: cacheHealth().status, cache: cacheHealth(), rubric: rubric.id, version: rubric.version, inputs: rubric.inputs, response_field: mapping.response, prompt_field: mapping.prompt ?? null, label_field: mapping.label ?? null, label_fields: mapping.labelFields, draining: o.draining() }) },
    "/v1/stats": { method: "GET", auth: true, handle: async () => o.stats.snapshot() },
    "/v1/score": {
      method: "POST",
      auth: true,
      handle: async (body, signal) => {
        const { samples, group_by: groupBy, advantage } = parseRequest(ScoreRequestSchema, body);
        if (groupBy !== undefined) {
          // Own fields only: "toString" or "constructor" are on every object's prototype, in no sample.
          const missing = samples.findIndex((s) => !Object.hasOwn(s, groupBy));
          if (missing >= 0) throw new HttpError(400, "INVALID_REQUEST", `samples.${missing}.${groupBy}: group_by names a field every sample must have`, `samples.${missing}.${groupBy}`);
        }
        const results = await o.scoreRequest(samples as Sample[], signal);
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
        const [result] = await o.scoreRequest([sample as Sample], signal, () => "sample");
        return { reward: result.reward, error: errorText(result), result: wireResult(result), usage: result.usage };
      },
    },
    "/get_reward": { method: "POST", auth: true, serialize: trainerJson, handle: (body, signal) => getReward(o, criterionIds, body, signal) },
  };
}

/** OpenRLHF's `/get_reward`: rows mapped to samples, scored, and answered with floats (the fallback reward where a row has none). */
async function getReward(o: RewardRoutesOptions, criterionIds: string[], body: unknown, signal: AbortSignal) {
  const request = parseRequest(OpenRLHFRequestSchema, body);
  if (request.query.length > o.maxSamples) throw new HttpError(413, "TOO_MANY_SAMPLES", `${request.query.length} queries in one request; the limit is ${o.maxSamples}: start rubricate serve with a larger --max-samples`);
  const rows = openrlhfSamples(request, o.mapping);
  const scorable = rows.flatMap((row, i) => ("sample" in row ? [{ i, sample: row.sample }] : []));
  // A mapped row's criteria and nested values come from its label: an error names `labels.<query index>`.
  const results = await o.scoreRequest(
    scorable.map((s) => s.sample),
    signal,
    (k) => `labels.${scorable[k].i}`,
  );
  const merged: RowOutcome[] = rows.map((row) => ("error" in row ? row.error : ""));
  scorable.forEach((s, k) => (merged[s.i] = results[k]));
  const unscorable = rows.length - scorable.length;
  if (unscorable > 0) o.log(`${unscorable} of ${rows.length} OpenRLHF queries could not be mapped to a sample (${(rows.find((r) => "error" in r) as { error: string }).error})`);
  const answer = openrlhfResponse(merged, criterionIds, o.fallback);
  const given = answer.extra_logs.rubricate_error.filter((e) => e === 1).length;
  if (given > 0) {
    o.stats.fallbacksGiven(given);
    o.log(`${given} of ${rows.length} OpenRLHF sample(s) answered with the fallback reward ${o.fallback} (counted in extra_logs.rubricate_error)`);
  }
  return answer;
}
