import { describe, it } from "vitest";
import { leakCheck } from "../leak-check.js";

describe("memory and handles over HTTP (long)", () => {
  it("10,000 score() calls through the OpenAI SDK to a local server: heap, handles and listeners stay flat", () => leakCheck(true), 300_000);
});
