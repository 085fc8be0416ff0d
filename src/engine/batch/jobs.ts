import Database from "better-sqlite3";
import { randomUUID } from "node:crypto";

/** A provider batch job as recorded in the cache database, so a crash never resubmits it. */
export interface BatchJob {
  id: string;
  remoteId?: string;
  provider: string;
  baseURL: string;
  state: "submitting" | "submitted" | "collected";
  keys: string[];
  createdAt: number;
}

/** Where batch jobs are recorded: beside the cache (same SQLite file), or in memory. */
export interface BatchJobStore {
  create(provider: string, baseURL: string, keys: string[]): BatchJob;
  markSubmitted(id: string, remoteId: string): void;
  markCollected(id: string): void;
  /** Jobs not yet collected for this provider and server. */
  active(provider: string, baseURL: string): BatchJob[];
  close(): void;
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS batch_jobs (
  id TEXT PRIMARY KEY, remote_id TEXT, provider TEXT NOT NULL, base_url TEXT NOT NULL,
  state TEXT NOT NULL, keys TEXT NOT NULL, created_at INTEGER NOT NULL)`;

/**
 * Records batch jobs in the cache's SQLite file (path) or in memory (undefined): the jobs and
 * the answers they bring back live and die together.
 * @example const jobs = openBatchJobStore(".rubricate/cache.db")
 */
export function openBatchJobStore(path: string | undefined): BatchJobStore {
  if (!path) return memoryStore();
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.exec(SCHEMA);
  const insert = db.prepare("INSERT INTO batch_jobs (id, remote_id, provider, base_url, state, keys, created_at) VALUES (?, NULL, ?, ?, 'submitting', ?, ?)");
  const setRemote = db.prepare("UPDATE batch_jobs SET remote_id = ?, state = 'submitted' WHERE id = ?");
  const setCollected = db.prepare("UPDATE batch_jobs SET state = 'collected' WHERE id = ?");
  const selectActive = db.prepare("SELECT * FROM batch_jobs WHERE provider = ? AND base_url = ? AND state != 'collected' ORDER BY created_at");
  type Row = { id: string; remote_id: string | null; provider: string; base_url: string; state: BatchJob["state"]; keys: string; created_at: number };
  return {
    create(provider, baseURL, keys) {
      const job: BatchJob = { id: randomUUID(), provider, baseURL, state: "submitting", keys, createdAt: Date.now() };
      insert.run(job.id, provider, baseURL, JSON.stringify(keys), job.createdAt);
      return job;
    },
    markSubmitted: (id, remoteId) => void setRemote.run(remoteId, id),
    markCollected: (id) => void setCollected.run(id),
    active: (provider, baseURL) =>
      (selectActive.all(provider, baseURL) as Row[]).map((r) => ({ id: r.id, remoteId: r.remote_id ?? undefined, provider: r.provider, baseURL: r.base_url, state: r.state, keys: JSON.parse(r.keys) as string[], createdAt: r.created_at })),
    close: () => db.close(),
  };
}

function memoryStore(): BatchJobStore {
  const jobs = new Map<string, BatchJob>();
  return {
    create(provider, baseURL, keys) {
      const job: BatchJob = { id: randomUUID(), provider, baseURL, state: "submitting", keys, createdAt: Date.now() };
      jobs.set(job.id, job);
      return job;
    },
    markSubmitted: (id, remoteId) => void Object.assign(jobs.get(id)!, { remoteId, state: "submitted" }),
    markCollected: (id) => void Object.assign(jobs.get(id)!, { state: "collected" }),
    active: (provider, baseURL) => [...jobs.values()].filter((j) => j.provider === provider && j.baseURL === baseURL && j.state !== "collected"),
    close: () => undefined,
  };
}
