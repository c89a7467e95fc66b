/**
 * The scheduler process: keeps the nightly BullMQ job scheduler (cron + time zone), starts the
 * run of each firing (runs queue), and every minute re-enqueues what lost jobs left undone in
 * running runs and pending alert deliveries without a live job (after a Redis restart, say):
 * deterministic job ids make that harmless.
 */
import type { AppConfig } from '../src/config/env.js';
import type { Logger } from '../src/log/logger.js';
import { JOBS } from '../src/queues/contracts.js';
import { createRuntime } from '../src/services/runtime.js';
import { finishRunIfComplete, reconcileDeliveries, startPipelineWorkers } from '../src/services/pipeline-workers.js';
import { untilStopped } from './shutdown.js';

/** The job scheduler's id: one nightly schedule per deployment (upserting replaces it). */
export const NIGHTLY_SCHEDULER_ID = 'nightly';
/** How often running runs are reconciled, milliseconds. */
export const RECONCILE_INTERVAL_MS = 60_000;

export async function runScheduler(config: AppConfig, log: Logger, options: { signal?: AbortSignal } = {}): Promise<void> {
  const runtime = await createRuntime(config, log);
  await runtime.queues.runs.upsertJobScheduler(
    NIGHTLY_SCHEDULER_ID,
    { pattern: config.ROBOTS_AUDIT_SCHEDULE, tz: config.ROBOTS_AUDIT_TIMEZONE },
    { name: JOBS.startRun, data: { portfolio: null } },
  );
  const workers = startPipelineWorkers(runtime, ['runs']);
  log.info({ schedule: config.ROBOTS_AUDIT_SCHEDULE, tz: config.ROBOTS_AUDIT_TIMEZONE }, 'scheduler started');

  // Only a run that made no progress for a whole interval is reconciled: re-adding 100,000
  // existing job ids every minute would be harmless but wasteful.
  const lastProgress = new Map<number, string>();
  const reconcile = async () => {
    for (const run of await runtime.repos.runs.runningRuns()) {
      const progress = JSON.stringify(await runtime.repos.changes.runProgress(run.id));
      const stalled = lastProgress.get(run.id) === progress;
      lastProgress.set(run.id, progress);
      if (!stalled) continue;
      const done = await runtime.lifecycle.reconcile(run.id);
      await finishRunIfComplete(runtime, run.id);
      if (done.fetches + done.diffs > 0) log.info({ runId: run.id, ...done }, 'run reconciled');
    }
    // Deliveries outlive their runs: a pending one whose job is gone is queued again.
    const deliveries = await reconcileDeliveries(runtime);
    if (deliveries.requeued + deliveries.retried + deliveries.givenUp > 0) log.info(deliveries, 'alert deliveries reconciled');
  };
  const timer = setInterval(() => void reconcile().catch((err) => log.error({ err }, 'reconcile failed')), RECONCILE_INTERVAL_MS);
  await untilStopped(options.signal);
  clearInterval(timer);
  await workers.close(config.ROBOTS_AUDIT_SHUTDOWN_GRACE_MS);
  await runtime.close();
  log.info('scheduler stopped');
}
