import { AsyncLocalStorage, createHook, type AsyncHook } from "node:async_hooks";
import { RubricateError, toRubricateError } from "../errors.js";

/**
 * Hooks are TypeScript run in-process with the user's full rights: isolation here is about
 * failure, not security. A hook that throws, calls `process.exit`, never settles, throws from a
 * timer or leaves a timer pending fails its own rollout (naming the task) and nothing else.
 */

/** One rollout's hook bookkeeping. */
export interface HookScope {
  task: string;
  /** The first failure that escaped a hook (a timer that threw, a process.exit in a callback). */
  fault?: RubricateError;
  /** Settles when `fault` is set, so a waiting hook call ends at once. */
  faulted: Promise<RubricateError>;
  /** Timers and immediates hooks created; unref'd when the rollout ends so none keeps the process alive. */
  timers: Set<NodeJS.Timeout | NodeJS.Immediate>;
}

const scopes = new AsyncLocalStorage<HookScope>();

/** A fresh scope for one rollout. */
export function newHookScope(task: string): HookScope {
  let raise!: (e: RubricateError) => void;
  const faulted = new Promise<RubricateError>((resolve) => (raise = resolve));
  const scope: HookScope = { task, faulted, timers: new Set() };
  Object.defineProperty(scope, "raise", { value: raise });
  return scope;
}

function fail(scope: HookScope, error: RubricateError): void {
  if (scope.fault) return;
  scope.fault = error;
  (scope as unknown as { raise: (e: RubricateError) => void }).raise(error);
}

/** Thrown in place of exiting when a hook calls `process.exit`. */
class HookExit extends RubricateError {}

let guards = 0;
let realExit: typeof process.exit | undefined;
let timerHook: AsyncHook | undefined;

const onUncaught = (error: unknown) => {
  const scope = scopes.getStore();
  if (!scope) {
    // Not ours: remove the guard and throw it again on a clean stack, so Node handles it as it
    // would have without us (message, exit code 1).
    uninstall(true);
    process.nextTick(() => {
      throw error;
    });
    return;
  }
  fail(scope, error instanceof HookExit ? error : new RubricateError("HOOK_FAILED", `a hook of task "${scope.task}" threw outside its call: ${describe(error)}`, { cause: error }));
};

/**
 * Installs the process-wide guard while evals run (reference-counted): `process.exit` inside a
 * hook throws instead, uncaught errors from hook callbacks fail their rollout, hook timers are tracked.
 * Returns the function that removes it.
 */
export function installHookGuard(): () => void {
  if (guards++ === 0) {
    realExit = process.exit;
    process.exit = ((code?: number | string | null) => {
      const scope = scopes.getStore();
      if (!scope) return realExit!.call(process, code as number);
      const error = new HookExit("HOOK_FAILED", `a hook of task "${scope.task}" called process.exit(${code ?? ""}); hooks may not end the process`);
      fail(scope, error);
      throw error;
    }) as typeof process.exit;
    process.on("uncaughtException", onUncaught);
    process.on("unhandledRejection", onUncaught);
    timerHook = createHook({
      init(_id, type, _trigger, resource) {
        if (type !== "Timeout" && type !== "Immediate") return;
        scopes.getStore()?.timers.add(resource as NodeJS.Timeout);
      },
    }).enable();
  }
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    uninstall(false);
  };
}

function uninstall(all: boolean): void {
  guards = all ? 0 : Math.max(0, guards - 1);
  if (guards > 0) return;
  if (realExit) process.exit = realExit;
  realExit = undefined;
  process.off("uncaughtException", onUncaught);
  process.off("unhandledRejection", onUncaught);
  timerHook?.disable();
  timerHook = undefined;
}

/** Runs work (engine calls made for a hook, e.g. `ctx.llm`) outside any hook scope, so its timers are not a hook's. */
export const outsideHooks = <T>(fn: () => T): T => scopes.exit(fn);

/**
 * Calls one hook inside the rollout's scope with a deadline: its error, its timeout, a
 * `process.exit` in it or an escaped fault all become `HOOK_FAILED` naming hook and task.
 * The caller's abort signal wins (ABORTED passes through).
 */
export async function callHook<T>(scope: HookScope, name: string, fn: () => T | Promise<T>, options: { timeoutMs: number; signal?: AbortSignal; evenAfterFault?: boolean }): Promise<T> {
  if (scope.fault && !options.evenAfterFault) throw scope.fault;
  options.signal?.throwIfAborted();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RubricateError("HOOK_FAILED", `the ${name} hook of task "${scope.task}" did not finish within ${options.timeoutMs} ms`)), options.timeoutMs);
    onAbort = () => reject(toRubricateError(options.signal?.reason ?? new RubricateError("ABORTED", "aborted")));
    options.signal?.addEventListener("abort", onAbort, { once: true });
  });
  // A fault from before this call does not end it (teardown after a failed rollout); a new one does.
  const faulted = scope.fault ? new Promise<never>(() => {}) : scope.faulted.then((e) => Promise.reject(e));
  try {
    const work = scopes.run(scope, () => Promise.resolve().then(fn));
    return await Promise.race([work, deadline, faulted]);
  } catch (e) {
    const err = toRubricateError(e);
    if (err.code === "ABORTED" || err.code === "HOOK_FAILED" || err.code === "ROLLOUT_TIMEOUT") throw err;
    throw new RubricateError("HOOK_FAILED", `the ${name} hook of task "${scope.task}" failed: ${describe(e)}`, { cause: e });
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener("abort", onAbort);
    faulted.catch(() => undefined);
  }
}

/**
 * Unrefs the timers the rollout's hooks left pending, so none keeps the process alive. Unref, not
 * clear: a timer a library creates once and shares (an HTTP client's) may have been born inside a
 * hook, and clearing it would break every later user.
 */
export function releaseHookScope(scope: HookScope): void {
  for (const t of scope.timers) (t as NodeJS.Timeout).unref?.();
  scope.timers.clear();
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
