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

const LETS_FINISH = Symbol.for("rubricate.finishInFlight");

/**
 * The reason of a stop that lets calls already sent finish: the first Ctrl-C of a run. A call's
 * answer may be paid for from the moment it is sent (the provider goes on generating when the
 * client hangs up), so one in flight is let finish and kept in the cache; one not sent yet is
 * not sent, and one that fails is not retried. Aborting with any other reason cuts calls in
 * flight too.
 * @example controller.abort(new FinishInFlight("SIGINT: stopping"))
 */
export class FinishInFlight extends RubricateError {
  /** Told by a brand, as RubricateError is (whose `instanceof` every subclass inherits): across copies of the package too. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[LETS_FINISH] === true;
  }

  declare readonly [LETS_FINISH]: true;

  constructor(message = "stopped: calls in flight were let finish") {
    super("ABORTED", message);
    Object.defineProperty(this, LETS_FINISH, { value: true });
  }
}

/** Whether `signal` stopped the run with calls in flight let finish (`FinishInFlight`). */
export function finishesInFlight(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && signal.reason instanceof FinishInFlight;
}
