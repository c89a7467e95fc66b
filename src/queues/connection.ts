/** Redis connections for BullMQ. Workers need `maxRetriesPerRequest: null` (BullMQ requirement). */
import type { Redis } from 'ioredis';
import { redisClient } from '../health/redis-client.js';
import { isConnectionError, reasonOf } from '../health/service-probes.js';
import type { Logger } from '../log/logger.js';

export function createRedis(url: string, role: 'worker' | 'producer' = 'worker', options: { autoPipelining?: boolean } = {}): Redis {
  // `url` may name a Redis server or a Sentinel-managed one: redisClient reads it either way.
  return redisClient(url, {
    // Workers block on Redis and must wait through a Redis restart instead of failing.
    maxRetriesPerRequest: role === 'worker' ? null : 3,
    enableOfflineQueue: true,
    lazyConnect: false,
    // Commands issued in the same tick go out together (many small ones: host locks).
    enableAutoPipelining: options.autoPipelining ?? false,
  });
}

/** Where connection failures go: a service's outage log (src/health/outage-log.ts), which logs a change once. */
export interface OutageReport {
  failed(reason: string): void;
  recovered(): void;
}

/**
 * Reports a connection's outages to the outage log: its errors (ioredis emits one per failed
 * reconnect attempt) and its coming back. ioredis reconnects by itself meanwhile. Without a
 * listener ioredis would print every failed reconnect.
 */
export function reportOutages(redis: Redis, outage: OutageReport): void {
  redis.on('error', (err: unknown) => outage.failed(reasonOf(err)));
  redis.on('ready', () => outage.recovered());
}

/**
 * The `error` listener of a BullMQ Queue or Worker: a lost connection is the outage log's (one
 * line per outage, not a stack trace per queue); anything else is logged with its context.
 */
export function onQueueError(outage: OutageReport, log: Pick<Logger, 'warn'>, context: Record<string, unknown>, message: string) {
  return (err: Error): void => {
    if (isConnectionError(err)) outage.failed(reasonOf(err));
    else log.warn({ ...context, err }, message);
  };
}

/** How long closing BullMQ queues or workers waits for connections still being set up, at most. */
export const START_UP_SETTLE_MS = 5_000;

/**
 * Waits until each queue or worker has finished setting up its connection (BullMQ asks Redis its
 * version first), or START_UP_SETTLE_MS, whichever comes first. One closed during its set-up drops
 * its listeners, and the set-up then fails with nobody to hear it: an unhandled rejection, which
 * crashes the process (taskforcesh/bullmq#3546). Bounded, since Redis may be away.
 */
export async function letSetUpsFinish(starting: readonly { waitUntilReady(): Promise<unknown> }[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, START_UP_SETTLE_MS)));
  try {
    await Promise.race([Promise.allSettled(starting.map((s) => s.waitUntilReady())), bound]);
  } finally {
    clearTimeout(timer);
  }
}
