/** Redis connections for BullMQ. Workers need `maxRetriesPerRequest: null` (BullMQ requirement). */
import { Redis } from 'ioredis';

export function createRedis(url: string, role: 'worker' | 'producer' = 'worker'): Redis {
  return new Redis(url, {
    // Workers block on Redis and must wait through a Redis restart instead of failing.
    maxRetriesPerRequest: role === 'worker' ? null : 3,
    enableOfflineQueue: true,
    lazyConnect: false,
  });
}
