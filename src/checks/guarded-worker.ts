/**
 * A time limit on synchronous work over untrusted text (the math check's reading and comparison of
 * a formula), kept in a worker thread that stays up.
 *
 * Why a worker: a synchronous parse cannot be stopped from its own thread except by V8's watchdog,
 * which node:vm exposes as a script timeout and which starts and joins a thread for every call
 * (~140 µs of wall time on the benchmark VM: more than the comparison it guards). Here the caller
 * posts its request to the worker and blocks on `Atomics.wait` until the answer is posted back
 * (~20 µs a round trip), so the check stays synchronous. A request past its limit ends with its
 * worker (`terminate` stops it mid-computation), and a replacement starts loading at once.
 *
 * The limit is on the job's work, not the wall clock: on a loaded machine the wait includes the
 * time the worker waited for a core, and a trivial comparison "ran past" 200 ms would earn a right
 * answer 0. So at each wall-clock allowance (1×, 4×, 16× the limit) a job that has used less than
 * half the limit in CPU is given the next; a job that spent half the limit or more is over time.
 * The CPU is the worker thread's own, read from /proc (its `schedstat`, in nanoseconds); where
 * there is no /proc, the process's, which counts other threads too, so a doubt ends as over time.
 *
 * The worker's heap is capped: an answer built to exhaust memory ends the worker, not the process,
 * and a worker seen gone (its /proc entry) ends the wait at once.
 */
import { closeSync, existsSync, openSync, readlinkSync, readSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort, type Transferable } from "node:worker_threads";
import { tsxLoaderURL } from "../config/tsx-loader.js";

/** What a worker is given to answer on: the shared flags and its end of the channel. */
export interface WorkerChannel {
  flags: SharedArrayBuffer;
  port: MessagePort;
}

/** Starts a worker whose entry calls `serveRequests` with `data` (its `workerData`), transferring `transfer`. */
export type StartWorker = (data: WorkerChannel, transfer: Transferable[]) => Worker;

/** Slots of the shared flags: whether the worker loaded (READY), the last request it answered (ANSWERED), its thread's id (THREAD, 0 if unknown). */
const READY = 0;
const ANSWERED = 1;
const THREAD = 2;
const LOADED = 1;
const FAILED = 2;

/** Wall-clock allowances tried, as multiples of the limit, while the CPU spent stays under half of it. */
const WALL_MULTIPLES = [1, 4, 16];
/** How often a long wait looks whether the worker is still there (a worker out of memory ends without a word). */
const LIVENESS_MS = 50;

interface Running {
  worker: Worker;
  port: MessagePort;
  flags: Int32Array;
  /** The number of the last request sent to this worker. */
  sent: number;
  /** The worker's CPU clock, once it has loaded. */
  clock?: CpuClock;
}

/** CPU time spent by a worker (ms, from some origin), or undefined once its thread is gone. */
interface CpuClock {
  read(): number | undefined;
  close(): void;
}

type Reply = { seq: number; ok: true; value: unknown } | { seq: number; ok: false; error: string };

/** A CPU usage (user + system) in milliseconds. */
const cpuMs = (used: NodeJS.CpuUsage): number => (used.user + used.system) / 1000;

/**
 * Synchronous calls into a worker thread, each under a time limit on its work.
 * @example
 * const guard = new GuardedWorker(startMyWorker);
 * const run = guard.call({ answer, reference }, 200); // { value } or "over-limit"
 */
export class GuardedWorker {
  #running: Running | undefined;
  /** The last `callAsync` in line: the next waits for it. */
  #asyncTail: Promise<void> = Promise.resolve();

  /** `start` makes a worker; `startupMs` bounds the wait for it to load (not counted against a request). */
  constructor(
    private readonly start: StartWorker,
    private readonly startupMs = 20_000,
  ) {}

