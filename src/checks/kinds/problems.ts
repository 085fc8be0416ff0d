import { isRubricateError } from "../../errors.js";
import type { CheckProblem } from "../kind.js";

/**
 * Runs a compile step (a regex, a JSON Schema) and turns its RubricateError into a load-time
 * problem at `path` (inside the kind's settings), extended by the JSON Schema keyword path when
 * the error carries one. Any other error is a bug and propagates.
 */
export function schemaProblem(compile: () => unknown, path: PropertyKey[]): CheckProblem | undefined {
  try {
    compile();
    return undefined;
  } catch (e) {
    if (!isRubricateError(e)) throw e;
    return { message: e.message, path: [...path, ...((e as { schemaPath?: string[] }).schemaPath ?? [])] };
  }
}
