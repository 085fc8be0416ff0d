/**
 * How deeply a client's JSON may nest. JSON.parse reads any depth, but whatever walks a value by
 * recursion afterwards (JSON.stringify, the judge's prompt, a cache key) overflows the stack on a
 * value 20,000 levels deep, and the request would be a 500 instead of a 400 naming the field. So
 * every client value is measured by a loop first.
 */
import { nestingDepth } from "../text/json.js";
import { HttpError } from "./http.js";

/** Deeper values are refused: a sample is its inputs, a few levels at most (a transcript's tool calls are 6). */
export const MAX_SAMPLE_DEPTH = 128;

/** Whether a value nests past MAX_SAMPLE_DEPTH (counted by a loop: it may be 100,000 levels deep). */
const nestsTooDeep = (value: unknown) => nestingDepth(value, MAX_SAMPLE_DEPTH + 1) > MAX_SAMPLE_DEPTH;

/** The 400 a value at `field` nested past the limit is answered with. */
export function tooDeep(field: string): HttpError {
  return new HttpError(400, "SAMPLE_TOO_DEEP", `${field}: nested deeper than ${MAX_SAMPLE_DEPTH} levels of objects and arrays; a sample is its inputs, a few levels at most (a transcript's tool calls are 6)`, field);
}

/** Throws `tooDeep` for the first of `values` nested past the limit, named by `fieldOf` its index. */
export function refuseTooDeep(values: readonly unknown[], fieldOf: (i: number) => string): void {
  const deep = values.findIndex(nestsTooDeep);
  if (deep >= 0) throw tooDeep(fieldOf(deep));
}
