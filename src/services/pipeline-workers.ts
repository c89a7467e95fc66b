/**
 * The BullMQ workers of the pipeline: fetch, diff and alerts (and runs, for the scheduler),
 * each a thin shell around a service. `close(graceMs)` lets in-flight jobs finish until the
 * deadline, then closes forcibly: a job cut off that way is stalled and another worker picks it
 * up again, which the services make harmless (idempotent writes).
 */
import { Worker } from 'bullmq';
import type { Job } from 'bullmq';
import { deliverAlertPayload, diffSitePayload, JOBS, jobIds, QUEUES, startRunPayload } from '../queues/contracts.js';
import { createRedis } from '../queues/connection.js';
import { ALERT_DELIVERY_ATTEMPTS } from '../queues/queues.js';
import { pendingDeliveriesOfRun } from '../db/changes.repo.js';
import { createFetchProcessor, fetchBackoff } from './fetch-site.processor.js';
import { parsePayload } from './job-payload.js';
import type { Runtime } from './runtime.js';
import type { StartRunInput } from './run-lifecycle.service.js';

export type PipelineQueue = 'fetch' | 'diff' | 'alerts' | 'runs';

export interface PipelineWorkers {
  workers: Worker[];
  /** `drained`: every in-flight job ended in time; `forced`: the deadline cut some off. */
  close(graceMs: number): Promise<'drained' | 'forced'>;
}

/** Queues delivery jobs for pending deliveries (deterministic ids: no duplicates). */
export async function enqueueDeliveries(rt: Runtime, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await rt.queues.alerts.addBulk(ids.map((deliveryId) => ({ name: JOBS.deliverAlert, data: { deliveryId }, opts: { jobId: jobIds.deliverAlert({ deliveryId }) } })));
}

/** Pending deliveries that one reconcileDeliveries call looks at, at most (oldest first). */
export const RECONCILE_DELIVERIES_BATCH = 1_000;

export interface DeliveriesReconciled {
  /** Pending deliveries whose job was gone (lost with Redis' state): queued again. */
  requeued: number;
  /** Pending deliveries whose job had failed without the row being told (a worker died in between): retried. */
  retried: number;
  /** Pending deliveries whose retries were all used up: marked failed. */
  givenUp: number;
}

/**
 * Makes sure every pending delivery has a live job. Redis holds the jobs only: after a restart
 * without persistence, or a worker killed between a job's end and the row's update, a pending
 * row would otherwise wait forever (runs that completed are never reconciled again). Jobs that
 * are waiting, delayed or active are left alone; deterministic job ids keep it free of doubles.
 */
export async function reconcileDeliveries(rt: Runtime): Promise<DeliveriesReconciled> {
  const done: DeliveriesReconciled = { requeued: 0, retried: 0, givenUp: 0 };
  for (const delivery of await rt.repos.alerts.pendingDeliveries(RECONCILE_DELIVERIES_BATCH)) {
    if (delivery.attempts >= ALERT_DELIVERY_ATTEMPTS) {
      await rt.repos.alerts.markFailed(delivery.id, `gave up after ${delivery.attempts} attempts`);
      done.givenUp += 1;
      continue;
    }
    const job = await rt.queues.alerts.getJob(jobIds.deliverAlert({ deliveryId: delivery.id }));
    const state = job ? await job.getState() : 'missing';
    if (state === 'failed') {
      await job!.retry('failed');
      done.retried += 1;
    } else if (state === 'missing' || state === 'completed' || state === 'unknown') {
      // A completed job with a pending row cannot normally be (the row is updated first); its id is freed so that it can run again.
      if (job && state === 'completed') await job.remove();
      await enqueueDeliveries(rt, [delivery.id]);
      done.requeued += 1;
    }
  }
  return done;
}

/**
 * Ends the run if this was its last site, then queues every pending delivery of the run (its
 * digests included). Queued whenever the run is complete, not only by the call that completed
 * it: a job that died after completing the run is retried and must still queue them; delivery
 * rows and job ids are deterministic, so doing it again adds nothing.
 */
export async function finishRunIfComplete(rt: Runtime, runId: number): Promise<void> {
  const finished = await rt.lifecycle.finishIfComplete(runId);
  if (finished) rt.log.info({ runId, counts: finished.counts }, 'run completed');
  const run = finished ?? (await rt.repos.runs.getRun(runId));
  if (run?.status !== 'completed') return;
  await enqueueDeliveries(rt, await pendingDeliveriesOfRun(rt.db.db, runId));
}

/** A runs-queue job: a firing of the nightly job scheduler. Its run key is the night's date. */
export function runInputOfSchedulerJob(job: Pick<Job, 'id' | 'timestamp' | 'data'>, timeZone: string): StartRunInput {
  const payload = parsePayload(startRunPayload, job.data, JOBS.startRun);
  // Scheduler job ids end with the firing time in ms; the time is the run's clock.
  const millis = Number(/:(\d+)$/.exec(job.id ?? '')?.[1] ?? job.timestamp);
  const runAt = new Date(millis);
  const day = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(runAt);
  const scope = payload.portfolio ? `-${payload.portfolio}` : '';
  return { runKey: `nightly-${day}${scope}`, trigger: 'scheduled', runAt, portfolio: payload.portfolio };
}

