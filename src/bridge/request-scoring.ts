/**
 * How the reward server scores one request's samples: the sample caps, a per-request deadline
 * (unfinished samples become `DEADLINE` failures), and the outage rule (too many judge failures
 * make the whole request a 503, nothing scored in time a 504), so a trainer retries instead of
 * training on fallback rewards.
 */
import type { CustomChecks } from "../checks/custom.js";
import type { ErrorCode } from "../errors.js";
import { NullCache } from "../engine/cache/memory.js";
import type { EngineJudge } from "../judge/create.js";
import type { Rubric } from "../rubric/schema.js";
import type { ErrorPolicy } from "../score/aggregate.js";
import { score } from "../score/score.js";
import { emptyUsage, type Sample, type ScoreResult } from "../types.js";
import { refuseTooDeep } from "./depth.js";
import { HttpError } from "./http.js";
import { refusedSampleCriterion, samplesField, type SampleCriteriaPolicy } from "./sample-criteria.js";
import type { StatsRecorder } from "./stats.js";

/** What the scoring of a request needs (the server's options, resolved). */
export interface RequestScoringOptions {
  rubric: Rubric;
  judge?: EngineJudge;
  checks?: CustomChecks;
  maxSamples: number;
  deadlineMs: number;
  concurrency: number;
  errors?: ErrorPolicy;
  sampleCriteria: SampleCriteriaPolicy;
  maxErrorShare: number;
  /** The `Retry-After` value of a 503 or 504. */
  retryAfter: string;
  stats: StatsRecorder;
  log: (line: string) => void;
}

/**
 * Where the k-th sample sits in the request's body, as an error's `field` names it: `samples.3`
 * by default; `sample` on /v1/score/one; `labels.5` on /get_reward, whose samples are the rows that
 * mapped (their criteria and nested values come from the label).
 */
export type SampleField = (k: number) => string;

/** Scores one request's samples, or throws the HttpError the request is answered with. */
export type ScoreRequest = (samples: Sample[], signal: AbortSignal, fieldOf?: SampleField) => Promise<ScoreResult[]>;

/** Error codes that mean the judge is out (or too slow), not that the sample is bad. */
const OUTAGE_CODES = new Set<ErrorCode>(["PROVIDER_HTTP", "PROVIDER_TIMEOUT", "PROVIDER_NETWORK", "RATE_LIMITED", "MISSING_API_KEY", "CACHE", "INTERNAL", "DEADLINE"]);
// Whatever --errors made of the reward: with "zero" an outage must not hide behind 0s.
const isOutage = (r: ScoreResult) => r.errors.some((e) => OUTAGE_CODES.has(e.code));

/**
 * What a retry of a failed request costs, as the 503, the 504 and a DEADLINE say it: the judge's
 * answers are kept, or (`--no-cache`) every call is paid again; without a judge nothing was paid.
 */
type RetryCost = "cached" | "paid-again" | "no-judge";

const retryCostOf = (judge: EngineJudge | undefined): RetryCost => (!judge ? "no-judge" : judge.engine.cache instanceof NullCache ? "paid-again" : "cached");

const DEADLINE_RETRY: Record<RetryCost, string> = {
  cached: "its judge calls go on and are cached, so a retry is cheap",
  "paid-again": "its judge calls go on, but nothing is cached (--no-cache): a retry pays for them again",
  "no-judge": "a retry scores it again",
};

const REQUEST_RETRY: Record<RetryCost, string> = {
  cached: "answers already paid for are cached, so a retry is cheap",
  "paid-again": "nothing is cached (--no-cache), so a retry pays for every judge call again",
  "no-judge": "no judge call was paid, so a retry costs none",
};

const deadlineResult = (ms: number, cost: RetryCost): ScoreResult => ({
  reward: null,
  verdicts: [],
  errors: [{ criterion: "*", code: "DEADLINE", message: `not scored within the request deadline of ${ms} ms (--timeout-ms); ${DEADLINE_RETRY[cost]}` }],
  feedback: "",
  usage: emptyUsage(),
});

/** Refuses a request's samples before any is scored: too many, nested too deeply, or adding criteria the server does not allow or that cost too much. */
function refuseSamples(samples: Sample[], o: RequestScoringOptions, fieldOf: SampleField): void {
  if (samples.length > o.maxSamples) throw new HttpError(413, "TOO_MANY_SAMPLES", `${samples.length} samples in one request; the limit is ${o.maxSamples}: start rubricate serve with a larger --max-samples, or split the batch`);
  // The judge's prompt and cache key are built by recursion, which a deeper sample would overflow.
  refuseTooDeep(samples, fieldOf);
  const refused = refusedSampleCriterion(samples, o.sampleCriteria, { responseField: o.rubric.response_field, fieldOf });
  if (refused) throw refused;
}

/** The samples' results by the deadline: those not finished by then are undefined (their judge calls go on and land in the cache). */
async function scoreByDeadline(samples: Sample[], signal: AbortSignal, o: RequestScoringOptions): Promise<(ScoreResult | undefined)[]> {
  const done: (ScoreResult | undefined)[] = Array.from({ length: samples.length }, () => undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    const run = score(o.rubric, samples, { judge: o.judge, concurrency: o.concurrency, errors: o.errors, signal, checks: o.checks, clientCriteria: true, onProgress: ({ result, index }) => (done[index] = result) });
    run.catch(() => undefined); // past the deadline nobody awaits it; its calls still land in the cache
    const expired = new Promise<"expired">((resolve) => (timer = setTimeout(() => resolve("expired"), o.deadlineMs)));
    await Promise.race([run, expired]);
  } catch (e) {
    o.stats.samplesDone(samples.length, done.filter((r): r is ScoreResult => r !== undefined));
    throw e;
  } finally {
    clearTimeout(timer);
  }
  return done;
}

/**
 * The scorer of a server's requests: samples are scored until they are done or the deadline
 * passes (unfinished ones become `DEADLINE` failures). Too many outage failures make the whole
 * request a 503 (or a 504 when nothing was scored in time).
 */
export function requestScorer(o: RequestScoringOptions): ScoreRequest {
  const cost = retryCostOf(o.judge);
  return async (samples, signal, fieldOf = samplesField) => {
    refuseSamples(samples, o, fieldOf);
    o.stats.samplesStarted(samples.length);
    const done = await scoreByDeadline(samples, signal, o);
    const late = done.filter((r) => r === undefined).length;
    const results = Array.from(done, (r) => r ?? deadlineResult(o.deadlineMs, cost));
    o.stats.samplesDone(samples.length, results);
    const failed = results.filter((r) => r.reward === null).length;
    if (failed > 0) o.log(`${failed} of ${samples.length} sample(s) without a reward (${summarize(results)})`);
    if (late === samples.length && samples.length > 0) {
      throw new HttpError(504, "TIMEOUT", `scoring took longer than ${o.deadlineMs} ms (--timeout-ms); ${REQUEST_RETRY[cost]}`, undefined, { "retry-after": o.retryAfter });
    }
    const outages = results.filter(isOutage).length;
    if (samples.length > 0 && outages / samples.length > o.maxErrorShare) {
      o.log(`answering 503: ${outages} of ${samples.length} samples failed from a judge outage (more than --max-error-share ${o.maxErrorShare})`);
      throw new HttpError(503, "JUDGE_UNAVAILABLE", `${outages} of ${samples.length} samples could not be scored because the judge failed (${summarize(results)}); retry later: ${REQUEST_RETRY[cost]}`, undefined, { "retry-after": o.retryAfter });
    }
    return results;
  };
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
