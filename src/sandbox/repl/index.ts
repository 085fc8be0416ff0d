import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { RubricateError } from "../../errors.js";
import type { Sandbox, SandboxBind, SandboxProcess } from "../types.js";
import { PYTHON_REPL_DRIVER } from "./driver.js";

/** Where the host bridge's folder appears inside a sandbox. */
export const BRIDGE_MOUNT = "/rubricate";
const SOCKET_NAME = "host.sock";
/** Longest request line the bridge reads (a sub-model prompt), in bytes. */
export const MAX_BRIDGE_REQUEST_BYTES = 4 * 1024 * 1024;

/** A request from inside a sandbox: `llm_query(prompt)`, or `rlm_query(prompt, context)` (a sub-RLM over `context`). */
export interface HostCall {
  prompt: string;
  model?: string;
  /** Set by `rlm_query`: the text the sub-RLM's REPL holds as `context`. */
  context?: string;
}

/** The answer the host sends back: a text, or an error the REPL raises as RuntimeError. */
export type HostAnswer = { text: string } | { error: string };

/** Unix sockets on the host, in one folder bound read-only into a sandbox, answering `llm_query`. */
export interface HostBridge {
  /** Pass to `SandboxOptions.binds`. */
  bind: SandboxBind;
  /** The sandbox path of the socket whose calls are made at `depth` (1 = from the root REPL); created on first use. */
  socketFor(depth: number): Promise<string>;
  /** Hands the folder and its sockets to the sandbox's host user (`Sandbox.user`): they are theirs and this process's only. */
  grant(user: { uid: number; gid: number } | undefined): void;
  close(): Promise<void>;
}

/**
 * Starts the host side of `llm_query`: one JSON line in, one JSON line out per connection. The
 * sandbox keeps its network off; the only doors are these sockets, one per call depth (a REPL
 * learns the path of its own depth only), and `handle` decides (budget, depth, which model).
 */
