/** A throwaway `redis-server` on a free loopback port, for the tests of the shared cache. */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, connect } from "node:net";
import { needs, which } from "./system.js";

/** Gate for tests that need Debian's redis-server (skips locally, fails under CI=true). */
export const redisServer = needs("redis-server", () => which("redis-server"), "apt-get install redis-server");

/** A free port on 127.0.0.1 (the OS picks it; redis-server cannot bind port 0 itself). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

export interface LiveRedis {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
  /** Kills the server and starts a new one on the same port: everything it held is gone (no persistence). */
  restart(): Promise<void>;
}

/** Starts redis-server in memory only (no RDB/AOF files) and resolves once it accepts connections. */
export async function startRedis(): Promise<LiveRedis> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const server = await serveOn(port);
    if (server) {
      const live: LiveRedis = {
        url: `redis://127.0.0.1:${port}/0`,
        port,
        child: server.child,
        stop: () => server.stop(),
        restart: async () => {
          await server.stop();
          const again = await serveOn(port);
          if (!again) throw new Error(`redis-server did not start again on port ${port}`);
          Object.assign(server, again);
          live.child = again.child;
        },
      };
      return live;
    }
    if (attempt >= 2) throw new Error("redis-server did not start");
  }
}

/** One redis-server on `port`, or undefined when it did not come up (the port was taken meanwhile). */
async function serveOn(port: number): Promise<{ child: ChildProcess; stop(): Promise<void> } | undefined> {
  const child = spawn(redisServer.path ?? "redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes"], { stdio: "ignore" });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const stop = async () => void (child.exitCode === null && child.kill("SIGKILL"), await exited);
  for (let i = 0; i < 100 && child.exitCode === null; i++) {
    if (await accepts(port)) return { child, stop };
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  return undefined;
}
