/**
 * The BullMQ workers of the pipeline: batches of sites (`fetch`), single sites (`site`), alert
 * deliveries (`alerts`), and runs (for the scheduler), each a thin shell around a service.
 * `close(graceMs)` lets in-flight jobs finish until the deadline, then closes forcibly: a job cut
 * off that way is stalled and another worker picks it up again, which the services make
 * harmless (idempotent writes).
 */
import os from 'node:os';
import { DelayedError, Worker } from 'bullmq';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { analysePortabilityPayload, deliverAlertPayload, fetchSitePayload, fetchSitesPayload, JOBS, jobIds, QUEUES, startRunPayload } from '../queues/contracts.js';
import { createRedis, letSetUpsFinish, onQueueError, reportOutages } from '../queues/connection.js';
import { ALERT_DELIVERY_ATTEMPTS, BATCH_MAX_STALLS, SITE_MAX_STALLS, enqueueDeliveries } from '../queues/queues.js';
import { pendingDeliveriesOfRun } from '../db/changes.repo.js';
import { createExclusiveGate } from './exclusive-gate.js';
import type { ExclusiveGate, GateExit } from './exclusive-gate.js';
import { FetchRetryError } from './night-runner.js';
import { parsePayload } from './job-payload.js';
import { ANALYSIS_JOB_MS, queueAnalysis } from './portability-analysis.service.js';
import type { Runtime } from './runtime.js';
import type { StartRunInput } from './run-lifecycle.service.js';

export type PipelineQueue = 'fetch' | 'site' | 'alerts' | 'runs' | 'analysis';

/** The queues a worker process serves by default. */
export const WORKER_QUEUES: readonly PipelineQueue[] = ['fetch', 'site', 'alerts', 'analysis'];

export interface PipelineWorkers {
  workers: Worker[];
  /** `drained`: every in-flight job ended in time; `forced`: the deadline cut some off. */
  close(graceMs: number): Promise<'drained' | 'forced'>;
}

/**
 * BullMQ backoff of site jobs: the fetch schedule's delay, or exponential from
 * `baseMs` for infrastructure errors (ROBOTS_AUDIT_JOB_BACKOFF_MS).
 */
export function siteBackoff(baseMs: number) {
  return (attemptsMade: number, _type?: string, err?: Error): number => {
    if (err instanceof FetchRetryError) return err.delayMs;
    return baseMs * 2 ** Math.max(0, attemptsMade - 1);
  };
}

/** A failure that ends the job: its attempts are used up, or it said not to retry (UnrecoverableError). */
export function isFinalFailure(job: Pick<Job, 'attemptsMade' | 'opts'>, err: Error): boolean {
  return job.attemptsMade >= (job.opts.attempts ?? 1) || err.name === 'UnrecoverableError';
}

/**
 * How long a once-stalled site job waits in the delayed set when it comes to a process that is
 * already running (or draining for) another one: then another process can take it, or this one
 * once it is free again. Handing it back counts no attempt and no stall.
 */
export const ALONE_HAND_BACK_DELAY_MS = 1_000;

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
      await enqueueDeliveries(rt.queues.alerts, [delivery.id]);
      done.requeued += 1;
    }
  }
  return done;
}

/**
 * Ends the run if every site is accounted for, then queues every pending delivery of the run (its
 * digests included). Queued whenever the run is complete, not only by the call that completed
 * it: a job that died after completing the run is retried and must still queue them; delivery
 * rows and job ids are deterministic, so doing it again adds nothing.
 */
export async function finishRunIfComplete(rt: Runtime, runId: number): Promise<void> {
  const finished = await rt.lifecycle.finishIfComplete(runId);
  if (finished) rt.log.info({ runId, counts: finished.counts }, 'run completed');
  const run = finished ?? (await rt.repos.runs.getRunProgress(runId));
  if (run?.status !== 'completed') return;
  await enqueueDeliveries(rt.queues.alerts, await pendingDeliveriesOfRun(rt.db.db, runId));
  // The run's new bodies are analysed now, off the nights' path (issue 26).
  await queueAnalysis(rt.db.pool, rt.queues.analysis);
}

