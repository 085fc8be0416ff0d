import type Database from "better-sqlite3";
import { openDatabase } from "../sqlite-driver.js";
import { randomUUID } from "node:crypto";

/** A provider batch job as recorded beside the cache, so a crash never resubmits it. */
export interface BatchJob {
  id: string;
  /** The provider's batch id, once known. */
  remoteId?: string;
  /** OpenAI: the uploaded input file, recorded before the batch is created. */
  fileId?: string;
  provider: string;
  baseURL: string;
  state: "submitting" | "submitted" | "collected";
  count: number;
  /** ms since epoch, recorded before the create request left. */
  createdAt: number;
  /** The batch was found by a lookup after a lost create, not returned by the create itself. */
  found: boolean;
  /** The random nonce its requests' custom_ids carry (Anthropic), proving which batch is this job's; absent in jobs recorded before nonces. */
  nonce?: string;
}

/**
 * Where batch jobs are recorded: beside the cache (same SQLite file), or in memory. A small
 * interface so another cache backend can keep its own.
 */
export interface BatchJobStore {
  create(provider: string, baseURL: string, keys: string[], nonce?: string): BatchJob;
  markUploaded(id: string, fileId: string): void;
  markSubmitted(id: string, remoteId: string, found?: boolean): void;
  markCollected(id: string): void;
  /** Jobs not yet collected for this provider and server (without their keys: a million keys stay on disk). */
  active(provider: string, baseURL: string): BatchJob[];
  /** The custom_ids a job sent. */
  keys(id: string): string[];
  /** Every batch id any job of this provider and server has claimed. */
  remoteIds(provider: string, baseURL: string): Set<string>;
  close(): void;
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS batch_jobs (
  id TEXT PRIMARY KEY, remote_id TEXT, provider TEXT NOT NULL, base_url TEXT NOT NULL,
  state TEXT NOT NULL, keys TEXT NOT NULL, created_at INTEGER NOT NULL)`;
/** Columns added after the first release; older files get them on open. */
const ADDED = { file_id: "TEXT", count: "INTEGER", found: "INTEGER NOT NULL DEFAULT 0", nonce: "TEXT" };

type Row = { id: string; remote_id: string | null; file_id: string | null; provider: string; base_url: string; state: BatchJob["state"]; count: number; created_at: number; found: number; nonce: string | null };

/**
 * Records batch jobs in the cache's SQLite file (path) or in memory (undefined): the jobs and
 * the answers they bring back live and die together.
 * @example const jobs = openBatchJobStore(".rubricate/cache.db")
 */
export function openBatchJobStore(path: string | undefined): BatchJobStore {
  if (!path) return memoryStore();
  const db = openDatabase(path);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.exec(SCHEMA);
  const have = new Set((db.prepare("PRAGMA table_info(batch_jobs)").all() as { name: string }[]).map((c) => c.name));
  for (const [column, type] of Object.entries(ADDED)) if (!have.has(column)) db.exec(`ALTER TABLE batch_jobs ADD COLUMN ${column} ${type}`);
  const insert = db.prepare("INSERT INTO batch_jobs (id, remote_id, provider, base_url, state, keys, created_at, count, nonce) VALUES (?, NULL, ?, ?, 'submitting', ?, ?, ?, ?)");
  const setFile = db.prepare("UPDATE batch_jobs SET file_id = ? WHERE id = ?");
  const setRemote = db.prepare("UPDATE batch_jobs SET remote_id = ?, state = 'submitted', found = ? WHERE id = ?");
  const setCollected = db.prepare("UPDATE batch_jobs SET state = 'collected' WHERE id = ?");
  const selectActive = db.prepare(
    "SELECT id, remote_id, file_id, provider, base_url, state, coalesce(count, json_array_length(keys)) AS count, created_at, found, nonce FROM batch_jobs WHERE provider = ? AND base_url = ? AND state != 'collected' ORDER BY created_at",
  );
  const selectKeys = db.prepare("SELECT keys FROM batch_jobs WHERE id = ?");
  const selectRemote = db.prepare("SELECT remote_id FROM batch_jobs WHERE provider = ? AND base_url = ? AND remote_id IS NOT NULL");
  return {
    create(provider, baseURL, keys, nonce) {
      const job: BatchJob = { id: randomUUID(), provider, baseURL, state: "submitting", count: keys.length, createdAt: Date.now(), found: false, ...(nonce ? { nonce } : {}) };
      insert.run(job.id, provider, baseURL, JSON.stringify(keys), job.createdAt, keys.length, nonce ?? null);
      return job;
    },
    markUploaded: (id, fileId) => void setFile.run(fileId, id),
    markSubmitted: (id, remoteId, found = false) => void setRemote.run(remoteId, found ? 1 : 0, id),
    markCollected: (id) => void setCollected.run(id),
    active: (provider, baseURL) =>
      (selectActive.all(provider, baseURL) as Row[]).map((r) => ({
        id: r.id, remoteId: r.remote_id ?? undefined, fileId: r.file_id ?? undefined, provider: r.provider, baseURL: r.base_url, state: r.state, count: r.count, createdAt: r.created_at, found: r.found === 1, ...(r.nonce ? { nonce: r.nonce } : {}),
      })),
    keys: (id) => JSON.parse((selectKeys.get(id) as { keys: string } | undefined)?.keys ?? "[]") as string[],
    remoteIds: (provider, baseURL) => new Set((selectRemote.all(provider, baseURL) as { remote_id: string }[]).map((r) => r.remote_id)),
    close: () => db.close(),
  };
}

function memoryStore(): BatchJobStore {
  const jobs = new Map<string, BatchJob & { keys: string[] }>();
  const get = (id: string) => jobs.get(id)!;
  const strip = ({ keys: _keys, ...job }: BatchJob & { keys: string[] }): BatchJob => ({ ...job });
  return {
    create(provider, baseURL, keys, nonce) {
      const job = { id: randomUUID(), provider, baseURL, state: "submitting" as const, count: keys.length, createdAt: Date.now(), found: false, keys, ...(nonce ? { nonce } : {}) };
      jobs.set(job.id, job);
      return strip(job);
    },
    markUploaded: (id, fileId) => void Object.assign(get(id), { fileId }),
    markSubmitted: (id, remoteId, found = false) => void Object.assign(get(id), { remoteId, state: "submitted", found }),
    markCollected: (id) => void Object.assign(get(id), { state: "collected" }),
    active: (provider, baseURL) => [...jobs.values()].filter((j) => j.provider === provider && j.baseURL === baseURL && j.state !== "collected").map(strip),
    keys: (id) => get(id).keys,
    remoteIds: (provider, baseURL) => new Set([...jobs.values()].filter((j) => j.provider === provider && j.baseURL === baseURL && j.remoteId).map((j) => j.remoteId!)),
    close: () => undefined,
  };
}
