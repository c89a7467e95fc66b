/**
 * Wires the pipeline from the configuration: Postgres, Redis, the queues, the repos and the
 * services with their adapters. Workers, the scheduler and the CLI build one of these; tests
 * build one per file against their own database and queue prefix.
 */
import type { AppConfig } from '../config/env.js';
import { retryScheduleOf } from '../config/env.js';
import { assertMigrated, createDb, createRepos } from '../db/index.js';
import type { Database, DbHandle, Repos } from '../db/index.js';
import { pendingDeliveriesOfRun, textDiffOf } from '../db/changes.repo.js';
import { createFetchDispatcher, fetchOptionsFromConfig, fetchRobotsTxt, resolveFetchOptions } from '../http/index.js';
import type { FetchDispatcher, FetchOptions } from '../http/index.js';
import { FetchSlots } from '../http/fetch-slots.js';
import { createCachingResolver } from '../http/dns-resolver.js';
import { deliverWebhook } from '../http/deliver-webhook.js';
import { createMailSender, mailDomain } from '../mail/smtp-sender.js';
import type { MailSender } from '../mail/smtp-sender.js';
import type { Logger } from '../log/logger.js';
import { createRedis, onQueueError, reportOutages } from '../queues/connection.js';
import { createServiceOutages } from '../health/outage-log.js';
import type { ServiceOutages } from '../health/outage-log.js';
import { NO_METRICS } from '../metrics/pipeline-metrics.js';
import type { PipelineRecorder } from '../metrics/pipeline-metrics.js';
import { createHostLock } from '../queues/host-lock.js';
import type { HostLock } from '../queues/host-lock.js';
import { createFetchRate } from '../queues/fetch-rate.js';
import type { FetchRate } from '../queues/fetch-rate.js';
import { createQueues, enqueueDeliveries } from '../queues/queues.js';
import type { Queues } from '../queues/queues.js';
import { JOBS, jobIds } from '../queues/contracts.js';
import type { Redis } from 'ioredis';
import { maxAttempts } from '../policy/index.js';
import type { RetrySchedule } from '../policy/index.js';
import type { AlertDraft } from '../night/alerts.js';
import type { AlertKind } from '../night/vocabulary.js';
import type { AlertWithOrigin } from '../db/alerts.repo.js';
import { createAlertDeliveryService } from './alert-delivery.service.js';
import type { AlertDeliveryService, DeliveryJob, DeliveryStore } from './alert-delivery.service.js';
import { createNightRunner } from './night-runner.js';
import type { NightRunner } from './night-runner.js';
import { createNightWriter } from './night-writer.js';
import type { NightWriter } from './night-writer.js';
import { createRunLifecycle } from './run-lifecycle.service.js';
import type { RunLifecycle } from './run-lifecycle.service.js';
import { createPortabilityAnalysis, queueAnalysis } from './portability-analysis.service.js';
import type { PortabilityAnalysis } from './portability-analysis.service.js';

/** Infrastructure failures (Postgres down, ...) a site job may have on top of its schedule's attempts. */
export const SITE_INFRA_ATTEMPTS = 5;

