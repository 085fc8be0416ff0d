import { createRequire } from "node:module";
import type { LRUCache } from "lru-cache";
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
 * An in-process LRU bounded by entry count (lru-cache), with the hit/miss/write counters every
 * cache keeps.
 * @example
 * const c = new MemoryCache(10_000); c.set(key, { response, createdAt: Date.now() }); c.get(key);
 */
export class MemoryCache implements Cache {
  private readonly lru: LRUCache<string, CacheEntry>;
  readonly stats: CacheStats = emptyCacheStats();

  constructor(readonly maxEntries = 10_000) {
    if (!(maxEntries >= 1)) throw new RangeError("maxEntries must be at least 1");
    // lru-cache loads with the first memory cache, not with every `import "rubricate"` (the engine's
    // `NullCache` lives in this file too).
    const { LRUCache: Lru } = createRequire(import.meta.url)("lru-cache") as typeof import("lru-cache");
    this.lru = new Lru({ max: maxEntries });
  }

  get(key: string): CacheEntry | undefined {
    const entry = this.lru.get(key);
    if (entry === undefined) this.stats.misses++;
    else this.stats.hits++;
    return entry;
  }

  /** True when present; does not count as a hit nor refresh recency. */
  has(key: string): boolean {
    return this.lru.has(key);
  }

  set(key: string, entry: CacheEntry): void {
    this.lru.set(key, entry);
    this.stats.writes++;
  }

  /** Entries held now. */
  get size(): number {
    return this.lru.size;
  }

  close(): void {
    this.lru.clear();
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
