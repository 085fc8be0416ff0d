import { describe, expect, it } from "vitest";
import { RubricateError, isRubricateError, toRubricateError } from "../src/errors.js";

describe("RubricateError", () => {
  it("is recognised by its brand, so a copy of the class from another build is recognised too", () => {
    const e = new RubricateError("SCHEMA", "bad");
    expect(e instanceof RubricateError).toBe(true);
    expect(e instanceof Error).toBe(true);
    expect(RubricateError.isInstance(e)).toBe(true);
    // An error made by another copy of the package carries the same global brand.
    const twin = Object.assign(new Error("twin"), { code: "SCHEMA" as const });
    Object.defineProperty(twin, Symbol.for("rubricate.RubricateError"), { value: true });
    expect(twin instanceof RubricateError).toBe(true);
    expect(isRubricateError(twin, "SCHEMA")).toBe(true);
    expect(toRubricateError(twin)).toBe(twin);
  });

  it("a plain error, a look-alike without the brand, and non-objects are not RubricateErrors", () => {
    expect(new Error("x") instanceof RubricateError).toBe(false);
    expect(RubricateError.isInstance({ name: "RubricateError", code: "SCHEMA", message: "m" })).toBe(false);
    expect(RubricateError.isInstance(null)).toBe(false);
    expect(RubricateError.isInstance("SCHEMA")).toBe(false);
    expect(toRubricateError(new Error("boom")).code).toBe("INTERNAL");
  });
});
