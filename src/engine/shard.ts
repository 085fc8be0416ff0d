import { RubricateError } from "../errors.js";

/** One machine's part of a job: shard `index` (1-based) of `count`. */
export interface Shard {
  index: number;
  count: number;
}

/**
 * Parses "i/n" (1 ≤ i ≤ n).
 * @example parseShard("2/4") // { index: 2, count: 4 }
 */
export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = match ? Number(match[1]) : Number.NaN;
  const count = match ? Number(match[2]) : Number.NaN;
  if (!match || count < 1 || index < 1 || index > count) throw new RubricateError("BAD_INPUT", `--shard takes i/n with 1 ≤ i ≤ n, e.g. 2/4; got "${text}"`);
  return { index, count };
}

/**
 * The rows of shard i/n: every n-th row starting at row i-1, so shards are disjoint, cover the
 * input, and need nothing but the same file on every machine. Yields each row with its global index.
 */
export async function* takeShard<T>(rows: AsyncIterable<T> | Iterable<T>, shard: Shard): AsyncGenerator<{ row: T; index: number }> {
  let index = 0;
  for await (const row of rows) {
    if (index % shard.count === shard.index - 1) yield { row, index };
    index++;
  }
}
