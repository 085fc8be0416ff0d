import { describe, expect, it } from "vitest";
import { Rng } from "../../src/stats/rng.js";
import { newSamplerState, nextMinibatch } from "../../src/optimize/sampler.js";

describe("epoch-shuffled minibatches", () => {
  it("covers every training instance once per epoch when the size divides it", () => {
    const state = newSamplerState(6);
    const rng = new Rng(1);
    const epoch0 = [0, 1].flatMap((t) => nextMinibatch(state, 6, 3, t, rng));
    const epoch1 = [2, 3].flatMap((t) => nextMinibatch(state, 6, 3, t, rng));
    expect([...epoch0].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect([...epoch1].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(state.epoch).toBe(1);
  });

  it("pads an epoch with the least-used instances", () => {
    const state = newSamplerState(4);
    const rng = new Rng(2);
    const epoch0 = [0, 1].flatMap((t) => nextMinibatch(state, 4, 3, t, rng));
    expect(epoch0).toHaveLength(6);
    expect(new Set(epoch0.slice(0, 4)).size).toBe(4);
    // After the shuffle all four were used once, so the two pads are the lowest indices, 0 then 1.
    expect(epoch0.slice(4)).toEqual([0, 1]);
    expect(state.freqs).toEqual([2, 2, 1, 1]);
  });

  it("is deterministic for a seed", () => {
    const run = () => {
      const s = newSamplerState(10);
      const rng = new Rng(9);
      return [0, 1, 2, 3, 4].map((t) => nextMinibatch(s, 10, 3, t, rng));
    };
    expect(run()).toEqual(run());
  });
});