  /** The worker's answer to `payload`, or "over-limit" when it computed past `ms` (the worker is then replaced). */
  call(payload: unknown, ms: number): { value: unknown } | "over-limit" {
    const request = post(this.#loaded(), payload);
    for (const multiple of WALL_MULTIPLES) {
      const waited = waitFor(request.running.flags, request.seq, request.started + ms * multiple, request.clock);
      if (waited === "answered") return readReply(request.running.port, request.seq);
      if (!worthWaiting(waited, request, ms)) break;
    }
    this.#replace(request.running);
    return "over-limit";
  }

  /**
   * `call` without blocking the caller's thread: the event loop runs while the worker computes
   * (a reward server keeps answering). Calls are answered one at a time, in order. Use one
   * GuardedWorker for either kind of call, not both. `meter`, if given, is told the CPU the worker
   * spent on the call (`cpuSpent`), answered or stopped: a caller can bound several calls' total.
   */
  async callAsync(payload: unknown, ms: number, meter?: (cpuMs: number) => void): Promise<{ value: unknown } | "over-limit"> {
    const previous = this.#asyncTail;
    let done!: () => void;
    this.#asyncTail = new Promise<void>((resolve) => (done = resolve));
    await previous;
    try {
      const request = post(await this.#loadedAsync(), payload);
      for (const multiple of WALL_MULTIPLES) {
        const waited = await waitForAsync(request.running.flags, request.seq, request.started + ms * multiple, request.clock);
        if (waited === "answered") {
          meter?.(cpuSpent(request));
          return readReply(request.running.port, request.seq);
        }
        if (!worthWaiting(waited, request, ms)) break;
      }
      // Read before the worker is stopped: its clock closes with it.
      meter?.(cpuSpent(request));
      this.#replace(request.running);
      return "over-limit";
    } finally {
      done();
    }
  }

  /** Ends the worker (a new one starts on the next call). */
  close(): void {
    if (this.#running) stop(this.#running);
    this.#running = undefined;
  }

  /** The running worker, once it has loaded: started on the first call, waited for outside any request's limit. */
  #loaded(): Running {
    const running = (this.#running ??= this.#spawn());
    if (Atomics.load(running.flags, READY) === 0) Atomics.wait(running.flags, READY, 0, this.startupMs);
    const state = Atomics.load(running.flags, READY);
    if (state === LOADED) {
      running.clock ??= cpuClock(Atomics.load(running.flags, THREAD));
      return running;
    }
    this.close();
    const reply = receiveMessageOnPort(running.port)?.message as Reply | undefined;
    const why = reply && !reply.ok ? reply.error : `it did not start within ${this.startupMs / 1000} s`;
    throw new Error(`the time-limited worker could not load: ${why}`);
  }

  /** `#loaded` without blocking: the event loop runs while the worker loads. */
  async #loadedAsync(): Promise<Running> {
    const running = (this.#running ??= this.#spawn());
    if (Atomics.load(running.flags, READY) === 0) await waitAsync(running.flags, READY, 0, this.startupMs);
    return this.#loaded();
  }

  #spawn(): Running {
    const flags = new Int32Array(new SharedArrayBuffer(12));
    const { port1, port2 } = new MessageChannel();
    const worker = this.start({ flags: flags.buffer as SharedArrayBuffer, port: port2 }, [port2]);
    // Neither keeps the process alive: a program that is done exits with its worker idle.
    worker.unref();
    port1.unref();
    // A worker that dies (its heap cap, a terminate) reports here; the caller sees it as no answer.
    worker.on("error", () => {});
    return { worker, port: port1, flags, sent: 0 };
  }

  /** Stops a worker caught computing past a limit, and starts loading its replacement now. */
  #replace(running: Running): void {
    stop(running);
    if (this.#running === running) this.#running = this.#spawn();
  }
}

/** A request sent to a loaded worker: its number, and the worker's CPU and the wall clock when it left. */
interface Posted {
  running: Running;
  clock: CpuClock;
  seq: number;
  cpuAtStart: number;
  started: number;
}

function post(running: Running, payload: unknown): Posted {
  const clock = running.clock!;
  const seq = ++running.sent;
  const cpuAtStart = clock.read() ?? 0;
  running.port.postMessage({ seq, payload });
  return { running, clock, seq, cpuAtStart, started: performance.now() };
}

/** After an allowance passed unanswered: the next is given while the worker is there and has spent under half the limit in CPU. */
function worthWaiting(waited: "late" | "gone", request: Posted, ms: number): boolean {
  const cpu = request.clock.read();
  return waited !== "gone" && cpu !== undefined && cpu - request.cpuAtStart < ms / 2;
}

/**
 * The CPU the worker spent on a request so far: its clock since the request left, but never more
 * than the wall time since, which no thread's CPU exceeds. Where the clock is the whole process's
 * (no /proc), it counts the caller's and other workers' threads too, and the wall time caps that;
 * a thread seen gone counts the wall time.
 */
function cpuSpent(request: Posted): number {
  const wallMs = performance.now() - request.started;
  const cpu = request.clock.read();
  return cpu === undefined ? wallMs : Math.min(cpu - request.cpuAtStart, wallMs);
}

function stop(running: Running): void {
  void running.worker.terminate();
  running.port.close();
  running.clock?.close();
}

/** The CPU clock of thread `tid` of this process (its /proc schedstat, kept open: ~1.5 µs a read), or the process's where /proc cannot tell. */
function cpuClock(tid: number): CpuClock {
  let fd: number | undefined;
  try {
    if (tid > 0) fd = openSync(`/proc/self/task/${tid}/schedstat`, "r");
  } catch {
    fd = undefined;
  }
  if (fd === undefined) return { read: () => cpuMs(process.cpuUsage()), close: () => {} };
  const buffer = Buffer.alloc(96);
  return {
    read() {
      try {
        const length = readSync(fd, buffer, 0, buffer.length, 0);
        // "<ns on the CPU> <ns waiting for it> <time slices>"
        const end = buffer.indexOf(32);
        return Number(buffer.toString("latin1", 0, end > 0 ? end : length)) / 1e6;
      } catch {
        // ESRCH: the thread has ended.
        return undefined;
      }
    },
    close: () => closeSync(fd),
  };
}

/** This thread's id, as /proc names it ("<pid>/task/<tid>"), or 0 where there is no /proc. */
function threadId(): number {
  try {
    return Number(readlinkSync("/proc/thread-self").split("/").pop()) || 0;
  } catch {
    return 0;
  }
}

/** Where a guarded worker's entry is, and what it is given. */
export interface WorkerEntry {
  /** `import.meta.url` of the module that starts it: a .ts file when running from the sources (tests, tsx), a chunk of dist/ when built. */
  from: string;
  /** The entry's TypeScript source, relative to `from` (`./compare-worker.ts`). */
  source: string;
  /** The entry's file in dist/ (`math-worker.js`, a tsup entry), found beside the built chunk `from` is in. */
  built: string;
  /** Added to the worker's `workerData`: the mark its entry looks for before serving. */
  workerData: Record<string, unknown>;
  /** The worker's heap cap: a request built to exhaust memory ends the worker, not the process. */
  heapMb: number;
}

/** Starts `entry` as a worker: its built file, or, from the sources, its TypeScript through tsx's loader registered in the worker. */
export function startEntry(entry: WorkerEntry): StartWorker {
  return (channel, transferList) => {
    const code = entry.from.endsWith(".ts") ? workerBootstrap(new URL(entry.source, entry.from).href, tsxLoaderURL(entry.from)) : workerBootstrap(builtEntry(entry.built, entry.from).href);
    // None of the host's node options: what it preloads (`--import`, `--require`: tsx, an APM agent)
    // has no work in a worker that only computes, and would slow every start of one.
    return new Worker(code, { eval: true, execArgv: [], workerData: { ...channel, ...entry.workerData }, transferList, resourceLimits: { maxOldGenerationSizeMb: entry.heapMb } });
  };
}

/**
 * dist/<name>, from the built file `from` is: a chunk in dist/ itself, or an entry in a folder of
 * it (dist/checks/index.js). The ES module entry serves the CommonJS build too.
 */
function builtEntry(name: string, from: string): URL {
  for (const up of ["./", "../", "../../"]) {
    const entry = new URL(`${up}${name}`, from);
    if (existsSync(fileURLToPath(entry))) return entry;
  }
  throw new Error(`the worker ${name} is missing beside ${fileURLToPath(from)}`);
}

/**
 * The code of a worker (`new Worker(code, { eval: true, workerData })`) that imports `entry`, first
 * running `register` of the ES module at `loader`, if given (tsx's, to import TypeScript). A failure
 * to import is reported to the waiting caller with its reason, which a worker's "error" event, not
 * seen while the caller blocks, would not be.
 */
export function workerBootstrap(entry: string, loader?: string): string {
  const steps = [
    ...(loader ? [`.then(() => import(${JSON.stringify(loader)})).then(({ register }) => register())`] : []),
    `.then(() => import(${JSON.stringify(entry)}))`,
    `.catch((e) => { const { workerData } = require("node:worker_threads"); workerData.port.postMessage({ seq: 0, ok: false, error: String((e && e.message) || e) }); const flags = new Int32Array(workerData.flags); Atomics.store(flags, ${READY}, ${FAILED}); Atomics.notify(flags, ${READY}); });`,
  ];
  return `Promise.resolve()${steps.join("")}`;
}

/** Blocks until request `seq` is answered, the wall clock passes `until` (ms, `performance.now()`), or the worker is seen gone. */
function waitFor(flags: Int32Array, seq: number, until: number, clock: CpuClock): "answered" | "late" | "gone" {
  for (;;) {
    const seen = Atomics.load(flags, ANSWERED);
    if (seen >= seq) return "answered";
    const left = until - performance.now();
    if (left <= 0) return "late";
    if (Atomics.wait(flags, ANSWERED, seen, Math.min(left, LIVENESS_MS)) === "timed-out" && clock.read() === undefined) return "gone";
  }
}

/** `waitFor` without blocking: the event loop runs while the worker computes. */
async function waitForAsync(flags: Int32Array, seq: number, until: number, clock: CpuClock): Promise<"answered" | "late" | "gone"> {
  for (;;) {
    const seen = Atomics.load(flags, ANSWERED);
    if (seen >= seq) return "answered";
    const left = until - performance.now();
    if (left <= 0) return "late";
    if ((await waitAsync(flags, ANSWERED, seen, Math.min(left, LIVENESS_MS))) === "timed-out" && clock.read() === undefined) return "gone";
  }
}

/** `Atomics.waitAsync` (Node 16+; TypeScript's lib has it from ES2024). */
interface AtomicsWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number, ms: number): { async: false; value: "not-equal" | "timed-out" } | { async: true; value: Promise<"ok" | "timed-out"> };
}