export async function startHostBridge(handle: (call: HostCall, depth: number) => Promise<HostAnswer>): Promise<HostBridge> {
  // Only this process and the sandbox's user may connect: any other local user could spend the
  // rollout's llm_query budget with the operator's key. mkdtemp makes the folder 0700.
  const dir = mkdtempSync(join(tmpdir(), "rubricate-bridge-"));
  let owner: { uid: number; gid: number } | undefined;
  const handOver = (path: string) => {
    if (owner) chownSync(path, owner.uid, owner.gid);
  };
  const sockets = new Set<Socket>();
  const servers = new Map<number, Promise<Server>>();
  const listen = (depth: number): Promise<Server> => {
    const server: Server = createServer((socket) => serve(socket, (call) => handle(call, depth)));
    const path = join(dir, `depth-${depth}.sock`);
    return new Promise<Server>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => {
        chmodSync(path, 0o600);
        handOver(path);
        resolve(server);
      });
    });
  };
  const serve = (socket: Socket, answer: (call: HostCall) => Promise<HostAnswer>) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let buf = "";
    let answered = false;
    socket.on("data", (chunk) => {
      if (answered) return;
      buf += chunk.toString("utf8");
      if (buf.length > MAX_BRIDGE_REQUEST_BYTES) {
        answered = true;
        socket.end(`${JSON.stringify({ error: `request larger than ${MAX_BRIDGE_REQUEST_BYTES} bytes` })}\n`);
        return;
      }
      const nl = buf.indexOf("\n");
      if (nl < 0) return;
      answered = true;
      let call: HostCall;
      try {
        const parsed = JSON.parse(buf.slice(0, nl)) as Partial<HostCall>;
        if (typeof parsed.prompt !== "string") throw new Error("prompt must be a string");
        call = { prompt: parsed.prompt, ...(typeof parsed.model === "string" ? { model: parsed.model } : {}), ...(typeof parsed.context === "string" ? { context: parsed.context } : {}) };
      } catch (e) {
        socket.end(`${JSON.stringify({ error: `bad request: ${(e as Error).message}` })}\n`);
        return;
      }
      answer(call)
        .catch((e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }))
        .then((a) => {
          if (!socket.destroyed) socket.end(`${JSON.stringify(a)}\n`);
        });
    });
  };
  return {
    bind: { host: dir, path: BRIDGE_MOUNT },
    grant(user) {
      owner = user;
      handOver(dir);
      for (const name of readdirSync(dir)) handOver(join(dir, name));
    },
    async socketFor(depth) {
      let server = servers.get(depth);
      if (!server) servers.set(depth, (server = listen(depth)));
      await server;
      return `${BRIDGE_MOUNT}/depth-${depth}.sock`;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      for (const server of servers.values()) await server.then((s) => new Promise<void>((resolve) => s.close(() => resolve()))).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What one REPL cell did. */
export interface ReplResult {
  stdout: string;
  stderr: string;
  /** The exception (last line of its traceback), or why the cell could not run. */
  error: string | null;
  /** True when the cell hit its time limit; the REPL was restarted and its variables are gone. */
  timedOut: boolean;
  ms: number;
}

/** A persistent Python REPL inside a sandbox: variables survive between cells. */
export interface PythonRepl {
  /**
   * Runs one cell. `signal` ends it at once, killing the REPL (as bash's commands end); the next
   * cell starts a new one, without the variables. A cell whose signal has fired does not run.
   */
  run(code: string, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<ReplResult>;
  /** Kills the REPL and what it started; settles once they are gone (or after a short grace, where a backend cannot tell). */
  close(): Promise<void>;
}

/** How long `close` waits to see the REPL's processes gone: bubblewrap's end with its pid namespace at once. */
const CLOSE_GRACE_MS = 2000;
/** The error of a cell an abort ended (or kept from running). */
const STOPPED = "the cell was stopped (aborted) before it finished; the next cell starts a new REPL and the variables are lost";

/**
 * Starts `python3` with the driver inside the sandbox. `contextFile` (a path in the sandbox)
 * is loaded into the variable `context`; `bridge` gives the REPL `llm_query` and `rlm_query`.
 * @example const repl = await startPythonRepl(box, { contextFile: "doc.txt", bridge }); (await repl.run("len(context)")).stdout
 */
export async function startPythonRepl(sandbox: Sandbox, options: { contextFile?: string; bridge?: HostBridge; depth?: number; timeoutMs?: number } = {}): Promise<PythonRepl> {
  await sandbox.writeFile(".rubricate-repl.py", PYTHON_REPL_DRIVER);
  const env: Record<string, string> = { PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8" };
  if (options.contextFile) env.RUBRICATE_CONTEXT_FILE = options.contextFile;
  // This REPL is at `depth` (0 = the policy's); its calls are made at depth + 1.
  if (options.bridge) env.RUBRICATE_HOST_SOCKET = await options.bridge.socketFor((options.depth ?? 0) + 1);
  let proc: SandboxProcess;
  let lines: AsyncIterator<string>;
  let stderrTail = "";
  const start = async () => {
    proc = sandbox.spawn(["python3", "-u", `${sandbox.workdir}/.rubricate-repl.py`], { env });
    proc.stderr.on("data", (d: Buffer) => (stderrTail = (stderrTail + d.toString("utf8")).slice(-2000)));
    lines = createInterface({ input: proc.stdout, crlfDelay: Infinity })[Symbol.asyncIterator]();
    const first = await withTimeout(lines.next(), options.timeoutMs ?? 30_000);
    if (first === "timeout" || first.done) {
      proc.kill();
      throw new RubricateError("SANDBOX", `the Python REPL did not start: ${stderrTail.trim() || "no answer"}`);
    }
  };
  await start();
  let queue: Promise<unknown> = Promise.resolve();
  /** Kills the REPL and what it started; settles once they are gone (or after a short grace, where a backend cannot tell). */
  const stopProcess = async () => {
    proc.kill();
    await withTimeout(proc.exited, CLOSE_GRACE_MS);
  };
  // Killed by an abort: started again by the next cell, not at once (an abort usually ends the episode, whose close is under way).
  let down = false;
  const runOne = async (code: string, timeoutMs: number, signal?: AbortSignal): Promise<ReplResult> => {
    const started = Date.now();
    const stopped = (): ReplResult => ({ stdout: "", stderr: "", error: STOPPED, timedOut: false, ms: Date.now() - started });
    if (signal?.aborted) return stopped();
    if (down) {
      await start();
      down = false;
    }
    proc.stdin.write(`${JSON.stringify({ code })}\n`);
    const next = await withTimeout(lines.next(), timeoutMs, signal);
    if (next === "aborted") {
      await stopProcess();
      down = true;
      return stopped();
    }
    if (next === "timeout" || next.done) {
      const timedOut = next === "timeout";
      proc.kill();
      await proc.exited;
      const why = timedOut ? `the cell ran longer than ${timeoutMs} ms; the REPL was restarted and its variables are lost` : `the REPL died (${stderrTail.trim().split("\n").pop() ?? "no message"}); it was restarted and its variables are lost`;
      await start();
      return { stdout: "", stderr: "", error: why, timedOut, ms: Date.now() - started };
    }
    const answer = JSON.parse(next.value) as { stdout: string; stderr: string; error: string | null };
    return { ...answer, timedOut: false, ms: Date.now() - started };
  };
  return {
    run(code, runOptions = {}) {
      const result = queue.then(() => runOne(code, runOptions.timeoutMs ?? sandbox.limits.commandTimeoutMs, runOptions.signal));
      queue = result.catch(() => undefined);
      return result;
    },
    close: stopProcess,
  };
}

/** The promise's value, or "timeout" past `ms`, or "aborted" once `signal` fires. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | "timeout">;
function withTimeout<T>(promise: Promise<T>, ms: number, signal: AbortSignal | undefined): Promise<T | "timeout" | "aborted">;
async function withTimeout<T>(promise: Promise<T>, ms: number, signal?: AbortSignal): Promise<T | "timeout" | "aborted"> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), ms)));
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, timeout, aborted]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}
