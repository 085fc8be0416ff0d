import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { groupRewards, passAtKEstimate, STD_EPSILON } from "../../src/score/group.js";

const members = (group: string, rewards: (number | null)[]) => rewards.map((reward) => ({ group, reward }));

describe("advantages (TRL GRPOTrainer's normalisation)", () => {
  it("group: (r − mean) / (sample std + 1e-4)", () => {
    const { members: out, groups } = groupRewards(members("q", [1, 0, 0, 1]));
    const std = Math.sqrt(1 / 3); // Bessel: Σ(r − 0.5)² = 1, over n − 1 = 3
    expect(groups[0]).toMatchObject({ size: 4, scored: 4, mean: 0.5, successes: 2 });
    expect(groups[0].std).toBeCloseTo(std, 12);
    expect(out.map((m) => m.advantage)).toEqual([0.5, -0.5, -0.5, 0.5].map((d) => d / (std + STD_EPSILON)));
  });
  it("none: r − mean (Dr. GRPO, verifiers); batch: divided by the std of all rewards", () => {
    const input = [...members("a", [1, 0]), ...members("b", [1, 1])];
    expect(groupRewards(input, { scale: "none" }).members.map((m) => m.advantage)).toEqual([0.5, -0.5, 0, 0]);
    const batchStd = Math.sqrt((3 * 0.25 ** 2 + 0.75 ** 2) / 3);
    expect(groupRewards(input, { scale: "batch" }).members[0].advantage).toBeCloseTo(0.5 / (batchStd + STD_EPSILON), 12);
  });
  it("a group of equal rewards has zero advantages; a group of one has advantage 0", () => {
    expect(groupRewards(members("q", [0.7, 0.7, 0.7])).members.map((m) => m.advantage)).toEqual([0, 0, 0]);
    expect(groupRewards(members("q", [0.7])).members[0].advantage).toBe(0);
  });
  it("null rewards are left out of the statistics and get a null advantage", () => {
    const out = groupRewards(members("q", [1, null, 0]));
    expect(out.groups[0]).toMatchObject({ size: 3, scored: 2, mean: 0.5 });
    expect(out.members[1].advantage).toBeNull();
    expect(out.members[0].advantage).toBeCloseTo(0.5 / (Math.SQRT1_2 + STD_EPSILON), 12);
  });
  it("groups are independent and results keep input order", () => {
    const out = groupRewards([{ group: "a", reward: 1 }, { group: "b", reward: 0 }, { group: "a", reward: 0 }, { group: "b", reward: 0 }], { scale: "none" });
    expect(out.members.map((m) => [m.group, m.advantage])).toEqual([["a", 0.5], ["b", 0], ["a", -0.5], ["b", 0]]);
  });
  it("advantages of a group sum to zero (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 16 }), fc.constantFrom("group", "none", "batch"), (rewards, scale) => {
        const sum = groupRewards(members("q", rewards), { scale: scale as "group" }).members.reduce((a, m) => a + m.advantage!, 0);
        expect(Math.abs(sum)).toBeLessThan(1e-6);
      }),
    );
  });
});

describe("pass@k", () => {
  it("the unbiased estimator 1 − C(n−c, k)/C(n, k)", () => {
    expect(passAtKEstimate(10, 3, 1)).toBeCloseTo(0.3, 12);
    expect(passAtKEstimate(5, 1, 2)).toBeCloseTo(1 - 6 / 10, 12);
    expect(passAtKEstimate(5, 0, 5)).toBe(0);
    expect(passAtKEstimate(5, 4, 2)).toBe(1);
    expect(passAtKEstimate(200, 13, 100)).toBeGreaterThan(0.99);
    expect(() => passAtKEstimate(3, 4, 1)).toThrow(/pass@k needs/);
  });
  it("per group and averaged; success is `passed`, else reward ≥ threshold", () => {
    const input = [
      { group: "a", reward: 1 }, { group: "a", reward: 0 }, { group: "a", reward: 0 }, { group: "a", reward: 0 },
      { group: "b", reward: 0.2, passed: true }, { group: "b", reward: 0.9, passed: false }, { group: "b", reward: 0 }, { group: "b", reward: 0 },
    ];
    const out = groupRewards(input, { k: [1, 2] });
    expect(out.groups.map((g) => g.passAtK)).toEqual([{ "1": 0.25, "2": 0.5 }, { "1": 0.25, "2": 0.5 }]);
    expect(out.passAtK).toEqual({ "1": 0.25, "2": 0.5 });
    expect(groupRewards(members("q", [0.8, 0.4]), { successThreshold: 0.5 }).groups[0].successes).toBe(1);
  });
});

describe("length penalty (Kimi k1.5)", () => {
  it("correct: λ = 0.5 − (len − min)/(max − min); wrong: min(0, λ)", () => {
    const input = [
      { group: "q", reward: 1, length: 100 },
      { group: "q", reward: 1, length: 300 },
      { group: "q", reward: 0, length: 100 },
      { group: "q", reward: 0, length: 200 },
    ];
    const out = groupRewards(input, { lengthPenalty: { weight: 1 }, scale: "none" });
    expect(out.members.map((m) => m.lengthPenalty)).toEqual([0.5, -0.5, 0, 0]);
    expect(out.members.map((m) => m.reward)).toEqual([1.5, 0.5, 0, 0]);
  });
  it("needs a length for every response of the group", () => {
    expect(() => groupRewards([{ group: "q", reward: 1 }], { lengthPenalty: { weight: 1 } })).toThrow(/needs a length/);
  });
});

describe("advantagesByPrompt (for the reward server)", () => {
  it("groups a batch by its prompts", async () => {
    const { advantagesByPrompt } = await import("../../src/score/group.js");
    expect(advantagesByPrompt(["a", "b", "a", "b"], [1, 0.5, 0, 0.5], { scale: "none" })).toEqual([0.5, 0, -0.5, 0]);
    expect(() => advantagesByPrompt(["a"], [1, 0])).toThrow(/1 prompts for 2 rewards/);
  });
});
