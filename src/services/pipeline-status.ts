/**
 * The state of the pipeline as an operator reads it: jobs per queue and state (Redis), runs in
 * progress and how far they got (Postgres), the latest failed jobs with their reason, the alert
 * deliveries still pending, and the sites waiting for a retry. `robots-audit stats` prints it;
 * the metrics of workers and the scheduler read the same functions on each scrape.
 */
import type { Queue } from 'bullmq';
import type { PipelineStatusRepo, RunInProgress } from '../db/pipeline-status.repo.js';
import type { Queues } from '../queues/queues.js';
import { loadWaitTotals } from '../db/run-waits.js';
import type { WaitsReader } from '../db/run-waits.js';
import { msUntil } from '../policy/run-hold.js';

export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];
export type QueueDepth = { queue: string } & Record<QueueState, number>;

/** Characters of a failed job's reason shown, at most (a long server answer or list of issues is cut). */
export const FAILED_REASON_CHARS = 300;

function queuesOf(queues: Queues): Queue[] {
  return [queues.fetch, queues.site, queues.alerts, queues.runs, queues.analysis];
}

/** Jobs of each queue by state. Prioritised jobs are waiting ones (BullMQ keeps them apart). */
export async function queueDepths(queues: Queues): Promise<QueueDepth[]> {
  return Promise.all(
    queuesOf(queues).map(async (queue) => {
      const counts = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed');
      return {
        queue: queue.name,
        waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        failed: counts.failed ?? 0,
        completed: counts.completed ?? 0,
      };
    }),
  );
}

export interface RunProgress {
  runId: number;
  runKey: string;
  portfolio: string | null;
  trigger: string;
  runAt: Date;
  startedAt: Date | null;
  total: number;
  /** Sites whose night is stored. */
  done: number;
  /** Sites removed while the run went on. */
  skipped: number;
  /** Sites whose job failed for good. */
  failed: number;
  /** Sites finished (done, skipped or failed) per second since the run started; null before it started. */
  sitesPerSecond: number | null;
}

export function progressOf(run: RunInProgress, now: Date): RunProgress {
  const skipped = Object.keys(run.counts.skipped ?? {}).length;
  const failed = Object.keys(run.counts.failed ?? {}).length;
  const seconds = run.startedAt ? (now.getTime() - run.startedAt.getTime()) / 1000 : 0;
  return {
    runId: run.id,
    runKey: run.runKey,
    portfolio: run.portfolio,
    trigger: run.trigger,
    runAt: run.runAt,
    startedAt: run.startedAt,
    total: run.sitesTotal,
    done: run.sitesDone,
    skipped,
    failed,
    sitesPerSecond: seconds > 0 ? (run.sitesDone + skipped + failed) / seconds : null,
  };
}

export async function runsInProgress(repo: Pick<PipelineStatusRepo, 'runsInProgress'>, now: Date): Promise<RunProgress[]> {
  return (await repo.runsInProgress()).map((run) => progressOf(run, now));
}

/** The sites waiting for a retry as the metrics count them: holding their run, pending, and how long until the latest is due. */
export async function waitsNow(db: WaitsReader, now: Date): Promise<{ holding: number; pending: number; secondsToLatest: number }> {
  const totals = await loadWaitTotals(db);
  return {
    holding: totals.waiting - totals.pending,
    pending: totals.pending,
    secondsToLatest: totals.latestUntil === null ? 0 : Math.ceil(msUntil(totals.latestUntil, now) / 1000),
  };
}

export interface FailedJob {
  queue: string;
  id: string;
  name: string;
  failedAt: Date | null;
  attempts: number;
  reason: string;
}

/** The `limit` most recently failed jobs across every queue, newest first. */
export async function latestFailedJobs(queues: Queues, limit: number): Promise<FailedJob[]> {
  if (limit <= 0) return [];
  const perQueue = await Promise.all(
    queuesOf(queues).map(async (queue) =>
      (await queue.getFailed(0, limit - 1)).map(
        (job): FailedJob => ({
          queue: queue.name,
          id: job.id ?? '',
          name: job.name,
          failedAt: job.finishedOn ? new Date(job.finishedOn) : null,
          attempts: job.attemptsMade,
          // On one line: a reason may span several (a payload's validation issues).
          reason: (job.failedReason ?? '').replace(/\s+/g, ' ').trim().slice(0, FAILED_REASON_CHARS),
        }),
      ),
    ),
  );
  return perQueue
    .flat()
    .sort((a, b) => (b.failedAt?.getTime() ?? 0) - (a.failedAt?.getTime() ?? 0))
    .slice(0, limit);
}
