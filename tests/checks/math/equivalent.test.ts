/**
 * Which comparisons run under the time guard. A round trip to its worker thread (~20 µs) costs
 * more than a plain-number comparison: plain numbers, the usual GSM8K and AIME answer, are
 * compared without it; reading and comparing a formula (the parser and mathjs on untrusted text)
 * stay under it. Finding the answer reads a bounded tail with linear expressions.
 */
import { describe, expect, it, vi } from "vitest";

const guard = vi.hoisted(() => ({ calls: 0 }));
vi.mock("../../../src/checks/math/guarded-compare.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/checks/math/guarded-compare.js")>();
  return {
    ...real,
    compareWithinLimit: (...args: Parameters<typeof real.compareWithinLimit>) => {
      guard.calls++;
      return real.compareWithinLimit(...args);
    },
  };
});
const { mathEquivalent } = await import("../../../src/checks/math/equivalent.js");

describe("mathEquivalent and the time guard", () => {
  it("compares plain-number answers without the guard", () => {
    guard.calls = 0;
    expect(mathEquivalent("She has 9 apples, so she pays 27 dollars.\n#### 27", "Each costs 3.\n#### 27").equivalent).toBe(true);
    expect(mathEquivalent("so the answer is $\\boxed{042}$", "42").equivalent).toBe(true);
    expect(mathEquivalent("The final answer is 3.5", "4").equivalent).toBe(false);
    expect(guard.calls).toBe(0);
  });

  it("reads and compares a formula under the guard", () => {
    guard.calls = 0;
    expect(mathEquivalent("so $x = \\boxed{\\frac{1}{2}}$", "0.5").equivalent).toBe(true);
    expect(mathEquivalent("\\boxed{2\\sqrt{2}}", "\\sqrt{8}").equivalent).toBe(true);
    expect(guard.calls).toBe(2);
  });

  it("a formula that computes past the limit counts as not equal, and names the answer it found", () => {
    const verdict = mathEquivalent("\\boxed{\\binom{100000000000}{50000000000}}", "1", { timeoutMs: 50 });
    expect(verdict).toEqual({ equivalent: false, answer: "\\binom{100000000000}{50000000000}", reference: "1", problem: "timeout" });
  });

  it("no answer found is told apart before any guard", () => {
    guard.calls = 0;
    expect(mathEquivalent("I don't know.", "4", { extract: "boxed" })).toEqual({ equivalent: false, reference: "4", problem: "no-answer" });
    expect(guard.calls).toBe(0);
  });
});
