/** The leak check of the fault suite (short: no HTTP; long: over HTTP), run in a child process with --expose-gc. */
import { spawn } from "node:child_process";
import { expect } from "vitest";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { ROOT } from "../helpers/cli.js";

interface Checkpoint {
  calls: number;
  heap: number;
  resources: Record<string, number>;
  listeners: number;
}

function runChild(url: string, total: number): Promise<{ checkpoints: Checkpoint[]; paid: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", "tests/faults/leak-child.ts", url, String(total)], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`leak child exited ${code}: ${err}`))));
  });
}

/**
 * 10,000 `score()` calls in one child process; checks heap after GC, active handles and abort
 * listeners stay flat. `http`: through the OpenAI SDK to a local server (the long suite: ~1 ms
 * of CPU a call); otherwise a provider with our deadline plumbing and no HTTP (the short suite).
 */
export async function leakCheck(http: boolean): Promise<void> {
  const server = http ? await startOpenAIServer({ respond: judgeResponder((q) => q.id === "q1"), recordBodies: false }) : undefined;
  try {
    {
      const total = 10_000;
      const { checkpoints, paid } = await runChild(server?.url ?? "scripted", total);
      expect(paid).toBe(total);
      expect(checkpoints).toHaveLength(total / 1000);
      // From the 3,000th call on (JIT, pools and caches warm), growth must stay under 100 bytes a call:
      // one leaked closure, listener or timer per call would be several times that.
      const warm = checkpoints[2];
      const last = checkpoints.at(-1)!;
      const perCall = (last.heap - warm.heap) / (last.calls - warm.calls);
      expect(perCall).toBeLessThan(100);
      for (const c of checkpoints) expect(c.listeners).toBe(0);
      // Handles: no more timers or sockets at the end than once warm.
      for (const [kind, n] of Object.entries(last.resources)) expect(n, kind).toBeLessThanOrEqual(warm.resources[kind] ?? 0);
      const mb = (b: number) => (b / 1e6).toFixed(1);
      console.log(
        `leaks (${http ? "OpenAI SDK over HTTP" : "engine, scheduler, judge and deadline plumbing; no HTTP"}): ${total.toLocaleString("en-US")} score() calls, ${paid.toLocaleString("en-US")} paid; heap after GC ${checkpoints.map((c) => mb(c.heap)).join(" → ")} MB (${perCall.toFixed(1)} bytes/call after warm-up); ` +
          `handles at end ${JSON.stringify(last.resources)}; abort listeners ${last.listeners}`,
      );
    }
  } finally {
    await server?.close();
  }
}
