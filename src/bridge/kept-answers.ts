/**
 * Answers of keyed requests a client may send again without knowing whether they ran: a
 * `POST /v1/rollouts` whose request timed out while the server played (and paid for) its rollouts.
 * The same key and request get the first one's answer, or wait for it while it still runs; nothing
 * is played twice.
 */
import { RubricateError } from "../errors.js";
import type { KeyedOutcome } from "../env/sessions.js";
import { sha256Hex } from "../text/sha256.js";
import { clientClosed } from "./http.js";

/** Options of `keptAnswers`: how much it keeps of finished answers (running ones are bounded by the session cap they hold). */
export interface KeptAnswersOptions {
  /** Finished answers kept at most (default 1024); the oldest go first. */
  entries?: number;
  /** Bytes of finished answers (their JSON text, UTF-8) kept at most (default 64 MiB); an answer larger than this is not kept. */
  bytes?: number;
}

/** Keyed work and its answers (see `keptAnswers`). */
export interface KeptAnswers {
  /**
   * Runs `fn` once per key: the same key and `request` (canonical JSON) get its answer again, or
   * wait for it while it runs (`replayed` either way); the same key with another request is a
   * `KEY_MISMATCH` error. A failure is not kept (nothing of it was delivered: sending it again runs
   * it again); a copy waiting on it gets the same failure. `fn`'s signal does not abort when a
   * client hangs up (its retry will come for the answer), only when `signal` aborts for another
   * reason (the server stopping the request).
   */
  run<T>(key: string, request: string, signal: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<KeyedOutcome<T> & { ok: true }>;
  stats(): { running: number; kept: number; bytes: number };
}

interface Kept {
  digest: string;
  /** The work while it runs; gone once its answer is kept. */
  running?: { work: Promise<unknown>; controller: AbortController };
  /** The answer as JSON text (what a replay parses back) and its size: the bytes counted are the bytes kept. */
  done?: { text: string; size: number };
}

/**
 * A bounded record of keyed answers: every running request, plus the latest finished answers
 * within `entries` and `bytes`.
 * @example
 * const kept = keptAnswers({ entries: 256, bytes: 16 * 1024 * 1024 });
 * const { value, replayed } = await kept.run(key, canonicalJson(request), signal, (s) => play(request, s));
 */
export function keptAnswers(options: KeptAnswersOptions = {}): KeptAnswers {
  const maxEntries = options.entries ?? 1024;
  const maxBytes = options.bytes ?? 64 * 1024 * 1024;
  // In insertion order: a finished answer is put back at the end, so the first finished one is the oldest.
  const all = new Map<string, Kept>();
  let finished = 0;
  let bytes = 0;

  const forget = (key: string, kept: Kept) => {
    all.delete(key);
    if (kept.done !== undefined) {
      finished--;
      bytes -= kept.done.size;
    }
  };

  const keep = (key: string, kept: Kept, value: unknown) => {
    all.delete(key);
    kept.running = undefined;
    const text = JSON.stringify(value);
    const size = Buffer.byteLength(text);
    if (size > maxBytes) return; // one answer over the whole budget: a retry runs again
    kept.done = { text, size };
    all.set(key, kept);
    finished++;
    bytes += size;
    for (const [oldKey, old] of all) {
      if (finished <= maxEntries && bytes <= maxBytes) break;
      if (old.done !== undefined) forget(oldKey, old);
    }
  };

  /** Stops the work when the server stops a request waiting on it; a client hanging up leaves it running. */
  const follow = async <T>(signal: AbortSignal, controller: AbortController, work: Promise<T>): Promise<T> => {
    const onAbort = () => {
      if (!clientClosed(signal.reason)) controller.abort(signal.reason);
    };
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await work;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  };

  return {
    async run<T>(key: string, request: string, signal: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<KeyedOutcome<T> & { ok: true }> {
      const digest = sha256Hex(request);
      const known = all.get(key);
      if (known) {
        if (known.digest !== digest) throw new RubricateError("KEY_MISMATCH", `key ${JSON.stringify(key)} came first with another request: a retry must send the same request; a new request needs a new key`);
        if (known.done !== undefined) return { ok: true, value: JSON.parse(known.done.text) as T, replayed: true };
        const { work, controller } = known.running!;
        return { ok: true, value: (await follow(signal, controller, work)) as T, replayed: true };
      }
      const controller = new AbortController();
      const kept: Kept = { digest };
      // Started and recorded before any await: a copy arriving meanwhile waits for this one.
      const work = (async () => fn(controller.signal))();
      kept.running = { work, controller };
      all.set(key, kept);
      work.then(
        (value) => {
          if (all.get(key) !== kept) return;
          try {
            keep(key, kept, value);
          } catch {
            forget(key, kept); // not JSON (a bug of fn's): nothing to keep, and no unhandled rejection
          }
        },
        () => {
          if (all.get(key) === kept) forget(key, kept);
        },
      );
      return { ok: true, value: await follow(signal, controller, work), replayed: false };
    },
    stats: () => ({ running: all.size - finished, kept: finished, bytes }),
  };
}
