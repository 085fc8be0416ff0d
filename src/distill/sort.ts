/**
 * An external sort by group key, for inputs whose groups are scattered (concatenated eval files,
 * shuffled data): rows are cut into runs of at most `runRows`, each run sorted in memory by
 * (key, input position) and written to a temporary file, then the runs are merged with a heap.
 * Memory: one run while cutting, one row per run while merging. Stable: rows of a group keep
 * their input order, so best-of ties still go to the earlier row.
 */
import { createReadStream, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDir } from "../config/scratch.js";
import { createInterface } from "node:readline";

type Raw = Record<string, unknown>;

/** What a run file holds per line: the key, the input position, the row. */
interface Entry {
  k: string;
  i: number;
  r: Raw;
}

const before = (a: Entry, b: Entry) => (a.k < b.k ? true : a.k > b.k ? false : a.i < b.i);

/** Options of `sortByGroup`. */
export interface SortOptions {
  /** Rows per in-memory run (default 50,000). */
  runRows?: number;
  /** Where run files go (default: the OS temp dir), in a fresh folder removed afterwards, or by the next sort when this process is killed first. */
  dir?: string;
}

/**
 * Yields the rows ordered by `keyOf(row)` (then input position), spilling sorted runs to disk.
 * @example for await (const row of sortByGroup(readRows(), (r) => String(r.task))) ...
 */
export async function* sortByGroup(rows: AsyncIterable<Raw>, keyOf: (row: Raw, index: number) => string, options: SortOptions = {}): AsyncGenerator<Raw> {
  const runRows = Math.max(1, options.runRows ?? 50_000);
  const dir = scratchDir("sort", options.dir);
  const runs: string[] = [];
  let buffer: Entry[] = [];
  const sortBuffer = () => buffer.sort((a, b) => (before(a, b) ? -1 : 1));
  try {
    let i = 0;
    for await (const r of rows) {
      buffer.push({ k: keyOf(r, i), i, r });
      i++;
      if (buffer.length >= runRows) {
        sortBuffer();
        const path = join(dir, `run-${runs.length}.jsonl`);
        writeFileSync(path, buffer.map((e) => JSON.stringify(e)).join("\n") + "\n");
        runs.push(path);
        buffer = [];
      }
    }
    sortBuffer();
    if (runs.length === 0) {
      for (const e of buffer) yield e.r;
      return;
    }
    yield* merge([...runs.map(readRun), arrayRun(buffer)]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function* readRun(path: string): AsyncGenerator<Entry> {
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) if (line) yield JSON.parse(line) as Entry;
}

async function* arrayRun(entries: Entry[]): AsyncGenerator<Entry> {
  yield* entries;
}

/** A k-way merge of sorted runs with a binary heap of their heads. */
async function* merge(sources: AsyncGenerator<Entry>[]): AsyncGenerator<Raw> {
  const heap: { e: Entry; s: number }[] = [];
  const less = (a: number, b: number) => before(heap[a].e, heap[b].e);
  const swap = (a: number, b: number) => ([heap[a], heap[b]] = [heap[b], heap[a]]);
  const up = (n: number) => {
    while (n > 0 && less(n, (n - 1) >> 1)) {
      swap(n, (n - 1) >> 1);
      n = (n - 1) >> 1;
    }
  };
  const down = (n: number) => {
    for (;;) {
      const l = 2 * n + 1;
      const r = l + 1;
      let m = n;
      if (l < heap.length && less(l, m)) m = l;
      if (r < heap.length && less(r, m)) m = r;
      if (m === n) return;
      swap(n, m);
      n = m;
    }
  };
  for (let s = 0; s < sources.length; s++) {
    const next = await sources[s].next();
    if (!next.done) {
      heap.push({ e: next.value, s });
      up(heap.length - 1);
    }
  }
  while (heap.length > 0) {
    const top = heap[0];
    yield top.e.r;
    const next = await sources[top.s].next();
    if (next.done) {
      const last = heap.pop()!;
      if (heap.length > 0) {
        heap[0] = last;
        down(0);
      }
    } else {
      heap[0] = { e: next.value, s: top.s };
      down(0);
    }
  }
}
