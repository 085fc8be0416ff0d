import type { Cache, CacheEntry } from "../types.js";

/** Cache counters, shared by every implementation. */
export interface CacheStats {
  hits: number;
  misses: number;
  writes: number;
  writeErrors: number;
  /** A shared cache's health: `degraded` while its server does not answer, with the reason and since when. */
  status?: "ok" | "degraded";
  reason?: string;
  since?: string;
}

/** Fresh zeroed counters. */
export const emptyCacheStats = (): CacheStats => ({ hits: 0, misses: 0, writes: 0, writeErrors: 0 });

/**
 * An in-process LRU bounded by entry count (a Map keeps insertion order: a hit re-inserts the
 * key at the end, eviction takes the first).
 * @example
 * const c = new MemoryCache(10_000); c.set(key, { response, createdAt: Date.now() }); c.get(key);
 */
export class MemoryCache implements Cache {
  private readonly map = new Map<string, CacheEntry>();
  readonly stats: CacheStats = emptyCacheStats();

  constructor(readonly maxEntries = 10_000) {
    if (!(maxEntries >= 1)) throw new RangeError("maxEntries must be at least 1");
  }

  get(key: string): CacheEntry | undefined {
    const entry = this.map.get(key);
    if (entry === undefined) {
      this.stats.misses++;
      return undefined;
    }
    this.map.delete(key);
    this.map.set(key, entry);
    this.stats.hits++;
    return entry;
  }

  /** True when present; does not count as a hit nor refresh recency. */
  has(key: string): boolean {
    return this.map.has(key);
  }

  set(key: string, entry: CacheEntry): void {
    this.map.delete(key);
    this.map.set(key, entry);
    this.stats.writes++;
    while (this.map.size > this.maxEntries) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
    }
  }

  /** Entries held now. */
  get size(): number {
    return this.map.size;
  }

  close(): void {
    this.map.clear();
  }
}

/** A cache that stores nothing (`--no-cache`): every lookup misses, every write is dropped. */
export class NullCache implements Cache {
  readonly stats: CacheStats = emptyCacheStats();

  get(_key: string): CacheEntry | undefined {
    this.stats.misses++;
    return undefined;
  }

  has(_key: string): boolean {
    return false;
  }

  set(_key: string, _entry: CacheEntry): void {}

  close(): void {}
}
