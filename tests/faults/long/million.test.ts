import { describe, it } from "vitest";
import { expectBoundedDistill } from "../../distill/million.js";

describe("a million rows (long; tests/distill/million.test.ts runs a quarter in npm test)", () => {
  it("stream through scoring (code checks), best-of, near-dedup and tag caps with bounded memory", () => expectBoundedDistill({ rows: 1_000_000, heapMiB: 128, boundKiB: 300 * 1024 }), 900_000);
});
