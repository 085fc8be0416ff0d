/**
 * The per-call deadline and abort plumbing shared by the adapters. The SDKs' own `timeout` stops
 * only the wait for response headers; a server that sends headers and then stalls the body would
 * hang forever, so our deadline aborts the whole call and we map the result ourselves.
 */
import { setMaxListeners } from "node:events";
import { RubricateError } from "../errors.js";
import { toProviderError } from "./errors.js";
import type { BatchApi, CallOptions } from "./types.js";

/** Everything an adapter passes to the SDK for one call. */
export interface CallScope {
  signal: AbortSignal;
  timeoutMs?: number;
}

/**
 * Runs `run` with one signal that fires on the caller's abort or on the deadline, and maps any
 * failure to a `RubricateError` (ABORTED for the caller, PROVIDER_TIMEOUT for the deadline).
 * @example
 * const res = await withDeadline("openai", [key], options, (s) => client.chat.completions.create(body, s));
 */
export async function withDeadline<T>(
  provider: string,
  secrets: string[],
  options: CallOptions | undefined,
  run: (scope: CallScope) => Promise<T>,
): Promise<T> {
  const user = options?.signal;
  if (user?.aborted) throw new RubricateError("ABORTED", `${provider}: request aborted before it started`);
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort();
  user?.addEventListener("abort", onAbort, { once: true });
  const timeoutMs = options?.timeoutMs;
  const timer =
    timeoutMs !== undefined
      ? setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, timeoutMs)
      : undefined;
  try {
    return await run({ signal: controller.signal, timeoutMs });
  } catch (e) {
    throw toProviderError(e, { provider, secrets, timedOut, aborted: user?.aborted === true, timeoutMs });
  } finally {
    if (timer) clearTimeout(timer);
    user?.removeEventListener("abort", onAbort);
  }
}

/** What a call that keeps its own deadline (`withOwnDeadline`) is handed: the caller's signal, the timeout. */
export interface OwnDeadlineScope {
  signal: AbortSignal | undefined;
  timeoutMs: number | undefined;
}

/** Thrown by a call that keeps its own deadline when the time is up (`sendBuffered`'s timer). */
export class DeadlineError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = "DeadlineError";
  }
}

/**
 * `withDeadline` for a call that keeps the deadline itself: it gets the caller's signal and the
 * timeout as they are, and rejects with a `DeadlineError` when the time is up. No signal of its
 * own per call; the same errors as `withDeadline` (ABORTED for the caller, PROVIDER_TIMEOUT for
 * the deadline, anything else through `toProviderError`).
 * @example const res = await withOwnDeadline("openai", [key], options, (s) => post(body, s.signal, s.timeoutMs));
 */
export async function withOwnDeadline<T>(provider: string, secrets: string[], options: CallOptions | undefined, run: (scope: OwnDeadlineScope) => Promise<T>): Promise<T> {
  const user = options?.signal;
  if (user?.aborted) throw new RubricateError("ABORTED", `${provider}: request aborted before it started`);
  const timeoutMs = options?.timeoutMs;
  try {
    return await run({ signal: user, timeoutMs });
  } catch (e) {
    throw toProviderError(e, { provider, secrets, timedOut: e instanceof DeadlineError, aborted: user?.aborted === true, timeoutMs });
  }
}

/**
 * A signal for one call that follows `signal` until `unlink()`. The SDKs add an abort listener to
 * the signal of every request and never remove it; handed the caller's long-lived signal (a batch
 * run's Ctrl-C), every poll and page would leave one more on it (MaxListenersExceededWarning after
 * ten). Theirs pile up on this one instead, which is dropped with the call.
 */
export function linkedSignal(signal: AbortSignal | undefined): { signal: AbortSignal | undefined; unlink(): void } {
  if (!signal) return { signal: undefined, unlink: () => undefined };
  const controller = new AbortController();
  // A listed page or a streamed download adds its own listener: a long list is not a leak here.
  setMaxListeners(0, controller.signal);
  const onAbort = () => controller.abort(signal.reason);
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", onAbort, { once: true });
  return { signal: controller.signal, unlink: () => signal.removeEventListener("abort", onAbort) };
}

/** The batch API with each find, status and results call on a signal of its own (see `linkedSignal`). */
export function withCallSignals(api: BatchApi): BatchApi {
  const scoped = async <T>(signal: AbortSignal | undefined, run: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> => {
    const link = linkedSignal(signal);
    try {
      return await run(link.signal);
    } finally {
      link.unlink();
    }
  };
  return {
    ...api,
    find: (hint, options) => scoped(options?.signal, (signal) => api.find(hint, { ...options, signal })),
    status: (id, options) => scoped(options?.signal, (signal) => api.status(id, { ...options, signal })),
    async *results(id, options) {
      const link = linkedSignal(options?.signal);
      try {
        yield* api.results(id, { ...options, signal: link.signal });
      } finally {
        link.unlink();
      }
    },
  };
}

/** Concatenates the text of a string or TextPart[] content. */
export function joinText(content: string | { text: string }[] | undefined): string {
  if (content === undefined) return "";
  return typeof content === "string" ? content : content.map((p) => p.text).join("");
}

/** Reads the API key from the environment, or fails naming the variable (never a value). */
export function keyFromEnv(variable: string, provider: string): string {
  const value = process.env[variable];
  if (value === undefined || value.trim() === "") {
    throw new RubricateError("MISSING_API_KEY", `${provider}: no API key; set the environment variable ${variable}`);
  }
  return value.trim();
}
