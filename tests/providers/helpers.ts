import { expect } from "vitest";
import { RubricateError } from "../../src/errors.js";

/** Awaits a call that must fail with a `RubricateError` whose message never contains `secret`. */
export async function failure(p: Promise<unknown>, secret: string): Promise<RubricateError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(RubricateError);
    expect((e as Error).message).not.toContain(secret);
    return e as RubricateError;
  }
  throw new Error("expected a failure");
}
