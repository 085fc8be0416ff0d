import { RubricateError } from "../errors.js";

/**
 * One "abort" listener per signal however many calls share it: a run passes one signal to
 * 100,000 calls, and EventTarget removal is linear, so a listener each would be quadratic (and
 * trips Node's MaxListeners warning). The listener is removed when its last callback is.
 * @example
 * const off = abortCallbacks.add(signal, () => cancel(job)); ... off();
 */
export class AbortCallbacks {
  private readonly bySignal = new Map<AbortSignal, { set: Set<() => void>; listener: () => void }>();

  /** Registers `fn` to run once when `signal` aborts; returns its removal. */
  add(signal: AbortSignal, fn: () => void): () => void {
    let entry = this.bySignal.get(signal);
    if (!entry) {
      const set = new Set<() => void>();
      const listener = () => {
        this.bySignal.delete(signal);
        for (const f of set) f();
        set.clear();
      };
      entry = { set, listener };
      this.bySignal.set(signal, entry);
      signal.addEventListener("abort", listener, { once: true });
    }
    const { set, listener } = entry;
    set.add(fn);
    return () => {
      if (!set.delete(fn) || set.size > 0) return;
      if (this.bySignal.get(signal)?.set === set) this.bySignal.delete(signal);
      signal.removeEventListener("abort", listener);
    };
  }

  /** Signals currently listened to (a leak check). */
  get size(): number {
    return this.bySignal.size;
  }
}

/** The `ABORTED` error for a signal (its reason when that already is one). */
export function abortedError(signal?: AbortSignal): RubricateError {
  const reason: unknown = signal?.reason;
  if (reason instanceof RubricateError && reason.code === "ABORTED") return reason;
  return new RubricateError("ABORTED", "aborted", { cause: reason });
}
