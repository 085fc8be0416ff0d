/**
 * The referee of a `tests` run (see harness.ts for the design): starts the judge and the
 * candidate as separate processes, carries each call from the judge to the candidate and the
 * reply back, and reads the judge's result lines. It is the only link between the two, so it
 * re-serialises every reply (only `ok`, `args` and `raise` pass), bounds each line's size and
 * each call's time, and restarts the candidate (fresh state) after a timeout or a crash.
 */
import { StringDecoder } from "node:string_decoder";
import type { ProcessProgram } from "./harness.js";
import type { CodeRunner, StartedProcess } from "./runner.js";

/** How close to the run's deadline an ended test run counts as stopped by the time limit. */
const DEADLINE_SLACK_MS = 250;

/** One line of the judge's verdict stream. */
export interface JudgeRecord {
  test?: number;
  ok?: boolean;
  error?: string;
  load_error?: string;
  done?: boolean;
}

/** What a run gave: the judge's records, and why it stopped early when it did. */
export interface RefereeResult {
  records: JudgeRecord[];
  /** Set when the run did not end by itself: a limit, or the judge's exit. */
  problem?: string;
}

export interface RefereeOptions {
  runner: CodeRunner;
  judge: ProcessProgram;
  candidate: ProcessProgram & { memoryMb: number };
  /** The job line for the judge (tests, entry point, per-test seconds): only the judge gets it. */
  job: unknown;
  /** The longest one call (or the solution's load) may take. */
  perCallMs: number;
  /** Wall-clock limit of the whole run. */
  timeoutMs: number;
  /** Largest line either process may write. */
  maxLineBytes: number;
}

/** The least time a (re)start of the solution's process gets to load. */
const LOAD_MS = 5000;

type Next = { line: string } | { end: "eof" | "timeout" | "too-long" };

/** The lines of a stream, one at a time, each awaited with a deadline. */
class Lines {
  private readonly decoder = new StringDecoder("utf8");
  private buffer = "";
  private readonly queue: string[] = [];
  private ended = false;
  private overflow = false;
  private wake: (() => void) | undefined;

  constructor(stream: NodeJS.ReadableStream, private readonly maxBytes: number) {
    stream.on("data", (chunk: Buffer | string) => {
      if (this.overflow) return;
      this.buffer += typeof chunk === "string" ? chunk : this.decoder.write(chunk);
      let i;
      while ((i = this.buffer.indexOf("\n")) >= 0) {
        this.queue.push(this.buffer.slice(0, i));
        this.buffer = this.buffer.slice(i + 1);
      }
      if (this.buffer.length > this.maxBytes) this.overflow = true;
      this.wake?.();
    });
    stream.on("end", () => {
      this.ended = true;
      this.wake?.();
    });
    stream.on("error", () => {
      this.ended = true;
      this.wake?.();
    });
  }

  async next(timeoutMs: number): Promise<Next> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.queue.shift();
      if (line !== undefined) return line.length > this.maxBytes ? { end: "too-long" } : { line };
      if (this.overflow) return { end: "too-long" };
      if (this.ended) return { end: "eof" };
      const left = deadline - Date.now();
      if (left <= 0) return { end: "timeout" };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }
}

/** The last bytes of a stream (for error messages); `onFlood` once more than `limit` bytes came. */
function tail(stream: NodeJS.ReadableStream, limit = Infinity, onFlood?: () => void, max = 2000): () => string {
  let text = "";
  let bytes = 0;
  stream.on("data", (chunk: Buffer | string) => {
    text = (text + chunk.toString()).slice(-max);
    bytes += chunk.length;
    if (bytes > limit && onFlood) {
      onFlood();
      onFlood = undefined;
    }
  });
  stream.on("error", () => undefined);
  return () => text.trim().split("\n").slice(-1)[0]?.slice(0, 300) ?? "";
}

