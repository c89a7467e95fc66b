/**
 * The fetch queue's processor. Per-host politeness (one request at a time to a host, across
 * every worker process), the fetch itself, retries within the run, then the diff job.
 *
 * Error mapping (house style, habit 3): a fetch that did not reach the site and has retries
 * left throws FetchRetryError, whose delay the worker's backoff strategy uses; a busy host
 * moves the job back to delayed (DelayedError, no attempt spent); anything else (Postgres down)
 * is thrown and retried with the infrastructure backoff.
 */
import { DelayedError } from 'bullmq';
import type { Job, Queue } from 'bullmq';
import type { Logger } from '../log/logger.js';
import type { HostLock } from '../queues/host-lock.js';
import { fetchSitePayload, JOBS, jobIds } from '../queues/contracts.js';
import type { FetchSiteService } from './fetch-site.service.js';
import { parsePayload } from './job-payload.js';

/** Thrown to retry a fetch within the run after the schedule's delay. */
export class FetchRetryError extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
    this.name = 'FetchRetryError';
  }
}

/** Backoff for infrastructure failures (not website behaviour): 5 s, 10 s, 20 s, ... */
export const INFRA_BACKOFF_BASE_MS = 5_000;

/** BullMQ backoff strategy: the fetch schedule's delay, or exponential for infrastructure errors. */
export function fetchBackoff(attemptsMade: number, _type?: string, err?: Error): number {
  if (err instanceof FetchRetryError) return err.delayMs;
  return INFRA_BACKOFF_BASE_MS * 2 ** Math.max(0, attemptsMade - 1);
}

export interface FetchProcessorDeps {
  service: FetchSiteService;
  hostLock: HostLock;
  diffQueue: Pick<Queue, 'add'>;
  log: Logger;
  /** How long a host lock lives if its holder dies: longer than any fetch (total timeout + margin). */
  hostLockTtlMs: number;
  /** How long a job waits before trying a busy host again. */
  hostBusyDelayMs: number;
}

export function createFetchProcessor(deps: FetchProcessorDeps) {
  return async function processFetch(job: Job, token?: string): Promise<{ snapshotId: number | null; outcome: string }> {
    const payload = parsePayload(fetchSitePayload, job.data, JOBS.fetchSite);
    const log = deps.log.child({ queue: 'fetch', job: job.id, runId: payload.runId, siteId: payload.siteId });
    const plan = await deps.service.plan(payload.runId, payload.siteId);

    if (plan.kind === 'done') {
      log.debug({ reason: plan.reason }, 'nothing to fetch');
      if (plan.reason === 'snapshot-exists') await enqueueDiff(payload);
      return { snapshotId: plan.snapshotId ?? null, outcome: plan.reason };
    }

    const holder = `${job.id}:${job.attemptsStarted}`;
    if (!(await deps.hostLock.acquire(plan.host, holder, deps.hostLockTtlMs))) {
      await job.moveToDelayed(Date.now() + deps.hostBusyDelayMs, token);
      throw new DelayedError();
    }
    let outcome;
    let fetched = plan;
    try {
      // Planned again under the lock: another job for the same (run, site) may have stored the
      // snapshot between the first plan and the lock; then the site gets no second request.
      const current = await deps.service.plan(payload.runId, payload.siteId);
      if (current.kind === 'done') {
        if (current.reason === 'snapshot-exists') await enqueueDiff(payload);
        return { snapshotId: current.snapshotId ?? null, outcome: current.reason };
      }
      fetched = current;
      outcome = await deps.service.fetchAndStore(current);
    } finally {
      await deps.hostLock.release(plan.host, holder);
    }

    const attemptLog = log.child({ origin: fetched.origin, attempt: fetched.attempt });
    if (outcome.kind === 'retry') {
      attemptLog.info({ outcome: outcome.result.outcome, status: outcome.result.status, delayMs: outcome.delayMs }, 'fetch failed, retrying');
      throw new FetchRetryError(outcome.delayMs, `${outcome.result.outcome} (${outcome.result.errorCode ?? outcome.result.status}), retry in ${outcome.delayMs} ms`);
    }
    attemptLog.info({ outcome: outcome.snapshot.outcome, policy: outcome.snapshot.policy, reason: outcome.snapshot.policyReason }, 'snapshot stored');
    await enqueueDiff(payload);
    return { snapshotId: outcome.snapshot.id, outcome: outcome.snapshot.outcome };
  };

  async function enqueueDiff(payload: { runId: number; siteId: number }): Promise<void> {
    await deps.diffQueue.add(JOBS.diffSite, payload, { jobId: jobIds.diffSite(payload) });
  }
}
