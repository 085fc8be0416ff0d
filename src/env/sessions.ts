import { randomUUID } from "node:crypto";
import { RubricateError, toRubricateError } from "../errors.js";
import type { Judge } from "../judge/types.js";
import { sha256Hex } from "../text/sha256.js";
import type { ErrorPolicy } from "../types.js";
import { startSession, type Session } from "./session.js";
import type { Engine } from "../engine/engine.js";
import { TaskSchema } from "./schema.js";
import type { Environment, Task } from "./types.js";
import { issueLines } from "../config/issues.js";

/**
 * Bytes charged to a session for each keyed tool call it keeps besides the key itself: the
 * request's digest (64 hex characters) and the record and map entry around it, so a client sending
 * tiny keyed calls fills its session's budget rather than the server's memory.
 */
const KEPT_KEY_BYTES = 128;

/** Which task a session plays: one of the environment's by id or index, or a task object. */
export interface TaskRef {
  task_id?: string | number;
  task_index?: number;
  /** A task the caller supplies: inputs (and an answer) for the environment's prompt and rubric. */
  task?: unknown;
}

/**
 * The task a reference names: one of the environment's by id or index, or a task object the
 * caller supplies (its own `criteria` refused unless allowed). Bad references are `BAD_INPUT`.
 * @example taskFromRef(env, { task_index: 0 })
 */
export function taskFromRef(env: Environment, ref: TaskRef, options: { allowTaskCriteria?: boolean } = {}): Task {
  const given = [ref.task_id !== undefined, ref.task_index !== undefined, ref.task !== undefined].filter(Boolean).length;
  if (given !== 1) throw new RubricateError("BAD_INPUT", "name exactly one of task_id, task_index or task");
  if (ref.task_id !== undefined) {
    const task = env.tasks.find((t) => t.id === String(ref.task_id));
    if (!task) throw new RubricateError("BAD_INPUT", `task_id: environment ${env.id} has no task "${ref.task_id}" (${env.tasks.length} tasks)`);
    return task;
  }
  if (ref.task_index !== undefined) {
    const i = ref.task_index;
    if (!Number.isInteger(i) || i < 0 || i >= env.tasks.length) throw new RubricateError("BAD_INPUT", `task_index: ${i} is not an index of environment ${env.id}'s ${env.tasks.length} tasks`);
    return env.tasks[i];
  }
  const parsed = TaskSchema.safeParse(ref.task);
  if (!parsed.success) throw new RubricateError("BAD_INPUT", `task: ${issueLines(parsed.error, { root: "task" }).join("; ")}`);
  if (parsed.data.criteria && !options.allowTaskCriteria) throw new RubricateError("BAD_INPUT", "task.criteria: this server scores only its environment's rubric (client-supplied criteria are off)");
  return { id: parsed.data.id === undefined ? "client-task" : String(parsed.data.id), inputs: parsed.data.inputs, answer: parsed.data.answer, ...(parsed.data.criteria ? { criteria: parsed.data.criteria } : {}), fromClient: true };
}

/** Options of `createSessionManager`. */
export interface SessionManagerOptions {
  env: Environment;
  /** Model calls of the hooks (`ctx.llm`) go through it; the judge's engine, usually. */
  engine: Engine;
  /** Run sandbox commands on the host (`--unsafe-no-sandbox`). */
  unsafeNoSandbox?: boolean;
  judge?: Judge;
  errors?: ErrorPolicy;
  /** Sessions open at once (default 1024); one more is a `SESSION_LIMIT` error. */
  maxSessions?: number;
  /** A session untouched this long is closed (default 600,000 ms: a trainer that vanished). */
  idleMs?: number;
  /**
   * Accept task objects that carry their own `criteria` (default false): those are judge
   * questions the operator did not write and pays for.
   */
  allowTaskCriteria?: boolean;
  /** Bytes a client may send into one session (its turns, tool arguments, final response; default 32 MiB): more is `SESSION_TOO_LARGE`. */
  maxSessionBytes?: number;
  /** Bytes clients may send into all open sessions together (default 512 MiB): more is a retryable `SESSION_LIMIT`. */
  maxTotalBytes?: number;
  /** For tests: the clock idle times are read from. */
  now?: () => number;
}

