import { describe, expect, it } from "vitest";
import { ancestorsOf, findMergeTriplet, mergeComponents, mergeSubsample, newMergeState, proposeMerge } from "../../src/optimize/merge.js";
import { Rng } from "../../src/stats/rng.js";

// c0 seed; c1 rewrote a; c2 rewrote b; c3 (child of c1) rewrote a again; c4 rewrote a from the seed.
const cands = [
  { a: "A0", b: "B0" },
  { a: "A1", b: "B0" },
  { a: "A0", b: "B2" },
  { a: "A3", b: "B0" },
  { a: "A4", b: "B0" },
];
const parents = [[], [0], [0], [1], [0]];

describe("merge", () => {
  it("walks ancestors through parent lists", () => {
    expect([...ancestorsOf(parents, 3)].sort()).toEqual([0, 1]);
    expect([...ancestorsOf(parents, 0)]).toEqual([]);
  });

  it("takes each component from the descendant that changed it", () => {
    const { candidate, sources } = mergeComponents(new Rng(0), cands, [0, 0.5, 0.5, 0.6, 0.4], 1, 2, 0);
    expect(candidate).toEqual({ a: "A1", b: "B2" });
    expect(sources).toEqual([1, 2]);
  });

  it("when both changed a component, takes it from the better descendant", () => {
    const { candidate } = mergeComponents(new Rng(0), cands, [0, 0.5, 0.5, 0.6, 0.4], 1, 4, 0);
    expect(candidate).toEqual({ a: "A1", b: "B0" }); // c1 (0.5) beats c4 (0.4) on a; b unchanged by both
  });

  it("never merges a candidate with its own ancestor", () => {
    expect(findMergeTriplet(new Rng(0), cands, parents, [0, 1, 0, 1, 0], [1, 3], [])).toBeUndefined();
  });

  it("skips ancestors better than a descendant and triplets already tried", () => {
    const agg = [0.1, 0.5, 0.5, 0.6, 0.4];
    expect(findMergeTriplet(new Rng(0), cands, parents, agg, [1, 2], [])).toEqual([1, 2, 0]);
    expect(findMergeTriplet(new Rng(0), cands, parents, [0.9, 0.5, 0.5, 0.6, 0.4], [1, 2], [])).toBeUndefined();
    expect(findMergeTriplet(new Rng(0), cands, parents, agg, [1, 2], [[1, 2, 0]])).toBeUndefined();
  });

  it("proposes the merge of two front members once", () => {
    const three = cands.slice(0, 3);
    const valScores = [
      [0, 0],
      [1, 0],
      [0, 1],
    ];
    const state = newMergeState();
    const first = proposeMerge(new Rng(5), three, parents.slice(0, 3), valScores, [0, 0.5, 0.5], state);
    expect(first).toEqual({ candidate: { a: "A1", b: "B2" }, i: 1, j: 2, ancestor: 0 });
    expect(state.performed).toEqual([[1, 2, 0]]);
    expect(proposeMerge(new Rng(5), three, parents.slice(0, 3), valScores, [0, 0.5, 0.5], state)).toBeUndefined();
  });

  it("needs two non-dominated candidates", () => {
    const valScores = [
      [0, 0],
      [1, 1],
      [0, 1],
    ];
    expect(proposeMerge(new Rng(0), cands.slice(0, 3), parents.slice(0, 3), valScores, [0, 1, 0.5], newMergeState())).toBeUndefined();
  });

  it("tries a merge on instances where either parent wins and where they tie", () => {
    const s1 = [1, 0, 1, 0, 1, 0.5];
    const s2 = [0, 1, 0, 1, 0, 0.5];
    const picked = mergeSubsample(s1, s2, new Rng(3));
    expect(picked).toHaveLength(5);
    expect(picked.filter((k) => [0, 2, 4].includes(k))).toHaveLength(2);
    expect(picked.filter((k) => [1, 3].includes(k))).toHaveLength(2);
    expect(picked).toContain(5);
  });
});
