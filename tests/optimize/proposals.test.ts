/**
 * Issue 23's differences from the reference GEPA: no proposal without rows for the chosen
 * component, reflection call numbers (so a stuck proposal is asked afresh), stops on
 * reflection calls and cost, and the parent-selection strategies the benchmark compares.
 */
import { describe, expect, it } from "vitest";
import { optimize } from "../../src/optimize/optimize.js";
import { randomSearch } from "../../src/optimize/random-search.js";
import type { Candidate, OptimizeOptions, ProgressEvent } from "../../src/optimize/types.js";

type Item = { id: string; about: "a" | "b" | "neither" };
const fenced = (t: string) => "```\n" + t + "\n```";
const kinds = (events: ProgressEvent[]) => events.flatMap((e) => (e.type === "iteration" ? [e.kind] : []));

function passes(c: Candidate, i: Item, conflict: boolean): boolean {
  if (i.about === "neither") return !c.a.includes("fixed") && !c.b.includes("fixed");
  return c[i.about].includes("fixed") && !(conflict && c[i.about === "a" ? "b" : "a"].includes("fixed"));
}

/**
 * Two components; an item scores 1 when the component it is about holds "fixed" (with
 * `conflict`, only while the other one does not: the front then keeps two members).
 */
function twoComponents(trainset: Item[], valset: Item[] = [{ id: "v-a", about: "a" }, { id: "v-b", about: "b" }], conflict = false) {
  const events: ProgressEvent[] = [];
  const asked: { component: string; rows: number; call?: number }[] = [];
  const opts: OptimizeOptions<Item> = {
    seed: { a: "start a", b: "start b" },
    trainset,
    valset,
    budget: 1000,
    evaluate: async (c: Candidate, items: Item[]) => ({
      scores: items.map((i) => (passes(c, i, conflict) ? 1 : 0)),
      feedback: items.map((i) => `about ${i.about}`),
    }),
    // Rows only for the items about the component being rewritten (as judgeQuestionTarget does).
    makeReflectiveDataset: ({ component, instances, result }) =>
      instances.flatMap((input, n) => (input.about === component ? [{ input, output: undefined, score: result.scores[n], feedback: result.feedback?.[n] ?? "" }] : [])),
    reflect: async ({ candidate, component, reflectiveDataset, call }) => {
      asked.push({ component, rows: reflectiveDataset.length, call });
      return fenced(`${candidate[component]} fixed`);
    },
    onProgress: (e) => events.push(e),
    onWarning: () => {},
  };
  return { opts, events, asked };
}

describe("a minibatch with no row for the chosen component", () => {
  it("skips the proposal: no reflection call, no child evaluation", async () => {
    // Every training item is about "a"; the reflections never fix anything, so the seed stays
    // the parent and round robin picks "a", then "b", then "a".
    const w = twoComponents([{ id: "t0", about: "a" }, { id: "t1", about: "a" }, { id: "t2", about: "a" }]);
    const res = await optimize({ ...w.opts, reflect: async (args) => (w.asked.push({ component: args.component, rows: args.reflectiveDataset.length }), fenced(`${args.candidate[args.component]} again`)), minibatchSize: 3, stop: { maxIterations: 3 } });
    expect(kinds(w.events)).toEqual(["rejected", "skipped_no_data", "rejected"]);
    expect(res.budget.reflectionCalls).toBe(2);
    expect(w.asked.every((a) => a.rows > 0)).toBe(true);
    expect(w.asked.map((a) => a.component)).not.toContain("b");
    const skipped = w.events.find((e) => e.type === "iteration" && e.kind === "skipped_no_data");
    expect(skipped).toMatchObject({ detail: "no minibatch item concerns b" });
    // Never a child holding a reworded "b".
    expect(res.candidates.every((c) => c.candidate.b === "start b")).toBe(true);
  });

  it("random search skips it too", async () => {
    const w = twoComponents([{ id: "t0", about: "a" }, { id: "t1", about: "a" }]);
    await randomSearch({ ...w.opts, minibatchSize: 2, stop: { maxIterations: 4 } });
    expect(w.asked.map((a) => a.component)).not.toContain("b");
    expect(kinds(w.events)).toContain("skipped_no_data");
  });
});

