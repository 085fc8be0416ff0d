import { describe, it } from "vitest";
import { expectBoundedDistill } from "./million.js";

// A quarter of the million (tests/faults/long/million.test.ts runs the whole one): the same
// assertions, with the old space and the RSS bound scaled so that a distill keeping every row it
// parses still fails (it dies of OOM in 64 MiB at this size; it passed in 128 MiB).
describe("a quarter of a million rows", () => {
  it("stream through scoring (code checks), best-of, near-dedup and tag caps with bounded memory", () => expectBoundedDistill({ rows: 250_000, heapMiB: 64, boundKiB: 200 * 1024 }), 900_000);
});
