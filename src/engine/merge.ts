import { existsSync } from "node:fs";
import type Database from "better-sqlite3";
import { openDatabase } from "./sqlite-driver.js";
import { RubricateError } from "../errors.js";

/** What `mergeResults` found: rows written, duplicates dropped, and indexes no file had. */
export interface MergeReport {
  rows: number;
  duplicates: number;
  conflicts: number;
  missing: number;
}

/**
 * Joins result streams that are each sorted by `index` (as shards write them) into one stream in
 * index order: a k-way merge, so memory holds one row per input. Identical duplicates are dropped;
 * conflicting ones are an error.
 */
export async function* mergeResults(inputs: AsyncIterable<Record<string, unknown>>[], report: MergeReport, names: string[] = []): AsyncGenerator<Record<string, unknown>> {
  const nameOf = (i: number) => names[i] ?? `results file ${i + 1}`;
  const iterators = inputs.map((input) => input[Symbol.asyncIterator]());
  const heads = await Promise.all(iterators.map((it) => it.next()));
  let last: Record<string, unknown> | undefined;
  let lastFrom = -1;
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      if (heads[i].done) continue;
      if (best < 0 || indexOf(heads[i].value) < indexOf(heads[best].value)) best = i;
    }
    if (best < 0) return;
    const row = heads[best].value as Record<string, unknown>;
    heads[best] = await iterators[best].next();
    if (!heads[best].done && indexOf(heads[best].value) < indexOf(row)) {
      throw new RubricateError("BAD_INPUT", `${nameOf(best)} is not sorted by index (${indexOf(heads[best].value)} after ${indexOf(row)})`);
    }
    if (last && indexOf(last) === indexOf(row)) {
      if (JSON.stringify(last) !== JSON.stringify(row)) {
        report.conflicts++;
        throw new RubricateError("BAD_INPUT", `two results for sample index ${indexOf(row)} disagree (${lastFrom === best ? nameOf(best) : `${nameOf(lastFrom)} and ${nameOf(best)}`})`);
      }
      report.duplicates++;
      continue;
    }
    report.missing += last ? indexOf(row) - indexOf(last) - 1 : indexOf(row);
    report.rows++;
    last = row;
    lastFrom = best;
    yield row;
  }
}

function indexOf(row: unknown): number {
  const index = (row as { index?: unknown }).index;
  if (typeof index !== "number") throw new RubricateError("BAD_INPUT", "a results line has no numeric `index` (was it written by `rubricate score`?)");
  return index;
}

/**
 * Copies every cached answer of `sources` into `target` (created if needed); answers already
 * there are kept. Returns how many were added.
 * @example mergeCaches(".rubricate/cache.db", ["shard1.db", "shard2.db"])
 */
export function mergeCaches(target: string, sources: string[]): number {
  // Checked before anything is created: a mistyped source must not leave an empty file behind
  // (ATTACH creates a missing file) nor end in a puzzling "no such table".
  const missing = sources.filter((s) => !existsSync(s));
  if (missing.length) throw new RubricateError("FILE_NOT_FOUND", `no such cache file: ${missing.join(", ")} (nothing was merged)`);
  for (const source of sources) {
    let ok = false;
    try {
      const check = openDatabase(source, { readonly: true, fileMustExist: true });
      try {
        ok = check.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'responses'").get() !== undefined;
      } finally {
        check.close();
      }
    } catch {
      ok = false;
    }
    if (!ok) throw new RubricateError("CACHE", `${source} is not a rubricate cache (no responses table); nothing was merged`);
  }
  const db = openDatabase(target);
  try {
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at INTEGER NOT NULL); CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);");
    let added = 0;
    for (const source of sources) {
      db.prepare("ATTACH DATABASE ? AS source").run(source);
      try {
        added += db.prepare("INSERT OR IGNORE INTO main.responses (key, value, created_at) SELECT key, value, created_at FROM source.responses").run().changes;
      } finally {
        db.prepare("DETACH DATABASE source").run();
      }
    }
    return added;
  } catch (e) {
    throw new RubricateError("CACHE", `cannot merge caches into ${target}: ${(e as Error).message}`, { cause: e });
  } finally {
    db.close();
  }
}