/**
 * A runs-queue job: a firing of a job scheduler. The nightly one's run key is the night's date
 * (`nightly-YYYY-MM-DD`); a portfolio schedule's is the firing time
 * (`scheduled-<portfolio>-<ISO time>`), so that a retried firing finds its run and the next
 * firing, minutes later, starts its own.
 */
export function runInputOfSchedulerJob(job: Pick<Job, 'id' | 'timestamp' | 'data'>, timeZone: string): StartRunInput {
  const payload = parsePayload(startRunPayload, job.data, JOBS.startRun);
  // Scheduler job ids end with the firing time in ms; the time is the run's clock.
  const millis = Number(/:(\d+)$/.exec(job.id ?? '')?.[1] ?? job.timestamp);
  const runAt = new Date(millis);
  if (payload.runPer === 'firing' && payload.portfolio !== null) {
    return { runKey: `scheduled-${payload.portfolio}-${runAt.toISOString()}`, trigger: 'scheduled', runAt, portfolio: payload.portfolio };
  }
  const day = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(runAt);
  const scope = payload.portfolio ? `-${payload.portfolio}` : '';
  return { runKey: `nightly-${day}${scope}`, trigger: 'scheduled', runAt, portfolio: payload.portfolio };
}

export function startPipelineWorkers(rt: Runtime, which: readonly PipelineQueue[] = WORKER_QUEUES): PipelineWorkers {
  const { config } = rt;
  // Each worker blocks on its own connection (BullMQ duplicates it); one shared base is enough.
  const connection = createRedis(config.REDIS_URL, 'worker');
  reportOutages(connection, rt.outages.redis);
  // A killed worker's jobs are found stalled and handed to another worker (at-least-once; the
  // services are idempotent). Each job records the process that ran it (`processedBy`).
  const lock = { lockDuration: config.ROBOTS_AUDIT_JOB_LOCK_MS, stalledInterval: config.ROBOTS_AUDIT_JOB_LOCK_MS, name: `${os.hostname()}:${process.pid}` };
  const base: WorkerBase = { connection, prefix: config.ROBOTS_AUDIT_QUEUE_PREFIX, lock };
  // Batches and site jobs pass one gate: a site job that stalled before runs alone in the process
  // (exclusive-gate.ts). Meanwhile the site worker takes no new job, as it could start none.
  let siteWorker: Worker | undefined;
  const nightGate = createExclusiveGate({
    onExclusive: (claimed) => {
      if (siteWorker) siteWorker.concurrency = claimed ? 1 : config.ROBOTS_AUDIT_SITE_CONCURRENCY;
    },
  });
  const workers: Worker[] = [];
  if (which.includes('fetch')) workers.push(startBatchWorker(rt, base, nightGate));
  if (which.includes('site')) workers.push((siteWorker = startSiteWorker(rt, base, nightGate)));
  if (which.includes('alerts')) workers.push(startAlertsWorker(rt, base));
  if (which.includes('analysis')) workers.push(startAnalysisWorker(rt, base));
  if (which.includes('runs')) workers.push(startRunsWorker(rt, base));
  for (const w of workers) watchWorker(rt, w);
  return { workers, close: (graceMs) => closeWorkers(rt, workers, connection, graceMs) };
}

/** What every worker of the process is made with. */
interface WorkerBase {
  connection: Redis;
  prefix: string;
  /** Job locks, stall checks, and the process's name. */
  lock: { lockDuration: number; stalledInterval: number; name: string };
}

