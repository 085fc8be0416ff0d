/**
 * How deeply a client's JSON may nest. JSON.parse reads any depth, but whatever walks a value by
 * recursion afterwards (JSON.stringify, the judge's prompt, a cache key) overflows the stack on a
 * value 20,000 levels deep, and the request would be a 500 instead of a 400 naming the field. So
 * every client value is measured by a loop first.
 */
import { HttpError } from "./http.js";

/** Deeper values are refused: a sample is its inputs, a few levels at most (a transcript's tool calls are 6). */
export const MAX_SAMPLE_DEPTH = 128;

/** How deeply objects and arrays nest in a JSON value (a loop, not recursion: the value may be 100,000 levels deep); stops counting past the limit. */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_SAMPLE_DEPTH) return deepest;
    for (const child of Object.values(node)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return deepest;
}

/** The 400 a value at `field` nested past the limit is answered with. */
export function tooDeep(field: string): HttpError {
  return new HttpError(400, "SAMPLE_TOO_DEEP", `${field}: nested deeper than ${MAX_SAMPLE_DEPTH} levels of objects and arrays; a sample is its inputs, a few levels at most (a transcript's tool calls are 6)`, field);
}

/** Throws `tooDeep` for the first of `values` nested past the limit, named by `fieldOf` its index. */
export function refuseTooDeep(values: readonly unknown[], fieldOf: (i: number) => string): void {
  const deep = values.findIndex((v) => nestingDepth(v) > MAX_SAMPLE_DEPTH);
  if (deep >= 0) throw tooDeep(fieldOf(deep));
}
