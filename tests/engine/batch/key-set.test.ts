import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeySet } from "../../../src/engine/batch/key-set.js";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

describe("KeySet (64-bit fingerprints of cache keys)", () => {
  it("holds what was added, across growth, and nothing else", () => {
    const set = new KeySet();
    for (let i = 0; i < 50_000; i++) expect(set.add(sha(`in-${i}`))).toBe(true);
    expect(set.size).toBe(50_000);
    expect(set.add(sha("in-123"))).toBe(false);
    for (let i = 0; i < 50_000; i += 97) expect(set.has(sha(`in-${i}`))).toBe(true);
    for (let i = 0; i < 50_000; i += 97) expect(set.has(sha(`out-${i}`))).toBe(false);
  });

  it("behaves as a Set<string> for any keys, hex or not", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.stringMatching(/^[0-9a-f]{64}$/)), { maxLength: 300 }), (keys) => {
        const set = new KeySet();
        const reference = new Set<string>();
        for (const key of keys) expect(set.add(key)).toBe(!reference.has(key) && (reference.add(key), true));
        expect(set.size).toBe(reference.size);
        for (const key of keys) expect(set.has(key)).toBe(true);
      }),
    );
  });
});
