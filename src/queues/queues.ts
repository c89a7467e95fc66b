/**
 * The queues with their default job options and retention. Retention matters for idempotency:
 * a job id that still exists cannot be added again, so completed jobs are kept long enough to
 * absorb a second scheduler firing the same night; Postgres unique keys cover everything after.
 */
import { Queue } from 'bullmq';
import type { DefaultJobOptions, QueueOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUES } from './contracts.js';

/** Completed jobs kept for 2 days, failed ones for 14 (inspectable with any BullMQ UI). */
export const RETENTION = {
  completed: { age: 2 * 24 * 3600, count: 200_000 },
  failed: { age: 14 * 24 * 3600 },
} as const;

/** Webhook delivery: 8 tries, exponential from 2 s (2, 4, 8, ... 256 s). */
export const ALERT_DELIVERY_ATTEMPTS = 8;
/** Default base of that backoff; ROBOTS_AUDIT_ALERT_BACKOFF_MS (src/config/env.ts) overrides it. */
export const ALERT_DELIVERY_BACKOFF_MS = 2_000;

/** Infrastructure failures (Postgres down, ...) in a diff job are retried this often. */
export const DIFF_ATTEMPTS = 10;

export interface Queues {
  fetch: Queue;
  diff: Queue;
  alerts: Queue;
  runs: Queue;
  close(): Promise<void>;
}

export interface QueueSettings {
  /** Attempts of a fetch job: the retry schedule's attempts plus a margin for infrastructure failures. */
  fetchAttempts: number;
  /** Base delay of the delivery backoff, milliseconds (default `ALERT_DELIVERY_BACKOFF_MS`). */
  alertBackoffMs?: number;
}

export function createQueues(connection: Redis, prefix: string, settings: QueueSettings): Queues {
  const base = (defaultJobOptions: DefaultJobOptions): QueueOptions => ({
    connection,
    prefix,
    defaultJobOptions: { removeOnComplete: RETENTION.completed, removeOnFail: RETENTION.failed, ...defaultJobOptions },
  });
  // 'custom': the worker's backoff strategy takes the delay from the retry schedule.
  const fetch = new Queue(QUEUES.fetch, base({ attempts: settings.fetchAttempts, backoff: { type: 'custom' } }));
  const diff = new Queue(QUEUES.diff, base({ attempts: DIFF_ATTEMPTS, backoff: { type: 'exponential', delay: 1_000 } }));
  const alerts = new Queue(
    QUEUES.alerts,
    base({ attempts: ALERT_DELIVERY_ATTEMPTS, backoff: { type: 'exponential', delay: settings.alertBackoffMs ?? ALERT_DELIVERY_BACKOFF_MS } }),
  );
  const runs = new Queue(QUEUES.runs, base({ attempts: 5, backoff: { type: 'exponential', delay: 5_000 } }));
  return {
    fetch,
    diff,
    alerts,
    runs,
    async close() {
      await Promise.all([fetch.close(), diff.close(), alerts.close(), runs.close()]);
    },
  };
}
