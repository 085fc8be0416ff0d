/** `runOnFirstUse`: a kind's implementation imported on the first check, kept for the next ones. */
import { describe, expect, it } from "vitest";
import { runOnFirstUse } from "../../src/checks/kind.js";

const input = { text: "x", sample: {}, options: {} };

describe("runOnFirstUse", () => {
  it("loads nothing until the first check, then loads once for every check after it, concurrent ones included", async () => {
    let loads = 0;
    const run = runOnFirstUse<{ n: number }>(async () => {
      loads++;
      return (spec, { text }) => ({ pass: spec.n > 0, reasoning: `${text}${spec.n}` });
    });
    expect(loads).toBe(0);
    const results = await Promise.all([run({ n: 1 }, input), run({ n: 0 }, input), run({ n: 2 }, input)]);
    expect(await run({ n: 3 }, input)).toEqual({ pass: true, reasoning: "x3" });
    expect(results.map((r) => r.pass)).toEqual([true, false, true]);
    expect(loads).toBe(1);
  });

  it("a failed load fails that check and is tried again by the next one", async () => {
    let loads = 0;
    const run = runOnFirstUse<{ n: number }>(async () => {
      if (++loads === 1) throw new Error("the module could not be read");
      return () => ({ pass: true });
    });
    await expect(run({ n: 1 }, input)).rejects.toThrow("the module could not be read");
    expect(await run({ n: 1 }, input)).toEqual({ pass: true });
    expect(loads).toBe(2);
  });
});
