import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RubricateError } from "../../src/errors.js";
import { optimize } from "../../src/optimize/optimize.js";
import type { Candidate, OptimizeOptions, ProgressEvent } from "../../src/optimize/types.js";
import { tempDir } from "../helpers/cli.js";

// A tiny world: train t0..t2, val v0..v1. Text "x" scores 0 everywhere, "y" gets 0.5 on t0,
// "z" is perfect everywhere. Minibatch size 3 = the whole trainset, so every minibatch is the same.
const table: Record<string, (inst: string) => number> = {
  x: () => 0,
  y: (i) => (i === "t0" ? 0.5 : 0),
  z: () => 1,
};
function world(reflections: (string | Error)[], seedText = "x") {
  const counter = { instances: 0, calls: 0 };
  const events: ProgressEvent[] = [];
  const warnings: string[] = [];
  let r = 0;
  const opts: OptimizeOptions<string> = {
    seed: { p: seedText },
    trainset: ["t0", "t1", "t2"],
    valset: ["v0", "v1"],
    budget: 1000,
    evaluate: async (c: Candidate, insts: string[]) => {
      counter.instances += insts.length;
      counter.calls += 1;
      return { scores: insts.map((i) => (table[c.p] ?? (() => 0))(i)), feedback: insts.map(() => "fb") };
    },
    reflect: async () => {
      const next = reflections[Math.min(r++, reflections.length - 1)];
      if (next instanceof Error) throw next;
      return next;
    },
    onProgress: (e) => events.push(e),
    onWarning: (m) => warnings.push(m),
  };
  return { opts, counter, events, warnings };
}
const fenced = (t: string) => "```\n" + t + "\n```";
const kinds = (events: ProgressEvent[]) => events.flatMap((e) => (e.type === "iteration" ? [e.kind] : []));

describe("optimize: acceptance and budget", () => {
  it("accepts a child whose minibatch sum beats the parent's, and charges one call per instance", async () => {
    const w = world([fenced("y")]);
    const res = await optimize({ ...w.opts, stop: { maxIterations: 1 } });
    expect(kinds(w.events)).toEqual(["accepted"]);
    expect(res.candidates.map((c) => c.candidate.p)).toEqual(["x", "y"]);
    // seed on valset 2 + parent minibatch 3 + child minibatch 3 + child on valset 2
    expect(res.budget.metricCalls).toBe(10);
    expect(w.counter.instances).toBe(10);
    expect(res.budget.reflectionCalls).toBe(1);
    expect(res.candidates[1]).toMatchObject({ parents: [0], tag: "reflection", component: "p", discoveredAtCalls: 10 });
  });

  it("rejects a tie (strict improvement) and honours the tolerance", async () => {
    const tie = world([fenced("x2")]);
    expect((await optimize({ ...tie.opts, stop: { maxIterations: 1 } })).candidates).toHaveLength(1);
    expect(kinds(tie.events)).toEqual(["rejected"]);
    const tol = world([fenced("y")]);
    const res = await optimize({ ...tol.opts, acceptTolerance: 0.5, stop: { maxIterations: 1 } });
    expect(res.candidates).toHaveLength(1); // 0.5 > 0 + 0.5 is false
    expect(res.budget.metricCalls).toBe(8);
  });

  it("skips a minibatch the parent aces, charging only the parent's run, and the cache makes the repeat free", async () => {
    const w = world([fenced("y")], "z");
    const res = await optimize({ ...w.opts, stop: { maxIterations: 2 } });
    expect(kinds(w.events)).toEqual(["skipped_perfect", "skipped_perfect"]);
    expect(res.budget).toMatchObject({ metricCalls: 5, reflectionCalls: 0, cacheHits: 3 });
    expect(w.counter.instances).toBe(5);
  });

  it("a proposal identical to its parent costs nothing to evaluate", async () => {
    const w = world([fenced("x")]);
    const res = await optimize({ ...w.opts, stop: { maxIterations: 1 } });
    expect(res.budget.metricCalls).toBe(5);
    expect(res.budget.cacheHits).toBe(3);
    expect(kinds(w.events)).toEqual(["rejected"]);
  });

  it("stops on the budget between iterations and reports the curve", async () => {
    const w = world([fenced("y"), fenced("z")]);
    const res = await optimize({ ...w.opts, budget: 12 });
    expect(res.stopReason).toBe("budget");
    // Like the reference, the budget is checked between iterations: 10 after the first; the second
    // re-runs y on the minibatch with traces (3; its cached run had none), z's child run (3) and
    // z on the valset (2) = 18, then the run stops.
    expect(res.budget.metricCalls).toBe(18);
    expect(res.iterations).toBe(2);
    expect(res.curve[0]).toEqual({ metricCalls: 2, bestScore: 0 });
    const viaStop = await optimize({ ...world([fenced("y"), fenced("z")]).opts, stop: { maxMetricCalls: 12 } });
    expect(viaStop.budget).toMatchObject({ metricCalls: 18, maxMetricCalls: 12 });
    expect(res.best.lineage[0]).toBe(0);
  });
});

