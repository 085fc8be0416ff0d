import { mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import { openDatabase } from "../sqlite-driver.js";
import { RubricateError } from "../../errors.js";
import type { Cache, CacheEntry } from "../types.js";
import { MemoryCache, emptyCacheStats, type CacheStats } from "./memory.js";

/** The default cache file, relative to the working directory. */
export const DEFAULT_CACHE_PATH = ".rubricate/cache.db";

/** How the file ended up opened: read-write, read-only (writes kept in memory), or not at all (memory only). */
export type SqliteCacheMode = "read-write" | "read-only" | "memory";

/** Options of `SqliteCache`. */
export interface SqliteCacheOptions {
  /** How long a write waits for another process's lock before it counts as a write error. */
  busyTimeoutMs?: number;
  /** Told about open fallbacks and failed reads/writes (once per distinct error code, so a full disk does not flood). */
  onError?: (error: RubricateError) => void;
  /** A corrupted file: "throw" (default) a `CACHE` error at open, or "memory" to warn and run uncached. */
  onCorrupt?: "throw" | "memory";
  /** Test hook run before each write; throwing (e.g. an ENOSPC error) simulates a failed write. */
  beforeWrite?: (key: string) => void;
  /** Entries kept in memory when they could not be written (bounded). */
  fallbackEntries?: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);`;

/**
 * The persistent cache and crash journal: one SQLite file in WAL mode, shared safely by several
 * processes. Every `set` is its own committed transaction with `synchronous=NORMAL`: in WAL mode
 * that survives a SIGKILL right after the write (only power loss can drop the last commits) and
 * measured ~50,000 commits/s here, far above any judge's call rate, so writes are not batched.
 * Failures never crash a run: an unopenable or read-only file degrades to memory (counted in
 * `stats.writeErrors`, told to `onError`); a corrupted file is a `CACHE` error at open unless
 * `onCorrupt: "memory"`.
 * @example
 * const cache = SqliteCache.open(".rubricate/cache.db", { onError: (e) => console.warn(e.message) });
 */
export class SqliteCache implements Cache {
  readonly stats: CacheStats = emptyCacheStats();
  private readonly fallback: MemoryCache;
  private readonly reported = new Set<string>();
  private stmts?: {
    get: Database.Statement<[string], { value: string; created_at: number }>;
    has: Database.Statement<[string], unknown>;
    insert: Database.Statement<[string, string, number]>;
    getMeta: Database.Statement<[string], { value: string }>;
    setMeta: Database.Statement<[string, string]>;
  };
  private closed = false;

  private constructor(
    readonly path: string,
    private db: Database.Database | undefined,
    readonly mode: SqliteCacheMode,
    private readonly options: SqliteCacheOptions,
  ) {
    this.fallback = new MemoryCache(options.fallbackEntries ?? 100_000);
    if (db) {
      this.stmts = {
        get: db.prepare("SELECT value, created_at FROM responses WHERE key = ?"),
        has: db.prepare("SELECT 1 FROM responses WHERE key = ?"),
        insert: db.prepare("INSERT OR IGNORE INTO responses (key, value, created_at) VALUES (?, ?, ?)"),
        getMeta: db.prepare("SELECT value FROM meta WHERE key = ?"),
        setMeta: db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"),
      };
    }
  }

  /** Opens (creating the folder and file) or degrades as the class doc says; throws only for corruption. */
  static open(path: string = DEFAULT_CACHE_PATH, options: SqliteCacheOptions = {}): SqliteCache {
    const report = (e: RubricateError) => options.onError?.(e);
    try {
      mkdirSync(dirname(path), { recursive: true });
      return new SqliteCache(path, openWhenFree(path, options), "read-write", options);
    } catch (e) {
      if (isCorrupt(e)) {
        const err = cacheError(`${path} is not a valid rubricate cache (${message(e)}); move it away, pass another --cache path, or use --no-cache`, e);
        if ((options.onCorrupt ?? "throw") === "throw") throw err;
        report(cacheError(`${err.message}; running without a persistent cache`, e));
        return new SqliteCache(path, undefined, "memory", options);
      }
      try {
        const db = openFile(path, options, true);
        report(cacheError(`cache ${path} is read-only (${message(e)}); new answers are kept in memory only`, e));
        return new SqliteCache(path, db, "read-only", options);
      } catch (readOnlyError) {
        // A WAL file in a folder we cannot write: SQLite needs to create <file>-shm even to read it.
        // Read a snapshot of the file instead, so its answers are still reused.
        const snapshot = openSnapshot(path);
        if (snapshot) {
          report(cacheError(`cache ${path} is in a folder rubricate cannot write (SQLite's WAL mode needs ${path}-shm there: ${message(readOnlyError)}); reading a snapshot of it (${snapshot.megabytes} MB in memory); new answers are kept in memory only`, e));
          return new SqliteCache(path, snapshot.db, "read-only", options);
        }
        report(cacheError(`cannot open cache ${path} (${message(e)}); running without a persistent cache`, e));
        return new SqliteCache(path, undefined, "memory", options);
      }
    }
  }

  get(key: string): CacheEntry | undefined {
    const entry = this.fallback.has(key) ? this.fallback.get(key) : this.read(key);
    if (entry) this.stats.hits++;
    else this.stats.misses++;
    return entry;
  }

  has(key: string): boolean {
    if (this.fallback.has(key)) return true;
    if (!this.stmts || this.closed) return false;
    try {
      return this.stmts.has.get(key) !== undefined;
    } catch (e) {
      this.report("read", e);
      return false;
    }
  }

  set(key: string, entry: CacheEntry): void {
    if (this.closed) return;
    if (!this.stmts || this.mode !== "read-write") {
      this.stats.writeErrors++; // already reported at open
      this.fallback.set(key, entry);
      return;
    }
    try {
      this.options.beforeWrite?.(key);
      this.stmts.insert.run(key, JSON.stringify(entry.response), entry.createdAt);
      this.stats.writes++;
    } catch (e) {
      this.stats.writeErrors++;
      this.fallback.set(key, entry); // this run still reuses the answer it paid for
      this.report("write", e);
    }
  }

  /** Reads a value of the `meta` table (undefined when absent or unreadable). */
  getMeta(key: string): string | undefined {
    if (!this.stmts || this.closed) return undefined;
    try {
      return this.stmts.getMeta.get(key)?.value;
    } catch (e) {
      this.report("read", e);
      return undefined;
    }
  }

  /** Writes a value of the `meta` table; false when it could not be written. */
  setMeta(key: string, value: string): boolean {
    if (!this.stmts || this.closed || this.mode !== "read-write") return false;
    try {
      this.stmts.setMeta.run(key, value);
      return true;
    } catch (e) {
      this.report("write", e);
      return false;
    }
  }

  /** Releases the file (each write is already committed, so there is nothing to flush). Safe to call twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.db?.close();
    } catch (e) {
      this.report("close", e);
    }
    this.db = undefined;
    this.stmts = undefined;
  }

  private read(key: string): CacheEntry | undefined {
    if (!this.stmts || this.closed) return undefined;
    let row: { value: string; created_at: number } | undefined;
    try {
      row = this.stmts.get.get(key);
    } catch (e) {
      this.report("read", e);
      return undefined;
    }
    if (!row) return undefined;
    try {
      return { response: JSON.parse(row.value) as CacheEntry["response"], createdAt: row.created_at };
    } catch (e) {
      this.report("read", e); // a damaged row is a miss: the call is paid again, never invented
      return undefined;
    }
  }

  private report(op: string, e: unknown): void {
    const code = (e as { code?: string })?.code ?? "UNKNOWN";
    if (this.reported.has(`${op}:${code}`)) return;
    this.reported.add(`${op}:${code}`);
    this.options.onError?.(cacheError(`cache ${op} failed on ${this.path} (${message(e)}); further ${op} errors of this kind are counted, not reported`, e));
  }
}

/**
 * Opens read-write, retrying while another process holds the file: two runs starting together
 * race to create the tables and switch the file to WAL, and SQLite answers the loser SQLITE_BUSY
 * at once (the busy timeout does not cover a journal-mode change). Without the retry the loser
 * would wrongly run with a read-only cache.
 */