/** Batches of sites (`fetch`): a batch job's nights. */
function startBatchWorker(rt: Runtime, { connection, prefix, lock }: WorkerBase, gate: ExclusiveGate): Worker {
  const { config } = rt;
  const batchWorker = new Worker(
    QUEUES.fetch,
    async (job) => {
      const { runId, siteIds } = parsePayload(fetchSitesPayload, job.data, JOBS.fetchSites);
      // A batch never runs again after a stall (BATCH_MAX_STALLS): it is always a shared entry.
      const exit = await gate.shared();
      try {
        const summary = await rt.nights.runBatch(runId, siteIds, {
          deadlineMs: config.ROBOTS_AUDIT_BATCH_DEADLINE_MS,
          holder: `${job.id}:${job.attemptsStarted}`,
        });
        rt.log.debug({ queue: 'fetch', job: job.id, runId, ...summary }, 'batch done');
        if (summary.skipped > 0) await finishRunIfComplete(rt, runId);
        return summary;
      } finally {
        exit();
      }
    },
    { connection, prefix, concurrency: config.ROBOTS_AUDIT_BATCH_CONCURRENCY, ...lock, maxStalledCount: BATCH_MAX_STALLS },
  );
  // Retries used up (Postgres away for long, say), or its process died under it (a stall fails a
  // batch at once, BATCH_MAX_STALLS): each of its sites goes on in a site job of its own, which
  // stores it, finds it stored, or fails and is counted apart; the run still ends.
  batchWorker.on('failed', (job, err) => {
    if (!job || !isFinalFailure(job, err)) return;
    const parsed = fetchSitesPayload.safeParse(job.data);
    if (!parsed.success) return;
    const { runId, siteIds } = parsed.data;
    rt.log.error({ queue: 'fetch', job: job.id, runId, sites: siteIds.length, err }, 'batch failed for good; its sites go on one by one');
    void rt.queues.site
      .addBulk(siteIds.map((siteId) => ({ name: JOBS.fetchSite, data: { runId, siteId }, opts: { jobId: jobIds.fetchSite({ runId, siteId }) } })))
      .catch((e: unknown) => rt.log.warn({ runId, err: e }, 'could not hand the sites of a failed batch over yet (reconcile will)'));
  });
  return batchWorker;
}

/** Single sites (`site`): retries, hand-overs and re-queued sites. */
function startSiteWorker(rt: Runtime, { connection, prefix, lock }: WorkerBase, gate: ExclusiveGate): Worker {
  const { config } = rt;
  const aloneExits = new Map<string, GateExit>();
  const siteWorker = new Worker(
    QUEUES.site,
    async (job, token) => {
      const { runId, siteId } = parsePayload(fetchSitePayload, job.data, JOBS.fetchSite);
      const entry = await passNightGate(rt, gate, job, token);
      try {
        const outcome = await rt.nights.runSite(runId, siteId, `${job.id}:${job.attemptsStarted}`);
        if (outcome.kind === 'skipped') await finishRunIfComplete(rt, runId);
        return outcome;
      } finally {
        if (entry.alone) leaveOnceRecorded(aloneExits, job.id!, entry.exit, lock.lockDuration);
        else entry.exit();
      }
    },
    {
      connection,
      prefix,
      concurrency: config.ROBOTS_AUDIT_SITE_CONCURRENCY,
      ...lock,
      maxStalledCount: SITE_MAX_STALLS,
      settings: { backoffStrategy: siteBackoff(config.ROBOTS_AUDIT_JOB_BACKOFF_MS) },
    },
  );
  // The job's end is recorded: a job that ran alone lets the others in.
  const recorded = (job: Job | undefined) => {
    if (job?.id === undefined) return;
    const exit = aloneExits.get(job.id);
    aloneExits.delete(job.id);
    exit?.();
  };
  siteWorker.on('completed', recorded);
  siteWorker.on('failed', recorded);
  // Retries used up, or stalled past SITE_MAX_STALLS (its night kills the process that runs it):
  // the site counts as failed for its run, like one whose retries are used up, and the run can
  // end without it.
  siteWorker.on('failed', (job, err) => {
    if (!job || !isFinalFailure(job, err)) return;
    const parsed = fetchSitePayload.safeParse(job.data);
    if (!parsed.success) return;
    const { runId, siteId } = parsed.data;
    rt.log.error({ queue: 'site', job: job.id, runId, siteId, err }, 'site failed for good; its night is recorded as night_failed');
    // Its night is recorded as failed (listed, alerted, counted done); if even that cannot be
    // stored, the site is counted failed so that the run still ends.
    void rt.nights
      .storeFailedNight(runId, siteId, err.message)
      .catch((e: unknown) => {
        rt.log.error({ queue: 'site', runId, siteId, err: e }, 'could not record the failed night; counting the site as failed');
        return false;
      })
      .then((recorded) => (recorded ? undefined : rt.lifecycle.markSiteFailed(runId, siteId, err.message)))
      .then(() => finishRunIfComplete(rt, runId))
      // Postgres away too: the reconcile loop finds the failed job and counts it later.
      .catch((e: unknown) => rt.log.warn({ runId, siteId, err: e }, 'could not count a failed site yet'));
  });
  return siteWorker;
}

