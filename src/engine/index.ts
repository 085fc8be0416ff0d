/** The judge engine: scheduler, cache, cache keys and the call layer. */
export { createEngine, type CompleteOptions, type CompleteResult, type Engine, type EngineOptions, type EngineStats } from "./engine.js";
export { Scheduler, createScheduler, type RunOptions, type SchedulerOptions } from "./scheduler.js";
export { cacheKey, canonicalJson, sanitizeBaseURL, type CacheKeyParts } from "./key.js";
export { costUsd, estimateTokens, type TokenPrice } from "./usage.js";
export { ManualClock, systemClock, type Clock } from "./clock.js";
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