describe("optimize: guards", () => {
  it("counts refused and failed reflections as failed proposals, without crashing", async () => {
    const w = world(["no fence here", "```\ncut off", "<think>still going", new Error("boom"), fenced("y")]);
    const res = await optimize({ ...w.opts, stop: { maxIterations: 5 } });
    expect(res.failedProposals.map((f) => f.reason)).toEqual(["unfenced", "truncated", "reasoning", "reflect_error"]);
    expect(kinds(w.events)).toEqual(["failed_proposal", "failed_proposal", "failed_proposal", "failed_proposal", "accepted"]);
    expect(res.budget.reflectionCalls).toBe(5);
  });

  it("gives up after five reflection errors in a row", async () => {
    const w = world([new Error("no key")]);
    await expect(optimize({ ...w.opts, stop: { maxIterations: 10 } })).rejects.toThrow("no key");
  });

  it("warns before starting when the budget is too small", async () => {
    const w = world([fenced("y")]);
    let callsAtWarning = -1;
    await optimize({ ...w.opts, budget: 6, onWarning: () => (callsAtWarning = w.counter.instances) });
    expect(callsAtWarning).toBe(0);
  });

  it("flags a new text that copies a training input verbatim", async () => {
    const long = "The customer writes: my order 12345 arrived broken and I want a refund before Friday please.";
    const w = world([]);
    const res = await optimize({
      ...w.opts,
      trainset: [long, "short one", "short two"],
      evaluate: async (c, insts) => ({ scores: insts.map(() => (c.p.includes("refund") ? 1 : 0)) }),
      reflect: async ({ candidate }) => fenced(`${candidate.p}\nExample: ${long}`),
      stop: { maxIterations: 1 },
    });
    expect(res.candidates[1].flags).toEqual(["copies-training-input:0"]);
    expect(w.warnings.some((m) => m.includes("copies-training-input 0"))).toBe(true);
  });

  it("rejects an evaluate that returns the wrong number of scores", async () => {
    const w = world([]);
    const run = optimize({ ...w.opts, evaluate: async () => ({ scores: [1] }) });
    await expect(run).rejects.toBeInstanceOf(RubricateError);
    await expect(run).rejects.toMatchObject({ code: "BAD_INPUT" });
  });
});

describe("optimize: stop conditions", () => {
  it("target score", async () => {
    const w = world([fenced("y")], "z");
    expect((await optimize({ ...w.opts, stop: { targetScore: 1 } })).stopReason).toBe("target_score");
  });

  it("no improvement for k iterations", async () => {
    const w = world([fenced("x2")]);
    const res = await optimize({ ...w.opts, stop: { noImprovementIterations: 3 } });
    expect(res).toMatchObject({ stopReason: "no_improvement", iterations: 3 });
  });

  it("a time limit (0 ms: stops before the first iteration)", async () => {
    const w = world([fenced("y")]);
    expect(await optimize({ ...w.opts, stop: { timeMs: 0 } })).toMatchObject({ stopReason: "time", iterations: 0 });
  });

  it("a stop file", async () => {
    const dir = tempDir("gepa-");
    writeFileSync(join(dir, "STOP"), "");
    const w = world([fenced("y")]);
    const res = await optimize({ ...w.opts, stop: { stopFile: join(dir, "STOP") } });
    expect(res).toMatchObject({ stopReason: "stop_file", iterations: 0 });
  });

  it("an abort signal, between iterations", async () => {
    const ac = new AbortController();
    const w = world([fenced("x2")]);
    const res = await optimize({ ...w.opts, signal: ac.signal, onProgress: (e) => e.type === "iteration" && e.iteration === 2 && ac.abort() });
    expect(res).toMatchObject({ stopReason: "aborted", iterations: 2 });
  });

  it("stops when iterations stop spending budget (everything cached)", async () => {
    const w = world([fenced("y")], "z");
    const res = await optimize({ ...w.opts, maxIdleIterations: 4 });
    expect(res).toMatchObject({ stopReason: "stalled", iterations: 5 });
  });
});

describe("optimize: no-improvement counting", () => {
  it("counts iterations since the last improvement, the improving one excluded", async () => {
    const w = world([fenced("z"), fenced("x2")]);
    const res = await optimize({ ...w.opts, stop: { noImprovementIterations: 2 } });
    // iteration 1: z accepted, best 0 → 1; iterations 2 and 3 improve nothing (z aces every minibatch) → stop after 3
    expect(kinds(w.events)).toEqual(["accepted", "skipped_perfect", "skipped_perfect"]);
    expect(res).toMatchObject({ stopReason: "no_improvement", iterations: 3 });
  });
});