/**
 * A site job that stalled before runs alone in its process: its process died under it, and the
 * job that killed it may have been itself or a process-mate. Alone, it dies a second time (and
 * fails for good, SITE_MAX_STALLS) only if it is the killer; an ordinary job passes with the
 * others. The job holds its lock while it waits at the gate: BullMQ renews the locks of every job
 * whose processor has not returned yet, so the wait is never taken for a stall. A once-stalled
 * job that finds another one already waiting or running here is handed back to the queue
 * instead, since holding it would put it in the process beside a possible killer.
 */
async function passNightGate(rt: Runtime, gate: ExclusiveGate, job: Job, token: string | undefined): Promise<{ exit: GateExit; alone: boolean }> {
  if (job.stalledCounter === 0) return { exit: await gate.shared(), alone: false };
  const alone = gate.exclusive();
  if (alone === null) {
    rt.log.debug({ queue: 'site', job: job.id, stalls: job.stalledCounter }, 'site job stalled before, and another runs alone here: handed back');
    await job.moveToDelayed(Date.now() + ALONE_HAND_BACK_DELAY_MS, token);
    throw new DelayedError();
  }
  rt.log.info({ queue: 'site', job: job.id, stalls: job.stalledCounter, waitsFor: gate.state().shared }, 'site job stalled before: it runs alone in its process');
  return { exit: await alone, alone: true };
}

/**
 * A job that ran alone leaves the gate once BullMQ has recorded its end (the worker's `completed`
 * or `failed` event), not when its processor returns: until then it is still the process's, and
 * would die with a job let in early: a second stall, and a failure, it did not earn. At the latest after
 * `lockMs`, once its lock would have run out anyway (a closing worker records no end).
 */
function leaveOnceRecorded(exits: Map<string, GateExit>, jobId: string, exit: GateExit, lockMs: number): void {
  exits.set(jobId, exit);
  setTimeout(() => {
    if (exits.get(jobId) === exit) exits.delete(jobId);
    exit();
  }, lockMs).unref();
}

/** Alert deliveries (`alerts`). */
function startAlertsWorker(rt: Runtime, { connection, prefix, lock }: WorkerBase): Worker {
  const alertsWorker = new Worker(
    QUEUES.alerts,
    async (job, token) => {
      const { deliveryId } = parsePayload(deliverAlertPayload, job.data, JOBS.deliverAlert);
      // The job's lock, renewed just before the message goes out: refused when another worker
      // took the delivery over while this one was paused or away from Redis (a fence).
      const stillOurs = async () => token !== undefined && (await job.extendLock(token, lock.lockDuration)) === 1;
      const result = await rt.delivery.deliver(deliveryId, { stillOurs });
      rt.recorder.deliveryEnded(DELIVERY_RESULT_METRIC[result]);
      return result;
    },
    { connection, prefix, concurrency: rt.config.ROBOTS_AUDIT_ALERT_CONCURRENCY, ...lock },
  );
  // Retries used up: the delivery is given up and stays visible as failed.
  alertsWorker.on('failed', (job, err) => {
    if (job) rt.recorder.deliveryEnded(isFinalFailure(job, err) ? 'failed' : 'retried');
    if (!job || job.attemptsMade < (job.opts.attempts ?? 1)) return;
    const parsed = deliverAlertPayload.safeParse(job.data);
    if (parsed.success) void rt.repos.alerts.markFailed(parsed.data.deliveryId, err.message).catch(() => {});
  });
  return alertsWorker;
}

