import { describe, expect, it } from "vitest";
import { pearson } from "../../src/stats/correlation.js";

describe("pearson", () => {
  it("gives numpy's corrcoef", () => {
    // numpy.corrcoef([1, 2, 3, 4], [2, 1, 4, 3])[0, 1] == 0.6
    expect(pearson([1, 2, 3, 4], [2, 1, 4, 3])).toBeCloseTo(0.6, 12);
    expect(pearson([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1, 12);
  });

  it("is NaN for a constant series and refuses series of different lengths", () => {
    expect(pearson([1, 1, 1], [1, 2, 3])).toBeNaN();
    expect(() => pearson([1, 2], [1])).toThrow(/length mismatch/);
  });
});
