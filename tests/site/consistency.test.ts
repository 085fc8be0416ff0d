/** Attacks on the leaderboard through a result's own numbers: each is refused, and an honest result passes. */
import { describe, expect, it } from "vitest";
import { inconsistencies } from "../../src/site/consistency.js";
import { hubResult, tasks } from "./fixtures.js";

const honest = () => hubResult({ name: "@acme/times-env", version: "1.0.0", integrity: "sha512-x", model: "m", perTask: tasks(10, (i) => (i < 4 ? 1 : 0)), criteria: [{ id: "correct", rate: 0.4 }] });

describe("a result's numbers agree with each other", () => {
  it("an honest result has no problem", () => {
    expect(inconsistencies(honest())).toEqual([]);
  });

  it("refuses a mean its per-task rewards do not give (claiming 1.0 on tasks it failed)", () => {
    const r = honest();
    r.stats.reward = { n: 10, mean: 1, low: 1, high: 1 };
    expect(inconsistencies(r)).toEqual(["stats.reward.mean (1) is not the mean of stats.perTask (0.4)"]);
  });

  it("refuses an interval that misses its mean, more passes than answers, counts that do not add up", () => {
    const r = honest();
    r.stats.reward = { ...r.stats.reward!, low: 0.9, high: 1 };
    r.stats.criteria = [{ id: "correct", answered: 10, ok: 12, rate: 1 }];
    r.stats.errors = 3;
    const problems = inconsistencies(r).join("\n");
    expect(problems).toContain("does not contain the mean 0.4");
    expect(problems).toContain("criterion correct: ok (12) exceeds answered (10)");
    expect(problems).toContain("stats.scored (10) + stats.errors (3) must equal stats.rollouts (10)");
  });

  it("refuses a rate that is not ok/answered, and a reward over fewer or more tasks than it names", () => {
    const r = honest();
    r.stats.criteria = [{ id: "correct", answered: 10, ok: 4, rate: 0.9 }];
    r.stats.perTask = { ...r.stats.perTask, extra: 1 };
    const problems = inconsistencies(r).join("\n");
    expect(problems).toContain("criterion correct: rate 0.9 is not ok/answered (4/10)");
    expect(problems).toContain("stats.perTask has 11 tasks, more than stats.tasks (10)");
  });
});