/**
 * A changing call the client may send again when it never got the answer (its request timed out,
 * the connection dropped, the server answered 5xx): the key it carries and what it asked.
 */
export interface CallKey {
  /**
   * A step (keyed by its turn index: the session keeps its last one; another turn is the caller's
   * `admit` to refuse) or a tool call (by a key the client chose: the session keeps every one, so a
   * key comes back with its own call only).
   */
  kind: "step" | "tool";
  key: string;
  /** The call's request as text (canonical JSON): the same key asking something else is no retry. */
  request: string;
}

/** A keyed call's outcome: its answer or its failure, and whether it is one recorded earlier under the key (nothing ran again). */
export type KeyedOutcome<T> = ({ ok: true; value: T } | { ok: false; error: RubricateError }) & { replayed: boolean };

/** A keyed call: its key, its request's digest and outcome (the last step's until the next step; a tool call's until the session's end). */
interface KeyedRecord<T = unknown> {
  key: string;
  digest: string;
  outcome: { ok: true; value: T } | { ok: false; error: RubricateError };
}

/**
 * A keyed open: the session it opened (or is opening) and its answer, found by the key while that
 * session is open. Only keys of sessions being opened or open are kept, so there are never more
 * than `maxSessions` of them.
 */
interface OpenRecord {
  digest: string;
  opening: Promise<{ id: string; answer: unknown }>;
  /** Set once the session is open: its close forgets the key. */
  id?: string;
}

interface Entry {
  episode: Session;
  /** The key it was opened with (`openOnce`), forgotten when it closes. */
  openKey?: string;
  /** The last keyed step (memory stays bounded however many turns the session takes). */
  lastStep?: KeyedRecord;
  /**
   * Every keyed tool call of the session by its key: a key sent again with another call is refused
   * however many calls came between. An answer's result is the string the transcript holds too, and
   * each key's own bytes are charged to the session's budget (`KEPT_KEY_BYTES`), so this is bounded
   * with the session.
   */
  tools: Map<string, KeyedRecord>;
  lastUsed: number;
  /** Calls in progress: a session is never expired under a running call. */
  busy: number;
  /** A call that changes the session (a step, a tool call, the finish) is running: another is refused. */
  changing: boolean;
  /** Bytes the client sent into it, kept in its messages until it closes. */
  bytes: number;
}

