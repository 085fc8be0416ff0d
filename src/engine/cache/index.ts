import type { Cache } from "../types.js";
import { LayeredCache } from "./layered.js";
import { MemoryCache, NullCache } from "./memory.js";
import { DEFAULT_CACHE_PATH, SqliteCache, type SqliteCacheOptions } from "./sqlite.js";
import { RedisCache, isRedisUrl } from "./redis.js";

export { LayeredCache } from "./layered.js";
export { MemoryCache, NullCache, emptyCacheStats, type CacheStats } from "./memory.js";
export { DEFAULT_CACHE_PATH, SqliteCache, type SqliteCacheMode, type SqliteCacheOptions } from "./sqlite.js";
export { RedisCache, isRedisUrl, type RedisCacheOptions } from "./redis.js";

/** Options of `openCache`. */
export interface OpenCacheOptions extends SqliteCacheOptions {
  /**
   * The SQLite file (default `.rubricate/cache.db`); `false`: memory only (nothing survives the
   * process); `null`: no cache at all (`--no-cache`: nothing stored, every call paid);
   * `redis://host:port/db`: a cache shared by every process using that database (`RedisCache`).
   */
  path?: string | false | null;
  /** Entries of the memory LRU (default 10,000). */
  memoryEntries?: number;
}

/**
 * Opens the cache a run uses: a memory LRU over SQLite by default.
 * @example
 * const cache = openCache({ path: opts.noCache ? null : opts.cache, onError: (e) => log.warn(e.message) });
 */
export function openCache(options: OpenCacheOptions = {}): Cache {
  const { path = DEFAULT_CACHE_PATH, memoryEntries = 10_000, ...sqlite } = options;
  if (path === null) return new NullCache();
  const memory = new MemoryCache(memoryEntries);
  if (path === false) return memory;
  if (isRedisUrl(path)) return RedisCache.open(path, { memoryEntries, onError: sqlite.onError });
  return new LayeredCache(memory, SqliteCache.open(path, sqlite));
}
