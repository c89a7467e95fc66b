/** The BullMQ isolation helpers other integration tests rely on, against the real Redis. */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { config } from '../../../src/config/env.js';
import { cleanupPrefix, uniquePrefix } from '../../helpers/test-queue.js';

const redisUrl = config().REDIS_URL;
const redis = new Redis(redisUrl);
afterAll(async () => {
  await redis.quit();
});

describe('uniquePrefix', () => {
  it('gives a different prefix each call, without ":" (BullMQ separates with it)', () => {
    const prefixes = new Set(Array.from({ length: 100 }, uniquePrefix));
    expect(prefixes.size).toBe(100);
    for (const p of prefixes) expect(p).toMatch(/^test-[0-9a-f]{12}$/);
  });
});

describe('cleanupPrefix', () => {
  it('deletes every key under the prefix and nothing else', async () => {
    const mine = uniquePrefix();
    const other = uniquePrefix();
    const keys = Array.from({ length: 2500 }, (_, i) => `${mine}:queue:${i}`);
    await redis.mset(...keys.flatMap((k) => [k, '1']), `${other}:queue:1`, '1', `${mine}x:queue:1`, '1');
    expect(await cleanupPrefix(redisUrl, mine)).toBe(2500);
    expect(await redis.exists(...keys.slice(0, 10))).toBe(0);
    expect(await redis.exists(`${other}:queue:1`, `${mine}x:queue:1`)).toBe(2);
    await redis.del(`${other}:queue:1`, `${mine}x:queue:1`);
  });

  it('treats glob characters in the prefix literally', async () => {
    await redis.set('test-a*b:k', '1');
    await redis.set('test-aXb:k', '1');
    expect(await cleanupPrefix(redisUrl, 'test-a*b')).toBe(1);
    expect(await redis.exists('test-aXb:k')).toBe(1);
    await redis.del('test-aXb:k');
  });
});