export interface Runtime {
  config: AppConfig;
  log: Logger;
  db: DbHandle;
  repos: Repos;
  redis: Redis;
  queues: Queues;
  hostLock: HostLock;
  /** Sites' nights: the batch and site jobs' work, and the writer they share. */
  nights: NightRunner & { writer: NightWriter; slots: FetchSlots; largeBodies: FetchSlots };
  lifecycle: RunLifecycle;
  /** Portability findings of stored bodies, after runs (the `analysis` queue's work). */
  analysis: PortabilityAnalysis;
  delivery: AlertDeliveryService;
  /** Where jobs, fetches, nights and deliveries are counted (NO_METRICS when the process has no metrics). */
  recorder: PipelineRecorder;
  /** One log line per Postgres or Redis outage, whoever notices it. */
  outages: ServiceOutages;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** The clock of services (not of runs: a run's clock is its run_at). */
  now?: () => Date;
  /** Overrides of the fetch options (tests point them at the fixture web). */
  fetchOverrides?: Partial<FetchOptions>;
  /** The process's metrics (default: none). */
  recorder?: PipelineRecorder;
  /** The process's outage logs, when it made them before the runtime (to wait for Postgres). */
  outages?: ServiceOutages;
}

function alertDraftOf(a: AlertWithOrigin): AlertDraft {
  return {
    dedupeKey: a.dedupeKey,
    severity: a.severity,
    kind: a.kind as AlertKind,
    title: a.title,
    runId: String(a.runId ?? ''),
    siteId: String(a.siteId ?? ''),
    origin: a.origin ?? '',
    details: a.details,
  };
}

export async function createRuntime(config: AppConfig, log: Logger, options: RuntimeOptions = {}): Promise<Runtime> {
  const now = options.now ?? (() => new Date());
  const recorder = options.recorder ?? NO_METRICS;
  const outages = options.outages ?? createServiceOutages({ databaseUrl: config.DATABASE_URL, redisUrl: config.REDIS_URL }, log);
  const db = await openDatabase(config.DATABASE_URL, config.ROBOTS_AUDIT_DB_IDLE_TRANSACTION_MS);
  const repos = createRepos(db.db);
  const redis = createRedis(config.REDIS_URL, 'worker');
  const schedule = retryScheduleOf(config);
  const queues = openQueues(config, redis, schedule, outages, log);
  // Host locks are taken and released around every fetch: their commands are pipelined.
  const lockRedis = createRedis(config.REDIS_URL, 'worker', { autoPipelining: true });
  for (const connection of [redis, lockRedis]) reportOutages(connection, outages.redis);
  const hostLock = createHostLock(lockRedis, config.ROBOTS_AUDIT_QUEUE_PREFIX);
  const fetchRate = createFetchRate(lockRedis, config.ROBOTS_AUDIT_QUEUE_PREFIX, config.ROBOTS_AUDIT_FETCH_RATE_PER_SECOND);
  const { fetchOptions, fetchDispatcher, webhookDispatcher } = guardedDispatchers(config, options.fetchOverrides);

  const lifecycle: RunLifecycle = createRunLifecycle({
    db: db.db,
    pool: db.pool,
    repos,
    fetchQueue: queues.fetch,
    siteQueue: queues.site,
    batchSize: config.ROBOTS_AUDIT_BATCH_SIZE,
    now,
  });
  const nights = createNights({ config, log, db, queues, lifecycle, hostLock, fetchRate, fetchOptions, fetchDispatcher, schedule, recorder });
  const mailSender = mailSenderOf(config);
  const delivery = createDelivery({ config, log, now, store: deliveryStore(repos, db.db, now), webhookDispatcher, mailSender });
  const analysis = createPortabilityAnalysis({ pool: db.pool });

  return {
    config,
    log,
    db,
    repos,
    redis,
    queues,
    hostLock,
    nights,
    lifecycle,
    analysis,
    delivery,
    recorder,
    outages,
    async close() {
      await nights.writer.flush().catch(() => {});
      await analysis.close();
      await queues.close();
      await fetchDispatcher.close();
      await webhookDispatcher.close();
      mailSender?.close();
      redis.disconnect();
      lockRedis.disconnect();
      await db.close();
    },
  };
}

/**
 * The database, once it is known to be migrated (closed again when it is not). A session left
 * idle in a transaction past `idleInTransactionMs` is ended by Postgres (a frozen or cut-off
 * process's locks would hold every other worker's nights).
 */
async function openDatabase(url: string, idleInTransactionMs: number): Promise<DbHandle> {
  const db = createDb(url, { applicationName: 'robots-audit', idleInTransactionMs });
  try {
    await assertMigrated(db.db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/** The queues, a site job allowed its schedule's attempts and SITE_INFRA_ATTEMPTS more. */
function openQueues(config: AppConfig, redis: Redis, schedule: RetrySchedule, outages: ServiceOutages, log: Logger): Queues {
  const queues = createQueues(redis, config.ROBOTS_AUDIT_QUEUE_PREFIX, {
    siteAttempts: maxAttempts(schedule) + SITE_INFRA_ATTEMPTS,
    alertBackoffMs: config.ROBOTS_AUDIT_ALERT_BACKOFF_MS,
    jobBackoffMs: config.ROBOTS_AUDIT_JOB_BACKOFF_MS,
  });
  // Redis going away is logged once, not thrown: ioredis reconnects, and what was lost is re-enqueued from Postgres.
  for (const queue of [queues.fetch, queues.site, queues.alerts, queues.runs, queues.analysis]) {
    queue.on('error', onQueueError(outages.redis, log, { queue: queue.name }, 'queue error'));
  }
  return queues;
}

/** The fetch options, and the dispatchers of fetches and of webhook deliveries. */
function guardedDispatchers(config: AppConfig, overrides: Partial<FetchOptions> | undefined) {
  const fetchOptions = { ...fetchOptionsFromConfig(config), ...overrides };
  // One DNS cache and one guarded dispatcher for every fetch of the process.
  const resolver = createCachingResolver({
    cacheSeconds: config.ROBOTS_AUDIT_DNS_CACHE_SECONDS,
    negativeCacheSeconds: config.ROBOTS_AUDIT_DNS_NEGATIVE_CACHE_SECONDS,
    maxEntries: config.ROBOTS_AUDIT_DNS_CACHE_ENTRIES,
  });
  const dispatcherOptions = {
    connectTimeoutMs: fetchOptions.connectTimeoutMs,
    allowNetworks: fetchOptions.allowNetworks,
    resolvePins: fetchOptions.resolvePins,
    resolver,
  };
  const fetchDispatcher = createFetchDispatcher(dispatcherOptions);
  // Webhook URLs are user input: deliveries go through the same SSRF guard as fetches.
  const webhookDispatcher = createFetchDispatcher(dispatcherOptions);
  return { fetchOptions, fetchDispatcher, webhookDispatcher };
}

/** What the sites' nights are made of. */
interface NightsParts {
  config: AppConfig;
  log: Logger;
  db: DbHandle;
  queues: Queues;
  lifecycle: RunLifecycle;
  hostLock: HostLock;
  fetchRate: FetchRate;
  fetchOptions: FetchOptions;
  fetchDispatcher: FetchDispatcher;
  schedule: RetrySchedule;
  recorder: PipelineRecorder;
}

/** The process's fetch slots, its night writer, and the runner of batch and site jobs on them. */
function createNights(parts: NightsParts): Runtime['nights'] {
  const { config, queues, lifecycle, recorder } = parts;
  const slots = new FetchSlots(config.ROBOTS_AUDIT_FETCH_CONCURRENCY);
  const largeBodies = new FetchSlots(config.ROBOTS_AUDIT_LARGE_BODY_FETCHES);
  const writer = nightWriterOf(parts);
  // Resolved once: each fetch only adds its abort signal.
  const nightFetchOptions = resolveFetchOptions({ ...parts.fetchOptions, dispatcher: parts.fetchDispatcher, largeBodies });
  const runner = createNightRunner({
    pool: parts.db.pool,
    writer,
    fetchRobotsTxt: (origin, signal) =>
      slots.run(async () => {
        await parts.fetchRate.take(signal);
        const result = await fetchRobotsTxt(origin, { ...nightFetchOptions, signal });
        // A fetch cut off by its batch's deadline is not the site's answer: counted apart.
        recorder.fetchEnded(signal?.aborted ? 'aborted' : result.outcome, result.durationMs);
        return result;
      }, signal),
    hostLock: parts.hostLock,
    // Longer than the fetch and its confirmation (issue 18), which hold the host together.
    hostLockTtlMs: 2 * config.ROBOTS_AUDIT_TOTAL_TIMEOUT_MS + config.ROBOTS_AUDIT_CONFIRM_DELAY_MS + 5_000,
    hostBusyDelayMs: config.ROBOTS_AUDIT_HOST_BUSY_DELAY_MS,
    schedule: parts.schedule,
    runHoldSeconds: config.ROBOTS_AUDIT_RUN_HOLD_SECONDS,
    handOver: async (runId, siteId, delayMs) => {
      const data = { runId, siteId };
      await queues.site.add(JOBS.fetchSite, data, { jobId: jobIds.fetchSite(data), delay: Math.max(0, Math.round(delayMs)) });
    },
    markSkipped: (runId, siteId) => lifecycle.markSiteSkipped(runId, siteId),
    confirmDelayMs: config.ROBOTS_AUDIT_CONFIRM_DELAY_MS,
    flapping: { windowNights: config.ROBOTS_AUDIT_FLAPPING_WINDOW_NIGHTS, settleNights: config.ROBOTS_AUDIT_FLAPPING_SETTLE_NIGHTS },
    log: parts.log,
  });
  return { ...runner, writer, slots, largeBodies };
}

/** The writer the nights share: once a transaction commits, its deliveries are queued and the runs it completes ended. */
function nightWriterOf({ config, log, db, queues, lifecycle, recorder }: NightsParts): NightWriter {
  return createNightWriter({
    pool: db.pool,
    maxBatch: config.ROBOTS_AUDIT_WRITE_BATCH,
    maxDelayMs: config.ROBOTS_AUDIT_WRITE_DELAY_MS,
    recorder,
    async onCommitted(result) {
      await enqueueDeliveries(queues.alerts, result.deliveryIds);
      for (const runId of result.runsToFinish) {
        const finished = await lifecycle.finishIfComplete(runId);
        if (finished) log.info({ runId, counts: finished.counts }, 'run completed');
        await enqueueDeliveries(queues.alerts, await pendingDeliveriesOfRun(db.db, runId));
        // The run's new bodies are analysed now, off the nights' path (issue 26).
        if (finished) await queueAnalysis(db.pool, queues.analysis);
      }
    },
    onError: (err) => log.warn({ err }, 'after storing nights: queueing deliveries or ending a run failed (the reconcile loop does it later)'),
  });
}

/** E-mail channels: one pooled SMTP transport per process, when the server and the From are set. */
function mailSenderOf(config: AppConfig): MailSender | null {
  const smtpUrl = config.ROBOTS_AUDIT_SMTP_URL;
  const mailFrom = config.ROBOTS_AUDIT_MAIL_FROM;
  return smtpUrl !== null && mailFrom !== null
    ? createMailSender({ url: smtpUrl, from: mailFrom, timeoutMs: config.ROBOTS_AUDIT_SMTP_TIMEOUT_MS, maxConnections: config.ROBOTS_AUDIT_ALERT_CONCURRENCY })
    : null;
}

/** Alert deliveries: webhooks through their own guarded dispatcher, e-mail when a sender is set. */
function createDelivery(parts: {
  config: AppConfig;
  log: Logger;
  now: () => Date;
  store: DeliveryStore;
  webhookDispatcher: FetchDispatcher;
  mailSender: MailSender | null;
}): AlertDeliveryService {
  const { config, mailSender } = parts;
  const mailFrom = config.ROBOTS_AUDIT_MAIL_FROM;
  return createAlertDeliveryService({
    store: parts.store,
    deliver: (input) => deliverWebhook({ ...input, timeoutMs: config.ROBOTS_AUDIT_WEBHOOK_TIMEOUT_MS, dispatcher: parts.webhookDispatcher.agent }),
    mail: mailSender && mailFrom ? { send: mailSender.send, domain: mailDomain(mailFrom), dashboardUrl: config.ROBOTS_AUDIT_DASHBOARD_URL } : null,
    log: parts.log,
    now: parts.now,
    userAgent: config.ROBOTS_AUDIT_USER_AGENT,
  });
}

/** Deliveries as the delivery service reads and records them, from the alerts repo. */
function deliveryStore(repos: Repos, db: Database, now: () => Date): DeliveryStore {
  return {
    async loadDelivery(id): Promise<DeliveryJob | null> {
      const found = await repos.alerts.getDelivery(id);
      if (!found) return null;
      const { delivery: d, channel } = found;
      const base = {
        id: d.id,
        dedupeKey: d.dedupeKey,
        status: d.status,
        channel: { id: channel.id, kind: channel.kind, url: channel.url, secret: channel.secret },
      };
      if (found.digestRunId === null) {
        const a = found.alerts[0];
        if (!a) return null;
        const textDiff = a.runId !== null && a.siteId !== null ? await textDiffOf(db, a.runId, a.siteId) : null;
        return { ...base, alert: { ...alertDraftOf(a), createdAt: a.createdAt, textDiff }, digest: null };
      }
      const run = await repos.runs.getRunProgress(found.digestRunId);
      return {
        ...base,
        alert: null,
        digest: {
          runId: found.digestRunId,
          // A late digest is dated when it was made (its sites came in after the run finished); either date is the same on every attempt.
          finishedAt: found.late ? d.createdAt : (run?.finishedAt ?? now()),
          alerts: found.alerts.map(alertDraftOf),
          late: found.late,
          pending: found.late ? [] : found.lateSites.map((l) => ({ origin: l.origin ?? `site ${l.siteId}`, until: l.until })),
        },
      };
    },
    markDelivered: async (id, status, at) => void (await repos.alerts.markDelivered(id, status, at)),
    markAttemptFailed: async (id, error, status) => void (await repos.alerts.markAttemptFailed(id, error, status)),
    markFailed: async (id, error) => void (await repos.alerts.markFailed(id, error)),
  };
}
