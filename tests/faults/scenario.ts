/**
 * The "everything at once" scenario, shared by the short suite (inside `npm test`) and the long
 * one (`npm run test:faults`): a judge server failing in every way it can, runs SIGKILLed at
 * random points and resumed, then a last run to the end.
 */
import { expect } from "vitest";
import { seededRandom, type FaultKind } from "../../src/testing/servers/common.js";
import { cacheRows, checkResults, describeFaults, faultCounts, integrity, makeJob, readResults, repeatedPaidCalls, startFaultServer, startRun, waitFor, exists } from "./harness.js";

/** The faults the server injects. */
const KINDS: FaultKind[] = ["429", "500", "529", "hang", "reset", "drop", "truncated", "garbage", "html"];

/** Sizes and fault rates of one scenario run. */
export interface StormOptions {
  samples: number;
  kills: number;
  seed: number;
  /** Label printed with the counts. */
  label: string;
}

/** Runs the scenario and makes every assertion; returns the printed summary. */
export async function faultStorm(o: StormOptions): Promise<string> {
  const fs = await startFaultServer({
    seed: o.seed,
    latencyMs: [0, 15],
    retryAfterSeconds: 1,
    retryAfterMs: 40,
    // Every kind of fault at least once up front, then at these rates.
    sequence: [...KINDS],
    rates: { "429": 0.2, "500": 0.05, "529": 0.05, hang: 0.02, reset: 0.02, drop: 0.01, truncated: 0.02, garbage: 0.01, html: 0.01 },
    dropRate: 0.1,
    poisoned: (id) => id % 40 === 7,
  });
  const { server } = fs;
  try {
    const job = makeJob(server.url, o.samples, { max_concurrency: 8, max_retries: 10, timeout_ms: 1500 });
    const random = seededRandom(o.seed);
    const kills: number[] = [];
    let killed = 0;
    // Each run is killed once the server has seen a random number of further requests.
    for (let k = 0; k < o.kills; k++) {
      const run = startRun(job.args);
      // A job needs about 3 requests a sample under these faults: spread the kills over its first half or so.
      const target = server.stats.requests + 5 + Math.floor((random() * 3 * o.samples) / (o.kills + 1));
      const reached = await waitFor(() => server.stats.requests >= target, run);
      if (reached) {
        run.child.kill("SIGKILL");
        kills.push(Date.now());
        killed++;
        const r = await run.done;
        expect(r.signal).toBe("SIGKILL");
        // A killed run leaves no results file: it is renamed into place only when a run finishes.
        expect(exists(job.out)).toBe(false);
        expect(integrity(job.cache)).toBe("ok");
      } else {
        const r = await run.done;
        expect([0, 3], r.stderr).toContain(r.code);
        break;
      }
    }
    expect(killed).toBe(o.kills);
    const last = await startRun(job.args).done;
    const results = readResults(job.out);
    const check = checkResults(results, Array.from({ length: o.samples }, (_, i) => i));
    expect(check.invented).toEqual([]);
    expect(check.unnamed).toEqual([]);
    expect(check.scored + check.errored).toBe(o.samples);
    // The poisoned samples must end as named parse errors; the rest are scored.
    const poisoned = results.filter((r) => r.id % 40 === 7);
    expect(poisoned.length).toBeGreaterThan(0);
    for (const r of poisoned) {
      expect(r.reward).toBeNull();
      expect(r.verdicts.find((v) => v.id === "q2")?.error?.code).toBe("JUDGE_PARSE");
    }
    expect(check.errored).toBeGreaterThanOrEqual(poisoned.length);
    // The exit code says what happened: 3 when some sample has no reward, else 0.
    expect(last.code, last.stderr).toBe(check.errored > 0 ? 3 : 0);
    expect(integrity(job.cache)).toBe("ok");

    const paid = repeatedPaidCalls(fs, kills);
    expect(paid.repeats).toBe(0);
    // Every answer the server gave (well-formed or not) is one cache row, bar those lost in flight at a kill.
    const answered = server.requests.filter((r) => r.fault === "none").length;
    const rows = cacheRows(job.cache);
    expect(rows).toBeLessThanOrEqual(answered);
    expect(answered - rows).toBeLessThanOrEqual(paid.atKill);

    // A re-run of the finished job pays nothing and says the same.
    const before = server.stats.requests;
    const again = await startRun(job.args).done;
    expect(server.stats.requests).toBe(before);
    expect(again.code).toBe(last.code);

    const faults = faultCounts(server);
    for (const kind of KINDS) expect(faults[kind] ?? 0, kind).toBeGreaterThan(0);
    const illFormed = server.requests.filter((r) => r.fault === "none" && fs.illFormed.has(r.index)).length;
    expect(illFormed).toBeGreaterThan(0);
    const summary =
      `faults (${o.label}): ${o.samples} samples, ${server.stats.requests.toLocaleString("en-US")} requests (${describeFaults(faults)}, ${illFormed} answers with dropped ids or malformed verdicts), ` +
      `${killed} SIGKILLs resumed, ${check.verdicts.toLocaleString("en-US")} verdicts checked, ${check.invented.length} invented verdicts, ` +
      `${paid.repeats} repeated paid calls (${paid.excused} re-asked after being lost in flight at a kill), ${rows} cache rows for ${answered} paid answers, ` +
      `${check.errored} sample${check.errored === 1 ? "" : "s"} with named errors (${Object.entries(check.codes).map(([c, n]) => `${n}×${c}`).join(", ") || "none"}), exit ${last.code}, integrity ok`;
    console.log(summary);
    return summary;
  } finally {
    await server.close();
  }
}