/**
 * Bodies' portability findings after a run (`analysis`): one job at a time per process, in a
 * thread of its own (rt.analysis), each job ANALYSIS_JOB_MS at most before it hands over to the next.
 */
function startAnalysisWorker(rt: Runtime, { connection, prefix, lock }: WorkerBase): Worker {
  const analysisWorker: Worker = new Worker(
    QUEUES.analysis,
    async (job) => {
      parsePayload(analysePortabilityPayload, job.data, JOBS.analysePortability);
      const done = await rt.analysis.analysePending(ANALYSIS_JOB_MS, () => analysisWorker.isPaused() || analysisWorker.closing !== undefined);
      rt.log.info({ queue: 'analysis', job: job.id, ...done }, 'bodies analysed');
      if (done.more) await queueAnalysis(rt.db.pool, rt.queues.analysis);
      return done;
    },
    { connection, prefix, concurrency: 1, ...lock },
  );
  return analysisWorker;
}

/** Runs (`runs`): the firings of the job schedulers. */
function startRunsWorker(rt: Runtime, { connection, prefix }: WorkerBase): Worker {
  return new Worker(
    QUEUES.runs,
    async (job) => {
      const input = runInputOfSchedulerJob(job, rt.config.ROBOTS_AUDIT_TIMEZONE);
      const { run, created, enqueued } = await rt.lifecycle.startRun(input);
      rt.log.info({ runId: run.id, runKey: run.runKey, created, enqueued }, 'scheduled run started');
      return { runId: run.id, created, enqueued };
    },
    { connection, prefix, concurrency: 1 },
  );
}

/** A worker's errors go to the outage log, and its jobs' ends to the metrics. */
function watchWorker(rt: Runtime, w: Worker): void {
  // A lost connection goes to the outage log (one line per outage); BullMQ reconnects by itself.
  const onError = onQueueError(rt.outages.redis, rt.log, { queue: w.name }, 'worker error');
  // BullMQ refuses a lost job's completion, then its failure: two errors, one job.
  const lost = new Set<string>();
  w.on('error', (err) => {
    // A job this process finished after its lock expired (a pause, a partition from Redis): another
    // process has it now, and Redis refused this result. Counted, and said once per job.
    const jobId = lostJobId(err);
    if (jobId === null) {
      onError(err);
      return;
    }
    if (lost.has(jobId)) return;
    if (lost.size >= LOST_JOBS_REMEMBERED) lost.clear();
    lost.add(jobId);
    rt.recorder.jobEnded(w.name, 'lost');
    rt.log.warn({ queue: w.name, job: jobId }, 'a job finished here after another worker took it over; its result was dropped');
  });
  w.on('completed', () => rt.recorder.jobEnded(w.name, 'completed'));
  w.on('failed', (job, err) => {
    if (job) rt.recorder.jobEnded(w.name, isFinalFailure(job, err) ? 'failed' : 'retried');
  });
}

/** A delivery's outcome as the deliveries metric names it (Prometheus label values in snake case). */
const DELIVERY_RESULT_METRIC = { delivered: 'delivered', 'already-delivered': 'already_delivered', gone: 'gone', 'taken-over': 'taken_over' } as const;

/** How many lost jobs' ids a worker remembers, so that each is counted once (a bound, not a window). */
const LOST_JOBS_REMEMBERED = 1_000;

/**
 * The job of BullMQ's refusal to move a job whose lock this worker no longer holds
 * (`Missing lock for job <id>. <command>`), or null for any other error.
 */
export function lostJobId(err: Error): string | null {
  return /^Missing lock for job (.+?)\. /.exec(err.message)?.[1] ?? null;
}

/** Lets in-flight jobs end until `graceMs`, then closes the workers, forcibly if the deadline came first. */
async function closeWorkers(rt: Runtime, workers: Worker[], connection: Redis, graceMs: number): Promise<'drained' | 'forced'> {
  // A worker told to stop right after it started lets its connections finish setting up first.
  await letSetUpsFinish(workers);
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
  await rt.nights.writer.flush().catch(() => {});
  connection.disconnect();
  return outcome;
}
