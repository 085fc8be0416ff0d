import type { EngineJudge } from "../judge/create.js";
import type { ScoreResult } from "../types.js";

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** What `GET /v1/stats` reports. */
export interface BridgeStats {
  uptimeS: number;
  requests: { total: number; inFlight: number; byRoute: Record<string, number>; byStatus: Record<string, number> };
  samples: { scored: number; inFlight: number; withReward: number; withoutReward: number };
  /** Provider calls paid, answers served without paying (cache or merged), tokens and estimated cost. */
  judge: { calls: number; cacheHits: number; merged: number; inputTokens: number; outputTokens: number; cachedInputTokens: number; costUsd: number };
  /** Calls waiting for or holding a scheduler slot. */
  queue: { queued: number; inFlight: number };
  /**
   * Samples without a reward by error code; criterion errors by criterion id; samples that got
   * `--fallback-reward` on `/get_reward`; and HTTP errors by code (503 JUDGE_UNAVAILABLE: outages).
   */
  errors: { samples: Record<string, number>; criteria: Record<string, number>; fallbacks: number; http: Record<string, number> };
  /** `status`/`reason`/`since`: a shared (Redis) cache's health, `degraded` while it does not answer. */
  cache: { hits: number; misses: number; writes: number; writeErrors: number; status?: "ok" | "degraded"; reason?: string; since?: string };
  /** The server process's memory, in MiB. */
  memory: { rssMb: number; heapUsedMb: number };
  /** CPU time the server process has used, in ms (machine-load independent cost per request). */
  cpu: { userMs: number; systemMs: number };
}

/** Counters of one server; the judge's engine supplies calls, tokens, cost and queue depth. */
export class StatsRecorder {
  private readonly started = Date.now();
  private readonly requests = { total: 0, inFlight: 0, byRoute: {} as Record<string, number>, byStatus: {} as Record<string, number> };
  private readonly samples = { scored: 0, inFlight: 0, withReward: 0, withoutReward: 0 };
  private readonly sampleErrors: Record<string, number> = {};
  private readonly criterionErrors: Record<string, number> = {};
  private fallbacks = 0;
  private readonly httpErrors: Record<string, number> = {};

  constructor(private readonly judge?: EngineJudge) {}

  /** A request began on `route`; call the returned function with its status when it ends. */
  begin(route: string): (status: number, errorCode?: string) => void {
    this.requests.total++;
    this.requests.inFlight++;
    this.requests.byRoute[route] = (this.requests.byRoute[route] ?? 0) + 1;
    let ended = false;
    return (status, errorCode) => {
      if (ended) return;
      ended = true;
      this.requests.inFlight--;
      this.requests.byStatus[status] = (this.requests.byStatus[status] ?? 0) + 1;
      if (errorCode) this.httpErrors[errorCode] = (this.httpErrors[errorCode] ?? 0) + 1;
    };
  }

  /** Requests not yet answered. */
  get inFlight(): number {
    return this.requests.inFlight;
  }

  samplesStarted(n: number): void {
    this.samples.inFlight += n;
  }

  samplesDone(n: number, results: ScoreResult[]): void {
    this.samples.inFlight -= n;
    for (const r of results) {
      this.samples.scored++;
      if (r.reward === null) {
        this.samples.withoutReward++;
        const codes = new Set(r.errors.map((e) => e.code));
        for (const code of codes.size ? codes : ["NO_REWARD"]) this.sampleErrors[code] = (this.sampleErrors[code] ?? 0) + 1;
      } else this.samples.withReward++;
      for (const e of r.errors) if (e.criterion !== "*") this.criterionErrors[e.criterion] = (this.criterionErrors[e.criterion] ?? 0) + 1;
    }
  }

  /** `n` samples were answered with the fallback reward. */
  fallbacksGiven(n: number): void {
    this.fallbacks += n;
  }

  snapshot(): BridgeStats {
    const engine = this.judge?.engine.stats();
    const queue = { queued: 0, inFlight: 0 };
    for (const s of Object.values(engine?.schedulers ?? {})) {
      queue.queued += s.queued;
      queue.inFlight += s.inFlight;
    }
    const u = engine?.usage;
    const cpu = process.cpuUsage();
    return {
      uptimeS: Math.round((Date.now() - this.started) / 1000),
      requests: { ...this.requests, byRoute: { ...this.requests.byRoute }, byStatus: { ...this.requests.byStatus } },
      samples: { ...this.samples },
      judge: { calls: u?.calls ?? 0, cacheHits: u?.cacheHits ?? 0, merged: engine?.merged ?? 0, inputTokens: u?.inputTokens ?? 0, outputTokens: u?.outputTokens ?? 0, cachedInputTokens: u?.cachedInputTokens ?? 0, costUsd: u?.costUsd ?? 0 },
      queue,
      errors: { samples: { ...this.sampleErrors }, criteria: { ...this.criterionErrors }, fallbacks: this.fallbacks, http: { ...this.httpErrors } },
      cache: { ...(engine?.cache ?? { hits: 0, misses: 0, writes: 0, writeErrors: 0 }) },
      memory: { rssMb: mb(process.memoryUsage.rss()), heapUsedMb: mb(process.memoryUsage().heapUsed) },
      cpu: { userMs: Math.round(cpu.user / 1000), systemMs: Math.round(cpu.system / 1000) },
    };
  }
}
