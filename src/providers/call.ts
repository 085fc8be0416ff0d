/**
 * The per-call deadline and abort plumbing shared by the adapters. The SDKs' own `timeout` stops
 * only the wait for response headers; a server that sends headers and then stalls the body would
 * hang forever, so our deadline aborts the whole call and we map the result ourselves.
 */
import { RubricateError } from "../errors.js";
import { toProviderError } from "./errors.js";
import type { CallOptions } from "./types.js";

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
