/**
 * Reading a Redis' eviction policy and persistence, for the check at start (src/health/redis-check.ts
 * decides what they mean). `CONFIG GET` first; a managed service that refuses CONFIG (renamed
 * away, or not in the user's ACL) is asked `INFO memory` and `INFO persistence`, which show the
 * policy and AOF but not the RDB save points. On a connection of its own, bounded as a probe is.
 */
import type { Redis } from 'ioredis';
import type { RedisReading, RedisReadings } from './redis-check.js';
import { reasonOf, withDeadline } from './service-probes.js';

/** The first line of a refusal (`ERR unknown command 'CONFIG'...`, `NOPERM ...`). */
function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim();
}

async function configValue(redis: Redis, name: string): Promise<string | null> {
  // [name, value], or [] for a parameter the server does not have.
  const reply = (await redis.config('GET', name)) as string[];
  return reply.length >= 2 ? reply[1]! : null;
}

async function byConfig(redis: Redis): Promise<RedisReadings> {
  const [policy, appendOnly, save] = await Promise.all(['maxmemory-policy', 'appendonly', 'save'].map((name) => configValue(redis, name)));
  return { via: 'CONFIG GET', evictionPolicy: policy ?? null, appendOnly: appendOnly === null || appendOnly === undefined ? null : appendOnly === 'yes', savePoints: save ?? null };
}

/** `INFO` fields as a map (`maxmemory_policy:noeviction`). */
function infoFields(text: string): Map<string, string> {
  return new Map(text.split(/\r?\n/).flatMap((line) => (line.includes(':') ? [[line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as const] : [])));
}

async function byInfo(redis: Redis): Promise<RedisReadings> {
  const fields = infoFields(`${await redis.info('memory')}\n${await redis.info('persistence')}`);
  const aof = fields.get('aof_enabled');
  return { via: 'INFO', evictionPolicy: fields.get('maxmemory_policy') ?? null, appendOnly: aof === undefined ? null : aof === '1', savePoints: null };
}

/** What the Redis of `url` says of its settings, within about `timeoutMs` per step. */
export async function readRedisSettings(url: string, timeoutMs: number): Promise<RedisReading> {
  const { oneShotRedisClient } = await import('./redis-client.js');
  const { redis, lastError } = oneShotRedisClient(url, timeoutMs);
  try {
    try {
      await withDeadline(redis.connect(), timeoutMs);
    } catch (err) {
      return { kind: 'unreachable', reason: reasonOf(lastError() ?? err, timeoutMs) };
    }
    try {
      return { kind: 'read', readings: await byConfig(redis) };
    } catch (configError) {
      try {
        return { kind: 'read', readings: await byInfo(redis) };
      } catch (infoError) {
        return { kind: 'unreadable', reason: `CONFIG GET: ${firstLine(configError)}; INFO: ${firstLine(infoError)}` };
      }
    }
  } finally {
    redis.disconnect();
  }
}
