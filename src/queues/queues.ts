/**
 * The queues with their default job options and retention. Retention matters for idempotency:
 * a job id that still exists cannot be added again, so completed jobs are kept long enough to
 * absorb a second scheduler firing the same night; Postgres unique keys cover everything after.
 */
import { Queue } from 'bullmq';
import type { DefaultJobOptions, QueueOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { letSetUpsFinish } from './connection.js';
import { JOBS, QUEUES, jobIds } from './contracts.js';

/** Completed jobs kept for 2 days, failed ones for 14 (inspectable with any BullMQ UI). */
export const RETENTION = {
  completed: { age: 2 * 24 * 3600, count: 200_000 },
  failed: { age: 14 * 24 * 3600 },
} as const;

/** Webhook delivery: 8 tries, exponential from 2 s (2, 4, 8, ... 256 s). */
export const ALERT_DELIVERY_ATTEMPTS = 8;
/** Default base of that backoff; ROBOTS_AUDIT_ALERT_BACKOFF_MS (src/config/env.ts) overrides it. */
export const ALERT_DELIVERY_BACKOFF_MS = 2_000;

/** Infrastructure failures (Postgres down, ...) in a batch job are retried this often (5 s, 10 s, ... 21 min by default). */
export const BATCH_ATTEMPTS = 10;

/** Infrastructure failures (Postgres away) an analysis job may have before the next run's or the reconcile loop's job takes over. */
export const ANALYSIS_ATTEMPTS = 5;

/**
 * A batch job whose process died under it (its lock expired: killed, out of memory) is not run
 * again as a batch: at its first stall it fails and its sites go on one by one, each in a site
 * job of its own, so a site that kills its process never takes its batch-mates with it.
 */
export const BATCH_MAX_STALLS = 0;
/**
 * A site job gets one more process after a stall (a worker killed by a deploy, say); at its second
 * stall the site counts as failed for its run, like a site whose retries are used up.
 */
export const SITE_MAX_STALLS = 1;

export interface Queues {
  /** Batches of sites. */
  fetch: Queue;
  /** One site each. */
  site: Queue;
  alerts: Queue;
  runs: Queue;
  /** Bodies analysed after a run (portability findings). */
  analysis: Queue;
  close(): Promise<void>;
}

export interface QueueSettings {
  /** Attempts of a site job: the retry schedule's attempts plus a margin for infrastructure failures. */
  siteAttempts: number;
  /** Base delay of the delivery backoff, milliseconds (default `ALERT_DELIVERY_BACKOFF_MS`). */
  alertBackoffMs?: number;
  /** Base delay of a batch job's backoff after an infrastructure failure, milliseconds. */
  jobBackoffMs: number;
}

/** Connection states in which the queues' set-up is answered soon: it is waited for at close. */
const SETTING_UP = new Set(['ready', 'connecting', 'connect']);

export function createQueues(connection: Redis, prefix: string, settings: QueueSettings): Queues {
  const base = (defaultJobOptions: DefaultJobOptions): QueueOptions => ({
    connection,
    prefix,
    defaultJobOptions: { removeOnComplete: RETENTION.completed, removeOnFail: RETENTION.failed, ...defaultJobOptions },
  });
  const fetch = new Queue(QUEUES.fetch, base({ attempts: BATCH_ATTEMPTS, backoff: { type: 'exponential', delay: settings.jobBackoffMs } }));
  // 'custom': the worker's backoff strategy takes the delay from the retry schedule.
  const site = new Queue(QUEUES.site, base({ attempts: settings.siteAttempts, backoff: { type: 'custom' } }));
  const alerts = new Queue(
    QUEUES.alerts,
    base({ attempts: ALERT_DELIVERY_ATTEMPTS, backoff: { type: 'exponential', delay: settings.alertBackoffMs ?? ALERT_DELIVERY_BACKOFF_MS } }),
  );
  const runs = new Queue(QUEUES.runs, base({ attempts: 5, backoff: { type: 'exponential', delay: 5_000 } }));
  // Its work is kept body by body: a retry starts where the last attempt stopped.
  const analysis = new Queue(QUEUES.analysis, base({ attempts: ANALYSIS_ATTEMPTS, backoff: { type: 'exponential', delay: settings.jobBackoffMs } }));
  return {
    fetch,
    site,
    alerts,
    runs,
    analysis,
    async close() {
      const all = [fetch, site, alerts, runs, analysis];
      // A command that needed no Redis may close the queues before their set-up is answered. With
      // Redis answering, or the connection still being made (`connecting`, `connect`: its ready
      // check under way), the answers are let in first: closing then left four set-ups to fail
      // with "Connection is closed" and nobody to hear it (issue 17: the unhandled rejections of
      // nightly-idempotency.int.test.ts). With Redis away (`reconnecting`), BullMQ's own wait for
      // the shared connection is what fails, and it handles that.
      if (SETTING_UP.has(connection.status)) await letSetUpsFinish(all);
      await Promise.all(all.map((q) => q.close()));
    },
  };
}

/** Queues the delivery jobs of pending deliveries (deterministic ids: a delivery queued twice is one job). */
export async function enqueueDeliveries(alerts: Queue, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await alerts.addBulk(ids.map((deliveryId) => ({ name: JOBS.deliverAlert, data: { deliveryId }, opts: { jobId: jobIds.deliverAlert({ deliveryId }) } })));
}
