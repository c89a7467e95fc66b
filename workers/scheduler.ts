/**
 * The scheduler process: keeps the nightly BullMQ job scheduler (cron + time zone) and one per
 * portfolio that has a schedule of its own (kept in line with Postgres every
 * ROBOTS_AUDIT_SCHEDULE_SYNC_MS), starts the run of each firing (runs queue), and every minute re-enqueues what lost jobs left undone in
 * running runs, the pending sites of completed runs, pending alert deliveries without a live job (after a Redis restart, say)
 * and the analysis of bodies left without their portability findings:
 * deterministic job ids make that harmless. /metrics, /healthz and /readyz are served on
 * ROBOTS_AUDIT_SCHEDULER_METRICS_PORT (its own, so that a worker can run on the same host); a
 * Postgres that does not answer yet is waited for, not fatal.
 */
import type { AppConfig } from '../src/config/env.js';
import type { Logger } from '../src/log/logger.js';
import { tallyOf } from '../src/db/runs.repo.js';
import { JOBS } from '../src/queues/contracts.js';
import { syncPortfolioSchedulers } from '../src/queues/portfolio-schedules.js';
import { createRuntime } from '../src/services/runtime.js';
import { finishRunIfComplete, reconcileDeliveries, startPipelineWorkers } from '../src/services/pipeline-workers.js';
import { queueAnalysis } from '../src/services/portability-analysis.service.js';
import type { ProcessHealth } from '../src/services/process-health.js';
import { isConnectionError } from '../src/health/service-probes.js';
import { runUntilStopped } from './long-running.js';

/** The job scheduler's id: one nightly schedule per deployment (upserting replaces it). */
export const NIGHTLY_SCHEDULER_ID = 'nightly';
/** How often running runs are reconciled, milliseconds. */
export const RECONCILE_INTERVAL_MS = 60_000;

export async function runScheduler(config: AppConfig, log: Logger, options: { signal?: AbortSignal } = {}): Promise<void> {
  const endpoints = { port: config.ROBOTS_AUDIT_SCHEDULER_METRICS_PORT, portSetting: 'ROBOTS_AUDIT_SCHEDULER_METRICS_PORT' };
  await runUntilStopped(config, log, { name: 'scheduler', ...endpoints, signal: options.signal }, ({ health, stopped }) => schedule(config, log, health, stopped));
}

async function schedule(config: AppConfig, log: Logger, health: ProcessHealth, stopped: Promise<string>): Promise<void> {
  const runtime = await createRuntime(config, log, { recorder: health.recorder, outages: health.outages });
  health.attach(runtime);
  const upsertNightly = () =>
    runtime.queues.runs.upsertJobScheduler(
      NIGHTLY_SCHEDULER_ID,
      { pattern: config.ROBOTS_AUDIT_SCHEDULE, tz: config.ROBOTS_AUDIT_TIMEZONE },
      { name: JOBS.startRun, data: { portfolio: null } },
    );
  await upsertNightly();
  // Portfolio schedules: in line with Postgres now, then every ROBOTS_AUDIT_SCHEDULE_SYNC_MS.
  const syncSchedules = async () => {
    // A Redis that restarted without persistence forgot the nightly job scheduler too: made again
    // here, as the portfolios' are below, so that the next night still fires.
    if (!(await runtime.queues.runs.getJobScheduler(NIGHTLY_SCHEDULER_ID))) {
      await upsertNightly();
      log.info({ scheduler: NIGHTLY_SCHEDULER_ID }, 'nightly job scheduler made again (Redis had lost it)');
    }
    const wanted = (await runtime.repos.portfolios.scheduledPortfolios()).map((p) => ({ portfolioId: p.id, portfolio: p.name, cron: p.cron, timeZone: p.timeZone }));
    const done = await syncPortfolioSchedulers(runtime.queues.runs, wanted);
    if (done.upserted.length + done.removed.length > 0) log.info({ ...done, scheduled: wanted.length }, 'portfolio schedules synced');
  };
  await syncSchedules();
  let syncing = false;
  const syncTimer = setInterval(() => {
    if (syncing) return;
    syncing = true;
    syncSchedules()
      .catch((err: unknown) => {
        // Postgres or Redis away: the outage log has said so once; the next round catches up.
        if (!isConnectionError(err)) log.error({ err }, 'portfolio schedule sync failed');
      })
      .finally(() => (syncing = false));
  }, config.ROBOTS_AUDIT_SCHEDULE_SYNC_MS);
  const workers = startPipelineWorkers(runtime, ['runs']);
  log.info({ schedule: config.ROBOTS_AUDIT_SCHEDULE, tz: config.ROBOTS_AUDIT_TIMEZONE, metricsPort: health.port }, 'scheduler started');

  // Only a run that made no progress for a whole interval is reconciled: re-adding 100,000
  // existing job ids every minute would be harmless but wasteful.
  const lastProgress = new Map<number, string>();
  const reconcile = async () => {
    for (const run of await runtime.repos.runs.runningRuns()) {
      const progress = JSON.stringify(tallyOf(run));
      const stalled = lastProgress.get(run.id) === progress;
      lastProgress.set(run.id, progress);
      if (!stalled) continue;
      const done = await runtime.lifecycle.reconcile(run.id);
      await finishRunIfComplete(runtime, run.id);
      if (done.sites + done.failed > 0) log.info({ runId: run.id, ...done }, 'run reconciled');
    }
    // A completed run's pending sites (waiting for a retry it did not wait for): a lost job is
    // queued again, due when the retry is, so the site's night still comes (issue 26).
    for (const run of await runtime.repos.runs.completedRunsWithWaits()) {
      const done = await runtime.lifecycle.reconcile(run.id);
      await finishRunIfComplete(runtime, run.id);
      if (done.sites + done.failed > 0) log.info({ runId: run.id, ...done }, 'pending sites of a completed run reconciled');
    }
    // Deliveries outlive their runs: a pending one whose job is gone is queued again.
    const deliveries = await reconcileDeliveries(runtime);
    if (deliveries.requeued + deliveries.retried + deliveries.givenUp > 0) log.info(deliveries, 'alert deliveries reconciled');
    // Bodies a lost job, a failed one or an older release left without their portability findings
    // (issue 26): their analysis job is queued, or found waiting (one index probe when none is left).
    await queueAnalysis(runtime.db.pool, runtime.queues.analysis);
  };
  const timer = setInterval(
    () =>
      void reconcile().catch((err: unknown) => {
        // Postgres or Redis away: the outage log has said so once; the next round catches up.
        if (isConnectionError(err)) return;
        log.error({ err }, 'reconcile failed');
      }),
    RECONCILE_INTERVAL_MS,
  );
  await stopped;
  clearInterval(timer);
  clearInterval(syncTimer);
  await workers.close(config.ROBOTS_AUDIT_SHUTDOWN_GRACE_MS);
  await runtime.close();
  log.info('scheduler stopped');
}
