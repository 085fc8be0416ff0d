/**
 * The hub's results: one SQLite file (WAL, so pages read while a result is written). A row is one
 * accepted HubResult, kept whole as JSON, with the columns pages filter by beside it. The evals the
 * hub runs itself are kept here too, so a restarted hub knows what it left unfinished. No token and
 * no request header is ever written here.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { RubricateError } from "../errors.js";
import type { HubResult } from "../hub/results.js";
import type { EvalProgress, EvalRequest } from "./evals.js";

/** A stored result: what was pushed, who pushed it (the registry's user name) and when. */
export interface StoredResult {
  id: number;
  receivedAt: string;
  submittedBy: string | null;
  result: HubResult;
}

/** An eval the hub runs (the Evaluate button), as the store keeps it across restarts. */
export type StoredEval = EvalProgress & {
  request: EvalRequest;
  /** The output file of each model, in the request's order. */
  outs: string[];
  /** How many of the request's models have their result in the store (they run in order). */
  stored: number;
  /** The process id of the coordinator running now, while one does. */
  pid?: number;
};

export class ResultStore {
  private readonly db: Database.Database;

  /** Opens (or creates) the store at `path`; ":memory:" for a throwaway one. */
  constructor(path: string) {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    let db: Database.Database | undefined;
    try {
      db = new Database(path);
      db.pragma("journal_mode = WAL");
      db.exec(`CREATE TABLE IF NOT EXISTS results (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        env TEXT NOT NULL,
        version TEXT NOT NULL,
        model TEXT NOT NULL,
        series TEXT NOT NULL,
        step INTEGER,
        received_at TEXT NOT NULL,
        submitted_by TEXT,
        body TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS results_env ON results (env, version);
      CREATE INDEX IF NOT EXISTS results_series ON results (series, step);
      CREATE TABLE IF NOT EXISTS evals (
        id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        body TEXT NOT NULL
      );`);
    } catch (e) {
      db?.close();
      // A --db that is some other file, or a damaged one: said as the user's to fix, not as a crash.
      const code = String((e as { code?: unknown }).code ?? "");
      if (!code.startsWith("SQLITE_")) throw e;
      const what = code.startsWith("SQLITE_NOTADB") || code.startsWith("SQLITE_CORRUPT") ? "is not a hub results store" : "cannot be opened as the hub results store";
      throw new RubricateError("BAD_INPUT", `${path} ${what} (${code}: ${(e as Error).message}); move it away or pass another --db`, { cause: e });
    }
    this.db = db;
  }

  /** Writes an eval's record (the whole of it, replacing the last one). */
  saveEval(record: StoredEval): void {
    this.db
      .prepare("INSERT INTO evals (id, state, updated_at, body) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at, body = excluded.body")
      .run(record.id, record.state, new Date().toISOString(), JSON.stringify(record));
  }

  /** An eval's last record. */
  evalRecord(id: string): StoredEval | undefined {
    const row = this.db.prepare("SELECT body FROM evals WHERE id = ?").get(id) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as StoredEval) : undefined;
  }

  /** The evals whose last record says queued or running: a hub that stopped left them so. */
  unfinishedEvals(): StoredEval[] {
    return (this.db.prepare("SELECT body FROM evals WHERE state IN ('queued', 'running') ORDER BY updated_at").all() as { body: string }[]).map((r) => JSON.parse(r.body) as StoredEval);
  }

  add(result: HubResult, submittedBy: string | null, receivedAt = new Date().toISOString()): StoredResult {
    const info = this.db
      .prepare("INSERT INTO results (env, version, model, series, step, received_at, submitted_by, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .run(result.env.name, result.env.version, result.model, result.series ?? result.model, result.step ?? null, receivedAt, submittedBy, JSON.stringify(result));
    return { id: Number(info.lastInsertRowid), receivedAt, submittedBy, result };
  }

  /**
   * Stores a result of one of the hub's own evals together with the eval's record that counts it,
   * in one transaction: a hub stopped between the two would take the eval up again from a record
   * that does not count the result, and store it a second time. Either both are written or neither.
   */
  addEvalResult(result: HubResult, submittedBy: string, record: StoredEval): StoredResult {
    return this.db.transaction(() => {
      const stored = this.add(result, submittedBy);
      this.saveEval(record);
      return stored;
    })();
  }

  /** Every result for an environment (one version, or all), oldest first. */
  forEnv(name: string, version?: string): StoredResult[] {
    const rows = version === undefined
      ? this.db.prepare("SELECT * FROM results WHERE env = ? ORDER BY id").all(name)
      : this.db.prepare("SELECT * FROM results WHERE env = ? AND version = ? ORDER BY id").all(name, version);
    return (rows as Row[]).map(fromRow);
  }

  /** Every result of a training series that carries a step, by step. */
  forSeries(series: string): StoredResult[] {
    return (this.db.prepare("SELECT * FROM results WHERE series = ? AND step IS NOT NULL ORDER BY step, id").all(series) as Row[]).map(fromRow);
  }

  /** Names of the series with stepped results on an environment, for its page's links to the curves. */
  seriesOn(env: string): string[] {
    return (this.db.prepare("SELECT DISTINCT series FROM results WHERE env = ? AND step IS NOT NULL ORDER BY series").all(env) as { series: string }[]).map((r) => r.series);
  }

  close(): void {
    this.db.close();
  }
}

interface Row {
  id: number;
  received_at: string;
  submitted_by: string | null;
  body: string;
}

const fromRow = (r: Row): StoredResult => ({ id: r.id, receivedAt: r.received_at, submittedBy: r.submitted_by, result: JSON.parse(r.body) as HubResult });
