/** Removing a BullMQ key prefix from Redis: what a throwaway run (the demo, a test) leaves behind. */
import { redisClient } from '../health/redis-client.js';

/** SCAN's hint of keys per step. */
const SCAN_COUNT = 1000;

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** Deletes every key `<prefix>:*` with SCAN (never KEYS: it blocks Redis); returns how many. */
export async function deletePrefixKeys(redisUrl: string, prefix: string): Promise<number> {
  const redis = redisClient(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    let deleted = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${escapeGlob(prefix)}:*`, 'COUNT', SCAN_COUNT);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
    return deleted;
  } finally {
    await redis.quit();
  }
}
