import { RubricateError, toRubricateError } from "../errors.js";
import type { CallOptions, CompletionRequest, CompletionResponse, Provider } from "./types.js";

/** How one server of a fleet is doing. */
export interface FleetMemberStats {
  baseURL: string;
  requests: number;
  succeeded: number;
  failed: number;
  outstanding: number;
  healthy: boolean;
  /** Times the server was taken out after failing. */
  ejections: number;
}

export interface FleetOptions {
  /** Requests in flight per server (default 16); callers wait for a free slot. */
  maxConcurrencyPerServer?: number;
  /** First wait before a failed server is probed with one request (default 1 s; doubles per failed probe, up to 60 s). */
  probeAfterMs?: number;
}

interface Member {
  provider: Provider;
  stats: FleetMemberStats;
  /** When an unhealthy member may take a probe request. */
  probeAt: number;
  probeBackoffMs: number;
  probing: boolean;
}

/**
 * Failures that say "this server", not "this request": the next server may well answer. A 401 is
 * one: that server refuses the key it was given, which says nothing of the others'.
 */
const SERVER_FAULTS = new Set(["PROVIDER_NETWORK", "PROVIDER_TIMEOUT"]);
const isServerFault = (e: RubricateError) => SERVER_FAULTS.has(e.code) || (e.code === "PROVIDER_HTTP" && ((e.status ?? 0) >= 500 || e.status === 401));

/**
 * One provider over several OpenAI-compatible servers (vLLM, SGLang, llama.cpp, Ollama) serving
 * the same model: least outstanding requests first, a failing server taken out and probed back
 * in, a per-server concurrency limit. Its cache identity is the fleet, not the member that
 * answered, so answers are interchangeable across servers.
 * @example const fleet = createFleetProvider(urls.map((u) => createOpenAIProvider({ name: "openai-compatible", baseURL: u })))
 */
export function createFleetProvider(providers: Provider[], options: FleetOptions = {}): Provider & { stats(): FleetMemberStats[] } {
  if (providers.length === 0) throw new RubricateError("JUDGE_CONFIG", "a fleet needs at least one server");
  const perServer = options.maxConcurrencyPerServer ?? 16;
  const firstProbe = options.probeAfterMs ?? 1000;
  const members: Member[] = providers.map((provider) => ({
    provider,
    stats: { baseURL: provider.baseURL ?? provider.name, requests: 0, succeeded: 0, failed: 0, outstanding: 0, healthy: true, ejections: 0 },
    probeAt: 0,
    probeBackoffMs: firstProbe,
    probing: false,
  }));
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((w) => w());

  const pick = (exclude: Set<Member>): Member | undefined => {
    const now = Date.now();
    const candidates = members.filter((m) => !exclude.has(m) && m.stats.outstanding < perServer && (m.stats.healthy || (!m.probing && now >= m.probeAt)));
    // A failed server whose probe time has come takes the next request: if it fails again the
    // call fails over at once, so probing costs one round trip, not a lost answer.
    const due = candidates.filter((m) => !m.stats.healthy);
    const healthy = candidates.filter((m) => m.stats.healthy);
    const pool = due.length > 0 ? due : healthy;
    const chosen = pool.sort((a, b) => a.stats.outstanding - b.stats.outstanding || a.stats.requests - b.stats.requests)[0];
    // Reserve the slot now, before any await, so concurrent callers see it taken.
    if (chosen) {
      chosen.stats.outstanding++;
      chosen.stats.requests++;
      if (!chosen.stats.healthy) chosen.probing = true;
    }
    return chosen;
  };

  const acquire = async (exclude: Set<Member>, signal?: AbortSignal): Promise<Member | undefined> => {
    for (;;) {
      const member = pick(exclude);
      if (member) return member;
      const everyoneTried = members.every((m) => exclude.has(m) || (!m.stats.healthy && (m.probing || Date.now() < m.probeAt)));
      if (everyoneTried) return undefined;
      signal?.throwIfAborted();
      // All live servers are at their limit: wait for a slot (or a probe time) to come round.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };

  async function complete(request: CompletionRequest, callOptions?: CallOptions): Promise<CompletionResponse> {
    const tried = new Set<Member>();
    let lastError: RubricateError | undefined;
    for (;;) {
      const member = await acquire(tried, callOptions?.signal);
      if (!member) {
        throw lastError ?? new RubricateError("PROVIDER_NETWORK", `no server of the fleet is available (${members.map((m) => m.stats.baseURL).join(", ")})`, { retryable: true });
      }
      tried.add(member);
      const probe = !member.stats.healthy;
      try {
        const response = await member.provider.complete(request, callOptions);
        member.stats.succeeded++;
        if (probe) [member.stats.healthy, member.probeBackoffMs] = [true, firstProbe];
        return response;
      } catch (e) {
        const error = toRubricateError(e);
        member.stats.failed++;
        if (!isServerFault(error)) throw error;
        if (member.stats.healthy) member.stats.ejections++;
        member.stats.healthy = false;
        member.probeAt = Date.now() + member.probeBackoffMs;
        member.probeBackoffMs = Math.min(60_000, member.probeBackoffMs * (probe ? 2 : 1));
        lastError = error;
        // Fail over to another server at once; the scheduler's retries handle the rest.
      } finally {
        member.stats.outstanding--;
        if (probe) member.probing = false;
        wake();
      }
    }
  }

  return {
    name: providers[0].name,
    baseURL: "fleet",
    complete,
    stats: () => members.map((m) => ({ ...m.stats })),
  };
}
