import { describe, expect, it } from "vitest";
import { whenCycle } from "../../src/rubric/when.js";

describe("whenCycle", () => {
  it("finds a cycle from its start back to it, and none in a chain", () => {
    expect(whenCycle([{ id: "a", when: "b" }, { id: "b", when: "c" }, { id: "c", when: "a" }])).toEqual(["a", "b", "c", "a"]);
    expect(whenCycle([{ id: "a", when: "a" }])).toEqual(["a", "a"]);
    expect(whenCycle([{ id: "a" }, { id: "b", when: "a" }, { id: "c", when: "b" }])).toBeUndefined();
    // A chain into a cycle reports the cycle itself.
    expect(whenCycle([{ id: "x", when: "a" }, { id: "a", when: "b" }, { id: "b", when: "a" }])).toEqual(["a", "b", "a"]);
  });
});