function openWhenFree(path: string, options: SqliteCacheOptions): Database.Database {
  const deadline = Date.now() + (options.busyTimeoutMs ?? 5000);
  for (let attempt = 0; ; attempt++) {
    try {
      return openFile(path, options, false);
    } catch (e) {
      const code = String((e as { code?: string })?.code ?? "");
      if (!(code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) || Date.now() >= deadline) throw e;
      sleepSync(Math.min(200, 10 * 2 ** attempt) * (0.5 + Math.random()));
    }
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Largest cache file read into memory when it cannot be opened in place. */
const SNAPSHOT_MAX_BYTES = 2 * 1024 ** 3;

/**
 * The cache file's contents as a read-only in-memory database, or undefined when it is missing,
 * too large or not a cache. The header's WAL marks (bytes 18 and 19) are set back to rollback
 * journal, which an in-memory database needs; committed answers still in a `-wal` file that was
 * never checkpointed are not seen (they are paid again, never invented).
 */
function openSnapshot(path: string): { db: Database.Database; megabytes: string } | undefined {
  try {
    const size = statSync(path).size;
    if (size === 0 || size > SNAPSHOT_MAX_BYTES) return undefined;
    const bytes = readFileSync(path);
    if (bytes[18] === 2) bytes[18] = 1;
    if (bytes[19] === 2) bytes[19] = 1;
    const db = openDatabase(bytes, { readonly: true });
    try {
      db.prepare("SELECT 1 FROM responses LIMIT 1").get();
    } catch (e) {
      db.close();
      throw e;
    }
    return { db, megabytes: (size / 1024 ** 2).toFixed(1) };
  } catch {
    return undefined;
  }
}

function openFile(path: string, options: SqliteCacheOptions, readonly: boolean): Database.Database {
  const db = openDatabase(path, { timeout: options.busyTimeoutMs ?? 5000, readonly, fileMustExist: readonly });
  try {
    if (readonly) {
      db.prepare("SELECT 1 FROM responses LIMIT 1").get(); // fails now, not at first lookup
    } else {
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.exec(SCHEMA);
      probeWritable(db);
    }
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** A read-only file opens and reads fine in WAL mode; find out now rather than at the first paid answer. */
function probeWritable(db: Database.Database): void {
  try {
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', '1')").run(); // a real write: BEGIN IMMEDIATE alone passes
  } catch (e) {
    if (String((e as { code?: string })?.code).startsWith("SQLITE_READONLY")) throw e;
    // SQLITE_BUSY: another process is writing; that is not our problem to report here.
  }
}

function isCorrupt(e: unknown): boolean {
  const code = String((e as { code?: string })?.code ?? "");
  return code.startsWith("SQLITE_NOTADB") || code.startsWith("SQLITE_CORRUPT");
}

function message(e: unknown): string {
  const code = (e as { code?: string })?.code;
  const text = e instanceof Error ? e.message : String(e);
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}

function cacheError(msg: string, cause?: unknown): RubricateError {
  return new RubricateError("CACHE", msg, { cause });
}
