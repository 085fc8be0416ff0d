import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openBatchJobStore } from "../../../src/engine/batch/jobs.js";
import { tempDir } from "../../helpers/cli.js";

describe("batch job store", () => {
  it("opens a cache file written by the first release: a job recorded then is resumed, not lost", () => {
    const path = join(tempDir(), "cache.db");
    const old = new Database(path);
    old.exec("CREATE TABLE batch_jobs (id TEXT PRIMARY KEY, remote_id TEXT, provider TEXT NOT NULL, base_url TEXT NOT NULL, state TEXT NOT NULL, keys TEXT NOT NULL, created_at INTEGER NOT NULL)");
    old.prepare("INSERT INTO batch_jobs VALUES ('j1', NULL, 'openai', 'http://x/v1', 'submitting', ?, 1700000000000)").run(JSON.stringify(["k1", "k2", "k3"]));
    old.close();
    const store = openBatchJobStore(path);
    expect(store.active("openai", "http://x/v1")).toEqual([
      { id: "j1", remoteId: undefined, fileId: undefined, provider: "openai", baseURL: "http://x/v1", state: "submitting", count: 3, createdAt: 1700000000000, found: false },
    ]);
    store.markUploaded("j1", "file-1");
    store.markSubmitted("j1", "batch_1", true);
    expect(store.active("openai", "http://x/v1")[0]).toMatchObject({ fileId: "file-1", remoteId: "batch_1", state: "submitted", found: true });
    expect(store.keys("j1")).toEqual(["k1", "k2", "k3"]);
    expect(store.remoteIds("openai", "http://x/v1")).toEqual(new Set(["batch_1"]));
    store.markCollected("j1");
    expect(store.active("openai", "http://x/v1")).toEqual([]);
    store.close();
  });

  it("the memory store keeps the same record", () => {
    const store = openBatchJobStore(undefined);
    const job = store.create("anthropic", "http://y", ["a", "b"]);
    expect(job).toMatchObject({ state: "submitting", count: 2, found: false });
    store.markSubmitted(job.id, "msgbatch_1");
    expect(store.active("anthropic", "http://y")[0]).toMatchObject({ remoteId: "msgbatch_1", state: "submitted" });
    expect(store.keys(job.id)).toEqual(["a", "b"]);
  });
});
