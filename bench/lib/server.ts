/** Starts the benchmark judge server in a child process and talks to it over IPC. */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { OpenAIServerOptions } from "../../src/testing/servers/openai-server.js";
import type { FaultKind, FaultOptions } from "../../src/testing/servers/common.js";

/** What the server process reports: requests so far, faults applied, its own CPU time. */
export interface ServerStats {
  requests: number;
  faults: Partial<Record<FaultKind, number>>;
  cpuMicros: number;
  /** The most requests the server held at once since the last reset. */
  peakInFlight: number;
  /** Arrival times (ms) of requests since the last reset (only from `stats`). */
  times: number[];
}

/** A judge server running in another process. */
export interface ServerChild {
  url: string;
  stats(): Promise<ServerStats>;
  /** Zeroes the CPU counter and the arrival times, and starts a new peak of requests in flight. */
  reset(): Promise<ServerStats>;
  set(behavior: FaultOptions): Promise<ServerStats>;
  close(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL("./server-child.ts", import.meta.url));

/**
 * Forks the server with the given options (no `respond`: the child answers as a judge).
 * @example const srv = await startServerChild({ latencyMs: 50 }); ... await srv.close();
 */
export async function startServerChild(options: Omit<OpenAIServerOptions, "respond"> = {}): Promise<ServerChild> {
  const child: ChildProcess = fork(SCRIPT, [JSON.stringify(options)], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("message", (m: { url: string }) => resolve(m.url));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`server child exited (${code})`)));
  });
  let nextId = 0;
  const pending = new Map<number, (s: ServerStats) => void>();
  child.on("message", (m: ServerStats & { id?: number }) => {
    if (m.id !== undefined) pending.get(m.id)?.(m), pending.delete(m.id);
  });
  const ask = (msg: Record<string, unknown>) =>
    new Promise<ServerStats>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.send({ ...msg, id });
    });
  return {
    url,
    stats: () => ask({ type: "stats" }),
    reset: () => ask({ type: "reset" }),
    set: (behavior) => ask({ type: "set", behavior }),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.disconnect();
      }),
  };
}

/**
 * Throws when a client had more requests in flight at once than the concurrency its ratio is
 * computed for: the ideal (calls × latency ÷ concurrency) assumes that limit, and a client over it
 * would beat the ideal by breaking the rule rather than by being fast.
 */
export function assertKeptConcurrency(stats: ServerStats, concurrency: number, who: string): void {
  if (stats.peakInFlight > concurrency) throw new Error(`${who}: ${stats.peakInFlight} requests in flight at once at the server, above the concurrency of ${concurrency} the ratio is computed for`);
}