const parseObject = (line: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

interface Candidate {
  process: StartedProcess;
  lines: Lines;
  stderr: () => string;
  /** Set when its output passed the cap and it was stopped. */
  flooded: boolean;
}

/** Runs one judge/candidate pair to the end and returns the judge's records. */
export async function referee(options: RefereeOptions): Promise<RefereeResult> {
  const { runner, perCallMs, timeoutMs, maxLineBytes } = options;
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(0, deadline - Date.now());
  const records: JudgeRecord[] = [];
  let candidate: Candidate | undefined;
  const started: StartedProcess[] = [];

  const stopCandidate = async () => {
    const c = candidate;
    candidate = undefined;
    if (c) await c.process.stop();
  };
  const ended = async (c: Candidate, what: string) => {
    const code = await Promise.race([c.process.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 200))]);
    if (c.flooded) return `${what}: it wrote more than ${maxLineBytes} bytes of output`;
    const why = c.stderr();
    return `${what} (exit ${code === undefined ? "?" : code}${why ? `: ${why}` : ""})`;
  };

  /** Starts the solution's process and waits for its list of names (or its load error). */
  const load = async (): Promise<Record<string, unknown>> => {
    const process = await runner.start({ command: options.candidate.command, files: options.candidate.files, memoryMb: options.candidate.memoryMb, timeoutMs: left() });
    started.push(process);
    const c: Candidate = { process, lines: new Lines(process.stdout, maxLineBytes), stderr: () => "", flooded: false };
    c.stderr = tail(process.stderr, maxLineBytes, () => {
      c.flooded = true;
      void process.stop();
    });
    process.stdin.on("error", () => undefined);
    // An interpreter's start-up is not the solution's time: loading gets at least LOAD_MS, within the run's limit.
    const loadMs = Math.max(perCallMs, LOAD_MS);
    for (;;) {
      const next = await c.lines.next(Math.min(loadMs, left()));
      if ("end" in next) {
        await process.stop();
        if (next.end === "timeout") return { load_error: `loading the solution ran past ${Math.round(loadMs / 1000)}s` };
        if (next.end === "too-long") return { load_error: `the solution wrote a line longer than ${maxLineBytes} bytes` };
        return { load_error: await ended(c, "the solution's process ended while loading") };
      }
      const message = parseObject(next.line);
      if (message && "load_error" in message) {
        await process.stop();
        return { load_error: String(message.load_error).slice(0, 2000) };
      }
      if (message && "ready" in message) {
        candidate = c;
        return { ready: message.ready };
      }
    }
  };

  /** One call: to the candidate (restarted if it is gone), its reply re-serialised for the judge. */
  const call = async (request: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const id = request.id;
    if (!candidate) {
      const loaded = await load();
      if ("load_error" in loaded) return { id, lost: `the solution could not be restarted: ${String(loaded.load_error)}` };
    }
    const c = candidate!;
    // Only the call itself crosses: a method call or attribute read names a handle the solution gave out.
    const target = Number.isInteger(request.target) ? { target: request.target } : {};
    const get = request.get === true ? { get: true } : {};
    c.process.stdin.write(JSON.stringify({ id, name: request.name, args: request.args ?? [], kwargs: request.kwargs ?? { $: "dict", v: [] }, ...target, ...get }) + "\n");
    for (;;) {
      const next = await c.lines.next(Math.min(perCallMs, left()));
      if ("end" in next) {
        if (next.end === "timeout") {
          await stopCandidate();
          return { id, timeout: true };
        }
        const lost = next.end === "too-long" ? `the solution's reply was longer than ${maxLineBytes} bytes` : await ended(c, "the solution's process ended");
        await stopCandidate();
        return { id, lost };
      }
      const reply = parseObject(next.line);
      if (!reply || reply.id !== id) continue;
      if ("raise" in reply) return { id, raise: reply.raise };
      if ("ok" in reply) return { id, ok: reply.ok, args: reply.args ?? [] };
      await stopCandidate();
      return { id, lost: "the solution's process sent a reply without a value" };
    }
  };

  const judge = await runner.start({ command: options.judge.command, files: options.judge.files, memoryMb: 0, timeoutMs: left() });
  started.push(judge);
  const judgeLines = new Lines(judge.stdout, maxLineBytes);
  const judgeErr = tail(judge.stderr);
  judge.stdin.on("error", () => undefined);
  const reply = (message: Record<string, unknown>) => judge.stdin.write(JSON.stringify(message) + "\n");
  /**
   * Passes on an answer holding what the solution sent. A value nested past JSON.stringify's stack
   * (a line of 200,000 "[" the solution wrote to its stdout itself) threw here, and the whole
   * check was an error; it is the solution's loss instead: a load error or a lost call.
   */
  const relay = async (message: Record<string, unknown>) => {
    let line: string;
    try {
      line = JSON.stringify(message);
    } catch (e) {
      await stopCandidate();
      const why = `the solution sent a value that cannot be passed on (${(e as Error).message})`;
      line = JSON.stringify("ready" in message ? { load_error: why } : { id: message.id, lost: why });
    }
    judge.stdin.write(line + "\n");
  };
  reply(options.job as Record<string, unknown>);
  let problem: string | undefined;
  try {
    for (;;) {
      const next = await judgeLines.next(left());
      if ("end" in next) {
        // The runner stops the judge's process at the same deadline, so its output can end a moment
        // before our own timer fires: an end at the deadline is the time limit, not a crash.
        if (next.end === "timeout" || (next.end !== "too-long" && left() <= DEADLINE_SLACK_MS)) problem = `timed out after ${timeoutMs} ms`;
        else if (next.end === "too-long") problem = `wrote more than ${maxLineBytes} bytes in one line`;
        else {
          const code = await Promise.race([judge.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 200))]);
          const why = judgeErr();
          problem = `the test run ended early (exit ${code ?? "?"}${why ? `: ${why}` : ""})`;
        }
        break;
      }
      const message = parseObject(next.line);
      if (!message) continue;
      if (message.load === true) await relay(await load());
      else if (message.call && typeof message.call === "object") await relay(await call(message.call as Record<string, unknown>));
      else {
        records.push(message as JudgeRecord);
        if (message.done === true) break;
      }
    }
  } finally {
    candidate = undefined;
    await Promise.all(started.map((p) => p.stop()));
  }
  return { records, ...(problem ? { problem } : {}) };
}
