/** KMP matching (src/text/kmp.ts), against the occurrences `indexOf` finds one start at a time. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { failureFunction, kmpStep } from "../../src/text/kmp.js";

/** Every start of `pattern` in `text`, overlapping ones included, by indexOf from each next position. */
function naiveStarts(text: string, pattern: string): number[] {
  const starts: number[] = [];
  for (let at = text.indexOf(pattern); at >= 0; at = text.indexOf(pattern, at + 1)) starts.push(at);
  return starts;
}

function kmpStarts(text: string, pattern: string): number[] {
  const border = failureFunction(pattern);
  const starts: number[] = [];
  for (let i = 0, k = 0; i < text.length; i++) if ((k = kmpStep(pattern, border, k, text.charCodeAt(i))) === pattern.length) starts.push(i - k + 1);
  return starts;
}

describe("kmp", () => {
  it("finds every occurrence indexOf finds, overlapping ones and surrogate halves included", () => {
    // A small alphabet makes periodic patterns and overlaps common; the emoji splits into two code units.
    const unit = fc.constantFrom("a", "b", "ab", "😀");
    const text = fc.array(unit, { maxLength: 60 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, text.filter((p) => p.length > 0), (t, p) => {
        expect(kmpStarts(t, p)).toEqual(naiveStarts(t, p));
      }),
      { numRuns: 3000 },
    );
  });

  it("reads a text once: a periodic pattern over a periodic text is linear (counted, not timed)", () => {
    const pattern = `${"a".repeat(999)}b`;
    const border = failureFunction(pattern);
    expect([...border.slice(0, 4)]).toEqual([0, 1, 2, 3]);
    let steps = 0;
    let k = 0;
    const text = "a".repeat(200_000);
    const reads = { count: 0 };
    const counted = { charCodeAt: (i: number) => (reads.count++, pattern.charCodeAt(i)), length: pattern.length } as unknown as string;
    for (let i = 0; i < text.length; i++, steps++) k = kmpStep(counted, border, k, text.charCodeAt(i));
    // A few reads of the pattern per unit of text (amortised), where a naive search here reads ~1,000.
    expect(reads.count).toBeLessThanOrEqual(4 * steps);
    expect(k).toBe(999);
  });
});