describe("reflection calls", () => {
  it("carry the run's call number, 1-based and increasing", async () => {
    const w = twoComponents([{ id: "t0", about: "a" }, { id: "t1", about: "b" }]);
    await optimize({ ...w.opts, minibatchSize: 2, stop: { maxIterations: 3 } });
    expect(w.asked.map((a) => a.call)).toEqual(w.asked.map((_, i) => i + 1));
    expect(w.asked.length).toBeGreaterThan(1);
  });

  it("stop after maxReflectionCalls", async () => {
    const w = twoComponents([{ id: "t0", about: "a" }, { id: "t1", about: "b" }]);
    const res = await optimize({ ...w.opts, reflect: async () => fenced("no change fixed? no"), minibatchSize: 2, stop: { maxReflectionCalls: 2 } });
    expect(res.stopReason).toBe("reflection_budget");
    expect(res.budget.reflectionCalls).toBe(2);
  });

  it("stop once the reflection cost reaches maxReflectionCostUsd, and that stop needs a cost source", async () => {
    const w = twoComponents([{ id: "t0", about: "a" }, { id: "t1", about: "b" }]);
    let spent = 0;
    const res = await optimize({
      ...w.opts,
      minibatchSize: 2,
      reflect: async () => {
        spent += 0.4;
        return fenced("still start");
      },
      reflectionCostUsd: () => spent,
      stop: { maxReflectionCostUsd: 1 },
    });
    expect(res.stopReason).toBe("reflection_budget");
    expect(res.budget.reflectionCalls).toBe(3);
    await expect(optimize({ ...w.opts, stop: { maxReflectionCostUsd: 1 } })).rejects.toThrow(/needs reflectionCostUsd/);
  });
});

describe("candidateSelection", () => {
  // Fixes that exclude each other and an item only the seed passes: the front keeps the seed
  // (mean 1/4), the a-fixed child (2/4) and the b-fixed one (1/4) for good.
  function pool() {
    const val: Item[] = [{ id: "v-a1", about: "a" }, { id: "v-a2", about: "a" }, { id: "v-b", about: "b" }, { id: "v-n", about: "neither" }];
    const w = twoComponents([{ id: "t0", about: "a" }, { id: "t1", about: "b" }], val, true);
    return { opts: { ...w.opts, minibatchSize: 2 }, events: w.events };
  }
  /** Parent of each iteration, with the candidates that existed when it was chosen. */
  const choices = (events: ProgressEvent[]) => {
    let pool = 1;
    return events.flatMap((e) => {
      if (e.type !== "iteration" || e.parent === undefined) return [];
      const out = { parent: e.parent, pool };
      if (e.kind === "accepted") pool += 1;
      return [out];
    });
  };

  it("current_best always reflects on the candidate with the best mean valset score", async () => {
    const p = pool();
    const res = await optimize({ ...p.opts, candidateSelection: "current_best", rngSeed: 3, stop: { maxIterations: 30 } });
    const means = res.candidates.map((c) => c.meanScore);
    const picks = choices(p.events);
    expect(picks.filter((c) => c.pool > 1).length).toBeGreaterThan(10);
    for (const { parent, pool: n } of picks) {
      const best = means.slice(0, n).indexOf(Math.max(...means.slice(0, n)));
      expect(parent).toBe(best);
    }
  });

  it("uniform draws parents from the whole pool, dominated ones included", async () => {
    const p = { opts: { ...twoComponents([{ id: "t0", about: "a" }, { id: "t1", about: "b" }]).opts, minibatchSize: 2 }, events: [] as ProgressEvent[] };
    p.opts.onProgress = (e) => p.events.push(e);
    const res = await optimize({ ...p.opts, candidateSelection: "uniform", rngSeed: 3, stop: { maxIterations: 40 } });
    expect(res.candidates.length).toBeGreaterThan(2);
    // The seed is dominated once a child fixes either component, yet uniform still picks it later on.
    expect(choices(p.events).filter((c) => c.pool > 1).map((c) => c.parent)).toContain(0);
  });

  it("pareto never picks a dominated candidate once a better one exists", async () => {
    const p = { opts: { ...twoComponents([{ id: "t0", about: "a" }, { id: "t1", about: "b" }]).opts, minibatchSize: 2 }, events: [] as ProgressEvent[] };
    p.opts.onProgress = (e) => p.events.push(e);
    const res = await optimize({ ...p.opts, rngSeed: 3, stop: { maxIterations: 40 } });
    expect(res.candidates.length).toBeGreaterThan(2);
    const later = choices(p.events).filter((c) => c.pool > 1);
    expect(later.length).toBeGreaterThan(5);
    expect(later.map((c) => c.parent)).not.toContain(0);
  });

  it("pareto draws every front member, not only the best mean", async () => {
    const p = pool();
    const res = await optimize({ ...p.opts, rngSeed: 3, stop: { maxIterations: 30 } });
    expect(res.front.flat()).toEqual(expect.arrayContaining([0, 1, 2]));
    expect(new Set(choices(p.events).map((c) => c.parent))).toEqual(new Set([0, 1, 2]));
  });

  it("refuses an unknown strategy", async () => {
    const p = pool();
    await expect(optimize({ ...p.opts, candidateSelection: "best" as never })).rejects.toThrow(/candidateSelection must be/);
  });
});
