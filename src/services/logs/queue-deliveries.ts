/**
 * Queues the alert deliveries a log import created, so that the alerts worker sends them now. The
 * import does not need Redis for anything else: when Redis does not answer within a few seconds,
 * the deliveries stay pending in Postgres and the scheduler's reconcile loop queues them (within
 * a minute of it running); the caller says so in one line.
 */
import type { AppConfig } from '../../config/env.js';
import { reasonOf } from '../../health/service-probes.js';
import { createRedis } from '../../queues/connection.js';
import { createQueues, enqueueDeliveries } from '../../queues/queues.js';

/** How long the import waits for Redis to take the jobs. */
export const QUEUE_DELIVERIES_TIMEOUT_MS = 5_000;

/** Null when queued, else why not. */
export async function queueDeliveries(config: AppConfig, deliveryIds: readonly number[], timeoutMs = QUEUE_DELIVERIES_TIMEOUT_MS): Promise<string | null> {
  if (deliveryIds.length === 0) return null;
  const redis = createRedis(config.REDIS_URL, 'producer');
  let lastError: unknown = null;
  redis.on('error', (err: unknown) => (lastError = err));
  const queues = createQueues(redis, config.ROBOTS_AUDIT_QUEUE_PREFIX, { siteAttempts: 1, alertBackoffMs: config.ROBOTS_AUDIT_ALERT_BACKOFF_MS, jobBackoffMs: config.ROBOTS_AUDIT_JOB_BACKOFF_MS });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      enqueueDeliveries(queues.alerts, deliveryIds),
      new Promise((_, reject) => (timer = setTimeout(() => reject(lastError ?? new Error(`no answer within ${timeoutMs} ms`)), timeoutMs))),
    ]);
    return null;
  } catch (err) {
    return reasonOf(err);
  } finally {
    clearTimeout(timer);
    redis.disconnect();
    await queues.close().catch(() => undefined);
  }
}
