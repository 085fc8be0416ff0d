import { describe, expect, it } from "vitest";
import { startOpenAIServer } from "../../src/testing/servers/openai-server.js";
import { judgeResponder } from "../../src/testing/servers/judge-responder.js";
import { faultStorm } from "./scenario.js";
import { cacheRows, checkResults, exists, integrity, makeJob, readResults, startRun, truth, waitFor } from "./harness.js";

describe("fault injection (short)", () => {
  it("429s, 500/529s, hangs, resets, broken bodies and dropped ids all at once, with 3 SIGKILLs resumed", async () => {
    const summary = await faultStorm({ samples: 40, kills: 3, seed: 7, label: "short" });
    expect(summary).toContain("0 invented verdicts");
  }, 120_000);

  it("Ctrl-C stops a run with exit 130, keeps what was paid, and the resumed run pays only for the rest", async () => {
    const server = await startOpenAIServer({ respond: judgeResponder((q, view) => truth(Number(/Sample #(\d+)/.exec(view.sample)![1]), q.id)), latencyMs: 25, recordBodies: false });
    try {
      const n = 60;
      const job = makeJob(server.url, n, { max_concurrency: 2 });
      const run = startRun(job.args);
      expect(await waitFor(() => server.stats.requests >= 10, run)).toBe(true);
      run.child.kill("SIGINT");
      const first = await run.done;
      expect(first.code).toBe(130);
      expect(first.stderr).toContain("SIGINT: stopping; no new calls, and the calls in flight finish into the cache");
      expect(exists(job.out)).toBe(false);
      expect(integrity(job.cache)).toBe("ok");
      const kept = cacheRows(job.cache);
      const paidFirst = server.stats.requests;
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(n);
      // Calls in flight at Ctrl-C finish into the cache (they were aborted before, their answers
      // maybe paid and lost): every request the judge saw is a cached answer.
      expect(kept).toBe(paidFirst);
      const second = await startRun(job.args).done;
      expect(second.code, second.stderr).toBe(0);
      expect(server.stats.requests - paidFirst).toBe(n - kept);
      const check = checkResults(readResults(job.out), Array.from({ length: n }, (_, i) => i));
      expect([check.invented, check.unnamed, check.scored]).toEqual([[], [], n]);
      console.log(`faults (interrupt): ${n} samples, SIGINT after ${paidFirst} requests → exit 130 with ${kept} answers cached; resume paid ${n - kept} more → exit 0, ${check.verdicts} verdicts checked, 0 invented`);
    } finally {
      await server.close();
    }
  }, 60_000);
});