/**
 * `Atomics.waitAsync`, holding the process open meanwhile: its promise alone does not, so a program
 * waiting on nothing else would exit with a check unanswered.
 */
async function waitAsync(flags: Int32Array, index: number, value: number, ms: number): Promise<"ok" | "not-equal" | "timed-out"> {
  const wait = (Atomics as unknown as AtomicsWaitAsync).waitAsync(flags, index, value, ms);
  if (!wait.async) return wait.value;
  const open = setTimeout(() => undefined, ms + 1_000);
  try {
    return await wait.value;
  } finally {
    clearTimeout(open);
  }
}

/**
 * The reply to request `seq` from the port (posted before the flag was raised), as a result or a
 * thrown Error. It is the only message there: one request is in flight at a time, and a worker
 * past its limit is replaced with its port.
 */
function readReply(port: MessagePort, seq: number): { value: unknown } {
  const reply = receiveMessageOnPort(port)?.message as Reply | undefined;
  if (reply?.seq !== seq) throw new Error(`the time-limited worker answered request ${seq} without its reply`);
  if (reply.ok) return { value: reply.value };
  throw new Error(reply.error);
}

let serving = false;

/**
 * True in a thread that answers a GuardedWorker's requests: its work is already off the caller's
 * event loop and under the caller's limit, so it sends none of its own to another worker (whose
 * CPU that limit would not count).
 */
