/**
 * A Redis connection for REDIS_URL, whatever its form (src/config/redis-options.ts): every client
 * of the product is made here, so a Sentinel URL reaches the queues, the workers, the host locks,
 * the probes and the Redis check alike. The caller's options say how the connection behaves
 * (retries, timeouts); the URL says where it goes.
 */
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { redisTargetOf, sentinelConnectionOptions } from '../config/redis-options.js';

export function redisClient(url: string, options: RedisOptions): Redis {
  const target = redisTargetOf(url);
  if (target.kind === 'server') return new Redis(target.url, options);
  return new Redis({ ...sentinelConnectionOptions(target.sentinel), ...options });
}

/**
 * A client for one question asked once (the probe, the Redis check at start): no offline queue,
 * no retries, one round over the Sentinels, each step within `timeoutMs`. ioredis rejects
 * connect() with "Connection is closed." while the reason comes as an error event: `lastError`
 * keeps it, to be named instead.
 */
export function oneShotRedisClient(url: string, timeoutMs: number): { redis: Redis; lastError(): unknown } {
  let lastError: unknown = null;
  const redis = redisClient(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    sentinelRetryStrategy: () => null,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
  });
  redis.on('error', (err: unknown) => (lastError = err));
  return { redis, lastError: () => lastError };
}
