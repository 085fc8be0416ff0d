/** A provider wrapper that timestamps each call's start and its outcome, for the rate benchmarks. */
import type { Provider } from "../../src/providers/types.js";

/** One call as the client saw it. */
export interface CallRecord {
  start: number;
  end: number;
  ok: boolean;
  tokens: number;
}

/** Wraps `provider`; every call is appended to `log` when it settles. */
export function recorded(provider: Provider, log: CallRecord[]): Provider {
  return {
    ...provider,
    async complete(request, options) {
      const start = Date.now();
      try {
        const res = await provider.complete(request, options);
        log.push({ start, end: Date.now(), ok: true, tokens: res.usage.inputTokens + res.usage.outputTokens });
        return res;
      } catch (e) {
        log.push({ start, end: Date.now(), ok: false, tokens: 0 });
        throw e;
      }
    },
  };
}