/** Open sessions of one environment, isolated from one another, with a cap and idle expiry. */
export interface SessionManager {
  open(ref: TaskRef): Promise<{ id: string; episode: Session }>;
  /**
   * `open` for a client that may send it again without knowing whether it opened (its request
   * timed out, the connection dropped): a second session would be an orphan holding a place of the
   * cap and a sandbox until it expired. The same key asking the same thing (`request`, canonical
   * JSON) while its session is open, or still opening, gets that session's `answer` as it was
   * first made (`replayed`; a copy arriving mid-open waits for it), and no session is opened; the
   * same key asking something else is `KEY_MISMATCH`. A failed open keeps nothing (no session was
   * left behind), so sending it again opens anew. A key is forgotten when its session closes or
   * expires: at most `maxSessions` are kept.
   */
  openOnce<T>(ref: TaskRef, key: Omit<CallKey, "kind">, answer: (opened: { id: string; episode: Session }) => T): Promise<KeyedOutcome<T> & { ok: true }>;
  /**
   * Runs `fn` while `n` places of the session cap are taken (rollouts the server plays hold a
   * sandbox each, as a session does): a `SESSION_LIMIT` error when they are not free. Its signal
   * aborts when the manager closes all sessions (the server is shutting down): work nobody waits
   * for (its client left, counting on a retry to find it) stops then too.
   */
  hold<T>(n: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` on an open session (a `SESSION_NOT_FOUND` error when it is not open), keeping it
   * alive meanwhile. `bytes` is what the client sends with this call: charged to the session's and
   * the server's memory budgets first (`SESSION_TOO_LARGE`, or `SESSION_LIMIT` when all sessions together are full).
   * A call that changes the session runs alone (`SESSION_BUSY` while another runs): a client's
   * retry of a step still in progress (its request timed out at a proxy, say) would run the turn's
   * tool calls twice and interleave the two turns in the transcript the rubric scores. `reads`
   * marks a call that only looks (a session's description), which may run beside one.
   */
  use<T>(id: string, fn: (session: Session) => Promise<T>, bytes?: number, reads?: boolean): Promise<T>;
  /**
   * `use` for a changing call its client may send again without knowing whether it ran (the
   * request timed out after it was sent, say). The same key asking the same thing as the session's
   * last keyed step, or as any of its keyed tool calls, gets that call's recorded outcome, answer or
   * failure (`replayed`), with nothing run or charged again. A tool-call key the session has seen
   * with another request is `KEY_MISMATCH`, and nothing runs (as for keyed opens and rollouts: a
   * retry must send the same call; a new call needs a new key). Otherwise `admit` runs first (a
   * step's turn check: what it throws is thrown, not recorded), then `fn`, whose outcome is recorded
   * under the key. A retry while the call still runs is `SESSION_BUSY`, as any changing call beside
   * it: no record yet.
   */
  useOnce<T>(id: string, key: CallKey, fn: (session: Session) => Promise<T>, options?: { bytes?: number; admit?: (session: Session) => void }): Promise<KeyedOutcome<T>>;
  /** Closes a session; true when it was open. */
  close(id: string): boolean;
  /** Closes sessions idle past `idleMs`; returns how many. */
  sweep(): number;
  closeAll(): void;
  readonly size: number;
  stats(): { open: number; opened: number; closed: number; expired: number; maxSessions: number; bytes: number; maxTotalBytes: number };
}

/**
 * Keeps the sessions a server plays for trainers: each a `Session` of its own (own hook state,
 * own tools), found by an unguessable id. A sweep closes sessions whose client went away.
 * @example
 * const sessions = createSessionManager({ env, engine, judge });
 * const { id, episode } = await sessions.open({ task_index: 0 });
 * await sessions.use(id, (ep) => ep.step({ content: "CRANE" }));
 */
export function createSessionManager(options: SessionManagerOptions): SessionManager {
  const { env } = options;
  const maxSessions = options.maxSessions ?? 1024;
  const idleMs = options.idleMs ?? 600_000;
  const now = options.now ?? Date.now;
  const open = new Map<string, Entry>();
  const openKeys = new Map<string, OpenRecord>();
  /** The work `hold` runs, stopped by `closeAll`. */
  const holding = new Set<AbortController>();
  const maxSessionBytes = options.maxSessionBytes ?? 32 * 1024 * 1024;
  const maxTotalBytes = options.maxTotalBytes ?? 512 * 1024 * 1024;
  let totalBytes = 0;
  let opened = 0;
  let closed = 0;
  let expired = 0;
  let pending = 0;

  const closeEntry = (id: string, entry: Entry, reason: string) => {
    open.delete(id);
    // Only this session's record: after a failed open the key may have opened another.
    if (entry.openKey !== undefined && openKeys.get(entry.openKey)?.id === id) openKeys.delete(entry.openKey);
    totalBytes -= entry.bytes;
    // Teardown runs in the background; its failure is the episode's, never the caller's.
    entry.episode.close(reason).catch(() => undefined);
    closed++;
  };

  const makeRoom = (n: number) => {
    if (open.size + pending + n <= maxSessions) return;
    manager.sweep();
    if (open.size + pending + n > maxSessions) {
      throw new RubricateError("SESSION_LIMIT", `${open.size + pending} of ${maxSessions} sessions and rollouts are running (the limit); ${n} more do not fit: close finished sessions, wait, or raise --max-sessions`, { retryable: true });
    }
  };

  /** The open session `id` names, ready for a call: a changing call finds none running. */
  const admit = (id: string, reads: boolean): Entry => {
    const entry = open.get(id);
    if (!entry) throw new RubricateError("SESSION_NOT_FOUND", `no open session "${id}" (closed, expired after ${Math.round(idleMs / 1000)} s idle, or the server restarted)`);
    if (!reads && entry.changing) {
      throw new RubricateError("SESSION_BUSY", `session "${id}" is running another step, tool call or finish: one at a time (a retry of a call still running would run it twice); wait for its answer`);
    }
    return entry;
  };

  /** Charges what a call sends to its session's and the server's budgets: `SESSION_TOO_LARGE`, or `SESSION_LIMIT`, when it does not fit. */
  const charge = (id: string, entry: Entry, bytes: number): void => {
    if (entry.bytes + bytes > maxSessionBytes) {
      throw new RubricateError("SESSION_TOO_LARGE", `session "${id}" would hold ${entry.bytes + bytes} bytes of client messages, over its ${maxSessionBytes}-byte budget (--max-session-bytes); finish it, or send shorter turns`);
    }
    if (totalBytes + bytes > maxTotalBytes) {
      manager.sweep();
      if (totalBytes + bytes > maxTotalBytes) throw new RubricateError("SESSION_LIMIT", `open sessions hold ${totalBytes} bytes of client messages; ${bytes} more would pass the server's ${maxTotalBytes}-byte budget (--max-sessions-bytes): finish or close sessions, then retry`, { retryable: true });
    }
    entry.bytes += bytes;
    totalBytes += bytes;
  };

  /** Runs `fn` on an admitted, charged session, keeping it alive meanwhile (and alone, for a changing call). */
  const run = async <T>(entry: Entry, fn: (session: Session) => Promise<T>, reads: boolean): Promise<T> => {
    entry.busy++;
    if (!reads) entry.changing = true;
    entry.lastUsed = now();
    try {
      return await fn(entry.episode);
    } finally {
      entry.busy--;
      if (!reads) entry.changing = false;
      entry.lastUsed = now();
    }
  };

  /** A keyed call: the recorded outcome of the same call, else `fn` run once and its outcome recorded. */
  const runOnce = async <T>(id: string, key: CallKey, fn: (session: Session) => Promise<T>, bytes: number, admitSession?: (session: Session) => void): Promise<KeyedOutcome<T>> => {
    const entry = admit(id, false);
    const digest = sha256Hex(key.request);
    const known = key.kind === "tool" ? entry.tools.get(key.key) : entry.lastStep?.key === key.key ? entry.lastStep : undefined;
    if (known?.digest === digest) {
      entry.lastUsed = now();
      return { ...(known.outcome as KeyedRecord<T>["outcome"]), replayed: true };
    }
    // A step's key is its turn: another step for it is the turn check's to refuse (`admit`).
    if (known && key.kind === "tool") {
      throw new RubricateError("KEY_MISMATCH", `tool-call key ${JSON.stringify(key.key)} came first in session "${id}" with another call: a retry must send the same call (tool, arguments, id); a new call needs a new key`);
    }
    admitSession?.(entry.episode);
    charge(id, entry, bytes + (key.kind === "tool" ? Buffer.byteLength(key.key) + KEPT_KEY_BYTES : 0));
    let outcome: KeyedRecord<T>["outcome"];
    try {
      outcome = { ok: true, value: await run(entry, fn, false) };
    } catch (e) {
      outcome = { ok: false, error: toRubricateError(e) };
    }
    const record = { key: key.key, digest, outcome };
    if (key.kind === "tool") entry.tools.set(key.key, record);
    else entry.lastStep = record;
    return { ...outcome, replayed: false };
  };

  /** Opens a session for `ref`, taking a place of the cap while its sandbox and setup start. */
  const start = async (ref: TaskRef, openKey?: string): Promise<{ id: string; episode: Session }> => {
    const task = taskFromRef(env, ref, options);
    makeRoom(1);
    pending++;
    try {
      const episode = await startSession(env, task, { engine: options.engine, judge: options.judge, errors: options.errors, unsafeNoSandbox: options.unsafeNoSandbox });
      const id = randomUUID();
      open.set(id, { episode, openKey, tools: new Map(), lastUsed: now(), busy: 0, changing: false, bytes: 0 });
      opened++;
      return { id, episode };
    } finally {
      pending--;
    }
  };

  /** The session a keyed open opened, or is opening: its recorded answer, waited for. */
  const reopen = async <T>(key: string, record: OpenRecord, digest: string): Promise<KeyedOutcome<T> & { ok: true }> => {
    // The session's id stays out of the message: only the request that opened it gets it.
    if (record.digest !== digest) throw new RubricateError("KEY_MISMATCH", `open key ${JSON.stringify(key)} came first with another request, whose session is ${record.id === undefined ? "still opening" : "open"}: a retry must send the same task; a new open needs a new key`);
    const { id, answer } = await record.opening;
    const entry = open.get(id);
    if (entry) entry.lastUsed = now();
    return { ok: true, value: answer as T, replayed: true };
  };

  const manager: SessionManager = {
    async hold(n, fn) {
      makeRoom(n);
      pending += n;
      const controller = new AbortController();
      holding.add(controller);
      try {
        return await fn(controller.signal);
      } finally {
        holding.delete(controller);
        pending -= n;
      }
    },
    open: (ref) => start(ref),
    async openOnce<T>(ref: TaskRef, key: Omit<CallKey, "kind">, answer: (opened: { id: string; episode: Session }) => T) {
      const digest = sha256Hex(key.request);
      const known = openKeys.get(key.key);
      if (known) return reopen<T>(key.key, known, digest);
      // Recorded before the first await: a copy arriving while this one opens finds it and waits.
      const record: OpenRecord = {
        digest,
        opening: start(ref, key.key).then((session) => {
          record.id = session.id;
          return { id: session.id, answer: answer(session) };
        }),
      };
      openKeys.set(key.key, record);
      try {
        const { answer: value } = await record.opening;
        return { ok: true as const, value: value as T, replayed: false };
      } catch (e) {
        if (openKeys.get(key.key) === record) openKeys.delete(key.key);
        throw e;
      }
    },
    async use(id, fn, bytes = 0, reads = false) {
      const entry = admit(id, reads);
      charge(id, entry, bytes);
      return run(entry, fn, reads);
    },
    useOnce: (id, key, fn, options = {}) => runOnce(id, key, fn, options.bytes ?? 0, options.admit),
    close(id) {
      const entry = open.get(id);
      if (!entry) return false;
      closeEntry(id, entry, "the session was closed");
      return true;
    },
    sweep() {
      const cutoff = now() - idleMs;
      let n = 0;
      for (const [id, entry] of open) {
        if (entry.busy === 0 && entry.lastUsed <= cutoff) {
          closeEntry(id, entry, `the session expired after ${Math.round(idleMs / 1000)} s idle`);
          expired++;
          n++;
        }
      }
      return n;
    },
    closeAll() {
      for (const [id, entry] of open) closeEntry(id, entry, "the server is shutting down");
      for (const controller of holding) controller.abort(new RubricateError("ABORTED", "the server is shutting down"));
    },
    get size() {
      return open.size;
    },
    stats: () => ({ open: open.size, opened, closed, expired, maxSessions, bytes: totalBytes, maxTotalBytes }),
  };
  return manager;
}
