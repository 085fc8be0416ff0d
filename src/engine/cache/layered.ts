import type { Cache, CacheEntry } from "../types.js";
import type { CacheStats } from "./memory.js";
import { MemoryCache } from "./memory.js";

/**
 * A memory LRU in front of a slower persistent cache: lookups try memory first, a hit below is
 * promoted, writes go to both. Counters are the layered view (a hit in either layer is one hit);
 * `writes`/`writeErrors` are the lower layer's, since only a persisted write counts.
 * @example
 * const cache = new LayeredCache(new MemoryCache(10_000), SqliteCache.open(path));
 */
export class LayeredCache implements Cache {
  private readonly counts = { hits: 0, misses: 0 };

  constructor(
    readonly memory: MemoryCache,
    readonly lower: Cache,
  ) {}

  get(key: string): CacheEntry | undefined {
    let entry = this.memory.get(key);
    if (!entry) {
      entry = this.lower.get(key);
      if (entry) this.memory.set(key, entry);
    }
    if (entry) this.counts.hits++;
    else this.counts.misses++;
    return entry;
  }

  has(key: string): boolean {
    return this.memory.has(key) || this.lower.has(key);
  }

  set(key: string, entry: CacheEntry): void {
    this.memory.set(key, entry);
    this.lower.set(key, entry);
  }

  get stats(): CacheStats {
    return { ...this.counts, writes: this.lower.stats.writes, writeErrors: this.lower.stats.writeErrors };
  }

  close(): void {
    this.memory.close();
    this.lower.close();
  }
}