export function startPipelineWorkers(rt: Runtime, which: readonly PipelineQueue[] = ['fetch', 'diff', 'alerts']): PipelineWorkers {
  const { config, queues } = rt;
  const prefix = config.ROBOTS_AUDIT_QUEUE_PREFIX;
  // Each worker blocks on its own connection (BullMQ duplicates it); one shared base is enough.
  const connection = createRedis(config.REDIS_URL, 'worker');
  const workers: Worker[] = [];

  if (which.includes('fetch')) {
    const processFetch = createFetchProcessor({
      service: rt.fetchSite,
      hostLock: rt.hostLock,
      diffQueue: queues.diff,
      log: rt.log,
      hostLockTtlMs: config.ROBOTS_AUDIT_TOTAL_TIMEOUT_MS + 5_000,
      hostBusyDelayMs: config.ROBOTS_AUDIT_HOST_BUSY_DELAY_MS,
    });
    const fetchWorker = new Worker(
      QUEUES.fetch,
      async (job, token) => {
        // The fetch of a removed site is skipped, and counted, so the run can still end.
        const result = await processFetch(job, token);
        if (result.outcome === 'site-removed') {
          await rt.lifecycle.markSiteSkipped(job.data.runId, job.data.siteId);
          await finishRunIfComplete(rt, job.data.runId);
        }
        return result;
      },
      {
        connection,
        prefix,
        concurrency: config.ROBOTS_AUDIT_FETCH_CONCURRENCY,
        ...(config.ROBOTS_AUDIT_FETCH_RATE_PER_SECOND > 0 ? { limiter: { max: config.ROBOTS_AUDIT_FETCH_RATE_PER_SECOND, duration: 1_000 } } : {}),
        settings: { backoffStrategy: fetchBackoff },
      },
    );
    workers.push(fetchWorker);
  }

  if (which.includes('diff')) {
    workers.push(
      new Worker(
        QUEUES.diff,
        async (job) => {
          const { runId, siteId } = parsePayload(diffSitePayload, job.data, JOBS.diffSite);
          const result = await rt.diffSite.diffSite(runId, siteId);
          // Also after 'already-diffed': a crash between the commit and these steps is repaired here.
          await enqueueDeliveries(rt, await rt.pendingDeliveries(runId, siteId));
          await finishRunIfComplete(rt, runId);
          return result;
        },
        { connection, prefix, concurrency: config.ROBOTS_AUDIT_DIFF_CONCURRENCY },
      ),
    );
  }

  if (which.includes('alerts')) {
    const alertsWorker = new Worker(
      QUEUES.alerts,
      async (job) => {
        const { deliveryId } = parsePayload(deliverAlertPayload, job.data, JOBS.deliverAlert);
        return rt.delivery.deliver(deliveryId);
      },
      { connection, prefix, concurrency: config.ROBOTS_AUDIT_ALERT_CONCURRENCY },
    );
    // Retries used up: the delivery is given up and stays visible as failed.
    alertsWorker.on('failed', (job, err) => {
      if (!job || job.attemptsMade < (job.opts.attempts ?? 1)) return;
      const parsed = deliverAlertPayload.safeParse(job.data);
      if (parsed.success) void rt.repos.alerts.markFailed(parsed.data.deliveryId, err.message).catch(() => {});
    });
    workers.push(alertsWorker);
  }

  if (which.includes('runs')) {
    workers.push(
      new Worker(
        QUEUES.runs,
        async (job) => {
          const input = runInputOfSchedulerJob(job, config.ROBOTS_AUDIT_TIMEZONE);
          const { run, created, enqueued } = await rt.lifecycle.startRun(input);
          rt.log.info({ runId: run.id, runKey: run.runKey, created, enqueued }, 'nightly run started');
          return { runId: run.id, created, enqueued };
        },
        { connection, prefix, concurrency: 1 },
      ),
    );
  }

  for (const w of workers) {
    // A worker's own errors (Redis gone, ...) are logged; BullMQ reconnects by itself.
    w.on('error', (err) => rt.log.error({ queue: w.name, err }, 'worker error'));
  }

  return {
    workers,
    async close(graceMs) {
      // pause() stops taking jobs and waits for the ones in flight; close() only comes after it.
      // Not close() first: once a graceful close() has begun, BullMQ's close(true) returns that
      // same pending close, so the deadline could never cut a slow fetch short.
      const drained = Promise.all(workers.map((w) => w.pause()));
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'forced'>((resolve) => (timer = setTimeout(() => resolve('forced'), graceMs)));
      // A pause cut short by the forced close below may reject later: nothing waits for it then.
      const outcome = await Promise.race([drained.then(() => 'drained' as const, () => 'drained' as const), deadline]);
      clearTimeout(timer);
      if (outcome === 'forced') {
        rt.log.warn({ graceMs }, 'shutdown deadline reached: abandoning in-flight jobs (another worker retries them once their lock expires)');
      }
      await Promise.all(workers.map((w) => w.close(outcome === 'forced')));
      connection.disconnect();
      return outcome;
    },
  };
}

