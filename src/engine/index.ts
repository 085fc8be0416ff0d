/** The judge engine: one cached, scheduled, retried call layer (scheduler, rate limits, cache backends). */
export { createEngine, type CompleteOptions, type CompleteResult, type Engine, type EngineOptions, type EngineStats } from "./engine.js";
export { costUsd, type TokenPrice } from "./usage.js";
export { FinishInFlight } from "./abort.js";
export {
  DEFAULT_CACHE_PATH,
  LayeredCache,
  MemoryCache,
  NullCache,
  RedisCache,
  SqliteCache,
  openCache,
  type CacheStats,
  type OpenCacheOptions,
  type RedisCacheOptions,
  type SqliteCacheMode,
  type SqliteCacheOptions,
} from "./cache/index.js";
export type { Cache, CacheClaim, CacheEntry, SchedulerLimits, SchedulerStats, SharedCache } from "./types.js";
