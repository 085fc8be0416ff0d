import { describe, expect, it } from "vitest";
import { rewardFunction } from "../../src/score/reward-function.js";
import { parseRubric } from "../../src/rubric/load.js";

const rubric = parseRubric(`
id: rf
inputs: [response, answer]
criteria:
  - id: correct
    check: { number: { expected: "{{answer}}" } }
    points: 3
  - id: short
    check: { length: { max: 20 } }
    points: 1
`);

describe("rewardFunction", () => {
  const reward = rewardFunction(rubric);

  it("returns the reward of one sample", async () => {
    expect(await reward({ response: "It is 42.", answer: "42" })).toBe(1);
    expect(await reward({ response: "It is 41.", answer: "42" })).toBe(1 / 4);
    expect(await reward({ response: "After a long and careful derivation: 42", answer: "42" })).toBe(3 / 4);
  });

  it("null (never 0) when the reward cannot be computed", async () => {
    expect(await reward({ response: "42" })).toBeNull();
  });

  it("batch keeps input order; detailed carries verdicts and feedback", async () => {
    expect(await reward.batch([{ response: "1", answer: "1" }, { response: "2", answer: "3" }, { response: "x" }])).toEqual([1, 1 / 4, null]);
    const detail = await reward.detailed({ response: "It is 41.", answer: "42" });
    expect(detail.verdicts.map((v) => [v.id, v.status])).toEqual([
      ["correct", "unmet"],
      ["short", "met"],
    ]);
    expect(detail.feedback).toBe("reward 0.250\n- FAILED correct (+3 pts): code check — answer 41, expected 42");
  });

  it("the error policy option applies", async () => {
    const zero = rewardFunction(rubric, { errors: "zero" });
    expect(await zero({ response: "42" })).toBe(0);
  });
});
