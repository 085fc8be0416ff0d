import { describe, expect, it } from "vitest";
import { frontFrequencies, instanceFronts, removeDominated, selectParent } from "../../src/optimize/pareto.js";
import { Rng } from "../../src/stats/rng.js";

// Hand-worked case (candidate × instance):
//   c0: 1   0   0   0.5      mean 0.375
//   c1: 1   1   0   0.5      mean 0.625
//   c2: 0   0   1   0.5      mean 0.375
//   c3: 0   1   0   0.2      mean 0.3
// Per-instance best sets: {0,1} {1,3} {2} {0,1,2}.
// Dominated removal (lowest mean first): c3 only appears with c1 → removed; then c0 only appears
// with c1 → removed; c2 is alone on instance 2 and c1 is then alone on instances 0 and 1 → kept.
const scores = [
  [1, 0, 0, 0.5],
  [1, 1, 0, 0.5],
  [0, 0, 1, 0.5],
  [0, 1, 0, 0.2],
];
const means = scores.map((s) => s.reduce((a, b) => a + b, 0) / s.length);

describe("Pareto front", () => {
  it("keeps every candidate tied for the best score of an instance", () => {
    expect(instanceFronts(scores)).toEqual([[0, 1], [1, 3], [2], [0, 1, 2]]);
  });

  it("removes dominated candidates as the reference does", () => {
    expect(removeDominated(instanceFronts(scores), means)).toEqual([[1], [1], [2], [1, 2]]);
  });

  it("never empties a front: of two identical candidates one survives", () => {
    const twins = [
      [1, 0],
      [1, 0],
    ];
    expect(removeDominated(instanceFronts(twins), [0.5, 0.5])).toEqual([[1], [1]]);
  });

  it("counts the instances each surviving candidate is best on", () => {
    expect([...frontFrequencies(scores, means)]).toEqual([
      [1, 3],
      [2, 2],
    ]);
  });

  it("samples the parent with weights equal to those counts", () => {
    const calls: unknown[] = [];
    const fake = { weighted: (items: number[], weights: number[]) => (calls.push([items, weights]), items[1]) } as unknown as Rng;
    expect(selectParent(scores, means, fake)).toBe(2);
    expect(calls).toEqual([[[1, 2], [3, 2]]]);
  });

  it("draws parents in those proportions with the seeded PRNG", () => {
    const rng = new Rng(7);
    const counts = new Map<number, number>();
    for (let k = 0; k < 5000; k++) {
      const p = selectParent(scores, means, rng);
      counts.set(p, (counts.get(p) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual([1, 2]);
    expect(counts.get(1)! / 5000).toBeCloseTo(0.6, 1);
  });

  it("a single candidate is its own front", () => {
    expect(selectParent([[0, 0]], [0], new Rng(1))).toBe(0);
  });
});

describe("Rng", () => {
  it("continues the same stream from a saved state", () => {
    const a = new Rng(42);
    a.next();
    a.next();
    const b = Rng.fromState(a.state);
    expect([a.next(), a.int(10), a.next()]).toEqual([b.next(), b.int(10), b.next()]);
  });

  it("samples distinct elements", () => {
    const picked = new Rng(3).sample([1, 2, 3, 4, 5], 3);
    expect(new Set(picked).size).toBe(3);
  });
});
