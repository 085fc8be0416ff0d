import { describe, expect, it } from "vitest";
import { cacheWritePremiumUsd, callUsage } from "../../src/engine/usage.js";

describe("usage and cost of a call", () => {
  const response = (cacheWriteTokens: number, cachedInputTokens: number) => ({ text: "", finishReason: "stop" as const, model: "m", usage: { inputTokens: 2000, outputTokens: 100, cachedInputTokens, cacheWriteTokens } });

  it("bills Anthropic cache writes at cache_write (default 1.25 × input) and cache reads at cached_input", () => {
    const price = { input: 3, output: 15, cached_input: 0.3 };
    // 1,000 fresh + 1,000 written at 3.75 + 100 out at 15.
    expect(callUsage(response(1000, 0), false, price).costUsd).toBeCloseTo((1000 * 3 + 1000 * 3.75 + 100 * 15) / 1e6, 12);
    // 1,000 fresh + 1,000 read at 0.3: the next sample reads what the first wrote.
    const read = callUsage(response(0, 1000), false, price);
    expect(read.cachedInputTokens).toBe(1000);
    expect(read.costUsd).toBeCloseTo((1000 * 3 + 1000 * 0.3 + 100 * 15) / 1e6, 12);
    expect(cacheWritePremiumUsd(response(1000, 0).usage, { ...price, cache_write: 6 })).toBeCloseTo(0.003, 12);
  });
});
