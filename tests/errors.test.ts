import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, expectTypeOf, it } from "vitest";
import { HttpError } from "../src/bridge/http.js";
import { ERROR_CODES, RubricateError, isErrorCode, isRubricateError, toRubricateError, type ErrorCode } from "../src/errors.js";
import type { CriterionResult, ScoreResult } from "../src/types.js";

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

describe("one error-code union (issue 32)", () => {
  it("the reward server's codes, DEADLINE included, are rubricate error codes", () => {
    expectTypeOf<HttpError["code"]>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<ScoreResult["errors"][number]["code"]>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<NonNullable<CriterionResult["error"]>["code"]>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<"DEADLINE">().toMatchTypeOf<ErrorCode>();
    // @ts-expect-error a code outside the union does not compile (checked by `npm run typecheck`)
    void new HttpError(400, "NOT_A_CODE", "x");
    // @ts-expect-error nor does a result carrying one
    const bad: ScoreResult["errors"][number] = { criterion: "*", code: "WHATEVER", message: "m" };
    void bad;
  });

  it("every code the bridge throws is in ERROR_CODES, listed once", () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    const dir = "src/bridge";
    const thrown = readdirSync(dir)
      .filter((f) => f.endsWith(".ts"))
      .flatMap((f) => [...readFileSync(join(dir, f), "utf8").matchAll(/new HttpError\(\d+, "([A-Z_]+)"/g)].map((m) => m[1]));
    expect(thrown.length).toBeGreaterThan(15);
    for (const code of [...thrown, "DEADLINE"]) expect(isErrorCode(code), code).toBe(true);
    expect(isErrorCode("NOT_A_CODE")).toBe(false);
    expect(isErrorCode(42)).toBe(false);
  });
});
