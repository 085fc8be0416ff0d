import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteCache } from "../../../src/engine/cache/sqlite.js";
import type { RubricateError } from "../../../src/errors.js";
import type { CacheEntry } from "../../../src/engine/types.js";
import { compiledFixture, fixture, runChild } from "../fixtures/child.js";

const entry = (text: string, createdAt = 1): CacheEntry => ({ response: { text, finishReason: "stop", usage: { inputTokens: 3, outputTokens: 1, cachedInputTokens: 2 } }, createdAt });
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "rubricate-sqlite-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) {
    chmodSync(d, 0o755);
    rmSync(d, { recursive: true, force: true });
  }
});
const child = fixture("cache-child.ts");
const cwd = process.cwd();

describe("SqliteCache", () => {
  it("round-trips entries across close and reopen, creating the folder", () => {
    const path = join(tmp(), "nested", "deeper", "cache.db");
    const a = SqliteCache.open(path);
    expect(a.mode).toBe("read-write");
    a.set("k1", entry("one", 1234));
    a.set("k1", entry("overwritten?", 9)); // INSERT OR IGNORE: the first answer stays
    expect(a.stats).toMatchObject({ writes: 2, writeErrors: 0 });
    a.close();
    a.close(); // twice is fine

    const b = SqliteCache.open(path);
    expect(b.get("k1")).toEqual(entry("one", 1234));
    expect(b.has("k1")).toBe(true);
    expect(b.get("k2")).toBeUndefined();
    expect(b.stats).toMatchObject({ hits: 1, misses: 1 });
    expect(b.setMeta("x", "y")).toBe(true);
    expect(b.getMeta("x")).toBe("y");
    b.close();
  });

  it("uses WAL mode and has the responses and meta tables", () => {
    const path = join(tmp(), "c.db");
    SqliteCache.open(path).close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(["meta", "responses"]);
    db.close();
  });

  it("several processes creating one fresh file at the same instant all open it read-write", async () => {
    // They race to create the tables and switch to WAL; SQLite answers the losers SQLITE_BUSY at once.
    // Three rounds, each a fresh file opened by the same four processes at one instant (a second apart).
    const dir = tmp();
    const start = Date.now() + 2000;
    const rounds = [0, 1, 2].map((round) => ({ path: join(dir, `race-${round}.db`), at: String(start + round * 1000) }));
    const runs = await Promise.all(Array.from({ length: 4 }, () => runChild([child, "open", ...rounds.flatMap((r) => [r.path, r.at])], { cwd })));
    for (const r of runs) {
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout.trim().split("\n").map((l) => JSON.parse(l))).toEqual(Array(3).fill({ mode: "read-write", writeErrors: 0, errors: [] }));
    }
    for (const { path } of rounds) {
      const db = new Database(path, { readonly: true });
      expect(db.prepare("SELECT count(*) FROM responses").pluck().get()).toBe(4);
      db.close();
    }
  });

  it("lets two processes write and read one file at the same time without errors", async () => {
    const path = join(tmp(), "shared.db");
    const n = 3000;
    const startAt = String(Date.now() + 2500); // after both have booted
    const [a, b] = await Promise.all([runChild([child, "write", path, "a", String(n), startAt], { cwd }), runChild([child, "write", path, "b", String(n), startAt], { cwd })]);
    for (const r of [a, b]) {
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ missing: 0, writeErrors: 0, errors: [] });
    }
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT count(*) FROM responses").pluck().get()).toBe(n / 2 + n); // shared keys once, own keys each
    db.close();
  });

  it("keeps every committed write and passes integrity_check after a SIGKILL mid-writes", async () => {
    const path = join(tmp(), "killed.db");
    const proc = spawn(process.execPath, [await compiledFixture(child), "forever", path], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let reported = 0;
    await new Promise<void>((resolve, reject) => {
      proc.on("error", reject);
      proc.stdout.on("data", (d: Buffer) => {
        const lines = d.toString().trim().split("\n");
        reported = Number(lines.at(-1));
        if (reported > 500) {
          proc.kill("SIGKILL");
          resolve();
        }
      });
    });
    await new Promise((r) => proc.on("close", r));
    expect(proc.signalCode).toBe("SIGKILL");
    const db = new Database(path);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    const count = db.prepare("SELECT count(*) FROM responses").pluck().get() as number;
    expect(count).toBeGreaterThanOrEqual(reported); // everything the child had committed before it said so
    expect(db.prepare("SELECT count(*) FROM responses WHERE key = ?").pluck().get(`k-${reported - 1}`)).toBe(1);
    db.close();
    const reopened = SqliteCache.open(path);
    expect(reopened.get("k-0")?.response.text.startsWith("v-0")).toBe(true);
    reopened.close();
  });

  it("a corrupted file is a CACHE error at open naming the file, or a warned memory fallback", () => {
    const path = join(tmp(), "bad.db");
    writeFileSync(path, "this is not a sqlite database, just some text ".repeat(50));
    expect(() => SqliteCache.open(path)).toThrow(expect.objectContaining({ code: "CACHE", message: expect.stringContaining(path) }));

    const errors: RubricateError[] = [];
    const c = SqliteCache.open(path, { onCorrupt: "memory", onError: (e) => errors.push(e) });
    expect(c.mode).toBe("memory");
    expect(errors).toHaveLength(1);
    expect(errors[0].code).toBe("CACHE");
    c.set("k", entry("v"));
    expect(c.get("k")?.response.text).toBe("v"); // this run still reuses what it paid for
    expect(c.stats).toMatchObject({ writes: 0, writeErrors: 1 });
    c.close();
  });

  it("a write that fails with ENOSPC is counted and reported once, never thrown, and kept in memory", () => {
    const path = join(tmp(), "full.db");
    const errors: RubricateError[] = [];
    let full = false;
    const c = SqliteCache.open(path, {
      onError: (e) => errors.push(e),
      beforeWrite: () => {
        if (full) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      },
    });
    c.set("before", entry("saved"));
    full = true;
    expect(() => c.set("k1", entry("v1"))).not.toThrow();
    c.set("k2", entry("v2"));
    expect(c.stats).toMatchObject({ writes: 1, writeErrors: 2 });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: "CACHE", message: expect.stringContaining("ENOSPC") });
    expect(c.get("k1")?.response.text).toBe("v1");
    c.close();
    const again = SqliteCache.open(path);
    expect(again.get("before")?.response.text).toBe("saved");
    expect(again.get("k1")).toBeUndefined();
    again.close();
  });

  it("a read-only file serves reads and keeps new answers in memory; an unwritable folder degrades to memory", async () => {
    const dir = tmp();
    const seed = join(dir, "seed.db");
    const s = SqliteCache.open(seed);
    s.set("old", entry("old answer"));
    s.close();
    // Root ignores file modes, so the opener runs as nobody when we are root.
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

    const roFileDir = join(dir, "rofile");
    mkdirSync(roFileDir);
    copyFileSync(seed, join(roFileDir, "c.db"));
    chmodSync(join(roFileDir, "c.db"), 0o444);
    chmodSync(roFileDir, 0o777);
    chmodSync(dir, 0o755);
    const a = await runChild([child, "readonly", join(roFileDir, "c.db"), "old"], { cwd, ...asUser });
    expect(a.stderr).toBe("");
    expect(JSON.parse(a.stdout)).toMatchObject({ mode: "read-only", before: "old answer", after: "new", writes: 0, writeErrors: 1 });
    expect(JSON.parse(a.stdout).errors).toEqual([expect.stringContaining("read-only")]);

    const roDir = join(dir, "rodir");
    mkdirSync(roDir);
    copyFileSync(seed, join(roDir, "c.db"));
    chmodSync(join(roDir, "c.db"), 0o444);
    chmodSync(roDir, 0o555);
    // A read-only folder: SQLite cannot create c.db-shm, which WAL mode needs even to read; the
    // cached answers are read from a snapshot all the same, and the run says so.
    const b = await runChild([child, "readonly", join(roDir, "c.db"), "old"], { cwd, ...asUser });
    expect(b.stderr).toBe("");
    expect(JSON.parse(b.stdout)).toMatchObject({ mode: "read-only", before: "old answer", after: "new", writes: 0, writeErrors: 1 });
    expect(JSON.parse(b.stdout).errors).toEqual([expect.stringMatching(/cannot write.*-shm.*reading a snapshot/)]);
    expect(existsSync(join(roDir, "c.db-wal"))).toBe(false);
  });
});
