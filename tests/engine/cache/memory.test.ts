import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LayeredCache, MemoryCache, NullCache, SqliteCache, openCache } from "../../../src/engine/cache/index.js";
import type { CacheEntry } from "../../../src/engine/types.js";

const entry = (text: string): CacheEntry => ({ response: { text, finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 } }, createdAt: 1 });
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "rubricate-cache-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("MemoryCache", () => {
  it("evicts the least recently used entry past its bound", () => {
    const c = new MemoryCache(2);
    c.set("a", entry("a"));
    c.set("b", entry("b"));
    expect(c.get("a")?.response.text).toBe("a"); // a is now the most recent
    c.set("c", entry("c"));
    expect(c.has("b")).toBe(false);
    expect(c.has("a")).toBe(true);
    expect(c.has("c")).toBe(true);
    expect(c.size).toBe(2);
    expect(c.get("b")).toBeUndefined();
    expect(c.stats).toMatchObject({ hits: 1, misses: 1, writes: 3 });
  });

  it("NullCache stores nothing", () => {
    const c = new NullCache();
    c.set("a", entry("a"));
    expect(c.get("a")).toBeUndefined();
    expect(c.has("a")).toBe(false);
    expect(c.stats.misses).toBe(1);
  });
});

describe("LayeredCache and openCache", () => {
  it("promotes a SQLite hit into memory and writes through to the file", () => {
    const path = join(tmp(), "c.db");
    const first = openCache({ path });
    first.set("k", entry("v"));
    expect(first.stats).toMatchObject({ writes: 1, writeErrors: 0 });
    first.close();

    const mem = new MemoryCache(10);
    const layered = new LayeredCache(mem, SqliteCache.open(path));
    expect(mem.has("k")).toBe(false);
    expect(layered.get("k")?.response.text).toBe("v");
    expect(mem.has("k")).toBe(true);
    expect(layered.get("missing")).toBeUndefined();
    expect(layered.stats).toMatchObject({ hits: 1, misses: 1 });
    layered.close();
  });

  it("path null stores nothing at all; path false keeps answers in memory only", () => {
    const none = openCache({ path: null });
    none.set("k", entry("v"));
    expect(none.get("k")).toBeUndefined();
    const mem = openCache({ path: false, memoryEntries: 5 });
    mem.set("k", entry("v"));
    expect(mem.get("k")?.response.text).toBe("v");
    expect(mem).toBeInstanceOf(MemoryCache);
  });
});