export const servingRequests = (): boolean => serving;

/**
 * The worker's side: loads its job, says it is ready (or why it could not load), then answers
 * each request in turn (a job may return a promise: its value is the answer). A job that throws
 * answers with its message, which the caller throws.
 */
export async function serveRequests(channel: WorkerChannel, load: () => Promise<(payload: unknown) => unknown> | ((payload: unknown) => unknown)): Promise<void> {
  serving = true;
  const flags = new Int32Array(channel.flags);
  let job: (payload: unknown) => unknown;
  try {
    job = await load();
  } catch (e) {
    channel.port.postMessage({ seq: 0, ok: false, error: e instanceof Error ? e.message : String(e) } satisfies Reply);
    Atomics.store(flags, READY, FAILED);
    Atomics.notify(flags, READY);
    return;
  }
  Atomics.store(flags, THREAD, threadId());
  const answer = (reply: Reply) => {
    channel.port.postMessage(reply);
    Atomics.store(flags, ANSWERED, reply.seq);
    Atomics.notify(flags, ANSWERED);
  };
  const failed = (seq: number, e: unknown): Reply => ({ seq, ok: false, error: e instanceof Error ? e.message : String(e) });
  channel.port.on("message", ({ seq, payload }: { seq: number; payload: unknown }) => {
    let value: unknown;
    try {
      value = job(payload);
    } catch (e) {
      return answer(failed(seq, e));
    }
    // A job may answer later (an async check): the caller waits on the flag either way.
    if (value instanceof Promise) value.then((v: unknown) => answer({ seq, ok: true, value: v }), (e: unknown) => answer(failed(seq, e)));
    else answer({ seq, ok: true, value });
  });
  Atomics.store(flags, READY, LOADED);
  Atomics.notify(flags, READY);
}
