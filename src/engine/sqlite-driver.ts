/**
 * better-sqlite3, loaded when a database is first opened rather than with `import "rubricate"`:
 * its 13 CommonJS files and native binding cost every start-up, and a run without a cache, a batch
 * or a merge never needs them (tests/import-graph.test.ts).
 */
import { createRequire } from "node:module";
import type Database from "better-sqlite3";

let driver: typeof Database | undefined;

/** Opens a SQLite database (a file path, or a serialized buffer) with better-sqlite3. */
export function openDatabase(source: string | Buffer, options?: Database.Options): Database.Database {
  driver ??= createRequire(import.meta.url)("better-sqlite3") as typeof Database;
  return new driver(source, options);
}
