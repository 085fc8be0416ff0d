import { describe, it } from "vitest";
import { leakCheck } from "./leak-check.js";

describe("memory and handles", () => {
  it("10,000 score() calls in one process: heap after GC, active handles and abort listeners stay flat", () => leakCheck(false), 120_000);
});
