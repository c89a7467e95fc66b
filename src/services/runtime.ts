/**
 * Wires the pipeline from the configuration: Postgres, Redis, the queues, the repos and the
 * services with their adapters. Workers, the scheduler and the CLI build one of these; tests
 * build one per file against their own database and queue prefix.
 */
import type { AppConfig } from '../config/env.js';
import { assertMigrated, createDb, createRepos } from '../db/index.js';
import type { DbHandle, Repos } from '../db/index.js';
import { pendingDeliveryIds, textDiffOf } from '../db/changes.repo.js';
import { createFetchDispatcher, fetchOptionsFromConfig, fetchRobotsTxt } from '../http/index.js';
import type { FetchOptions } from '../http/index.js';
import { deliverWebhook } from '../http/deliver-webhook.js';
import type { Logger } from '../log/logger.js';
import { createRedis } from '../queues/connection.js';
import { createHostLock } from '../queues/host-lock.js';
import type { HostLock } from '../queues/host-lock.js';
import { createQueues } from '../queues/queues.js';
import type { Queues } from '../queues/queues.js';
import type { Redis } from 'ioredis';
import { maxAttempts } from '../policy/index.js';
import type { AlertDraft, AlertKind } from './alerting/alert-rules.js';
import { severitiesAtLeast } from '../db/alerts.repo.js';
import type { AlertWithOrigin } from '../db/alerts.repo.js';
import { createAlertDeliveryService } from './alert-delivery.service.js';
import type { AlertDeliveryService, DeliveryJob } from './alert-delivery.service.js';
import { createDiffSiteService } from './diff-site.service.js';
import type { DiffSiteService, DiffWriter } from './diff-site.service.js';
import { createFetchSiteService } from './fetch-site.service.js';
import type { FetchSiteService } from './fetch-site.service.js';
import { createRunLifecycle } from './run-lifecycle.service.js';
import type { RunLifecycle } from './run-lifecycle.service.js';

/** Infrastructure failures (Postgres down, ...) a fetch job may have on top of its schedule's attempts. */
export const FETCH_INFRA_ATTEMPTS = 5;

export interface Runtime {
  config: AppConfig;
  log: Logger;
  db: DbHandle;
  repos: Repos;
  redis: Redis;
  queues: Queues;
  hostLock: HostLock;
  fetchSite: FetchSiteService;
  diffSite: DiffSiteService;
  lifecycle: RunLifecycle;
  delivery: AlertDeliveryService;
  /** Pending deliveries of a site's night, to queue after its diff committed. */
  pendingDeliveries(runId: number, siteId: number): Promise<number[]>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** The clock of services (not of runs: a run's clock is its run_at). */
  now?: () => Date;
  /** Overrides of the fetch options (tests point them at the fixture web). */
  fetchOverrides?: Partial<FetchOptions>;
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
  const db = createDb(config.DATABASE_URL, { applicationName: 'robots-audit' });
  try {
    await assertMigrated(db.db);
  } catch (err) {
    await db.close();
    throw err;
  }
  const repos = createRepos(db.db);
  const redis = createRedis(config.REDIS_URL, 'worker');
  const schedule = {
    delaysSeconds: config.ROBOTS_AUDIT_RETRY_DELAYS,
    factor503: config.ROBOTS_AUDIT_RETRY_503_FACTOR,
    retryAfterCapSeconds: config.ROBOTS_AUDIT_RETRY_AFTER_CAP,
  };
  const queues = createQueues(redis, config.ROBOTS_AUDIT_QUEUE_PREFIX, {
    fetchAttempts: maxAttempts(schedule) + FETCH_INFRA_ATTEMPTS,
    alertBackoffMs: config.ROBOTS_AUDIT_ALERT_BACKOFF_MS,
  });
  // Redis going away is logged, not thrown: ioredis reconnects, and what was lost is re-enqueued from Postgres.
  for (const queue of [queues.fetch, queues.diff, queues.alerts, queues.runs]) {
    queue.on('error', (err) => log.warn({ queue: queue.name, err }, 'queue connection error'));
  }
  const hostLock = createHostLock(redis, config.ROBOTS_AUDIT_QUEUE_PREFIX);
  const fetchOptions = { ...fetchOptionsFromConfig(config), ...options.fetchOverrides };
  // Webhook URLs are user input: deliveries go through the same SSRF guard as fetches.
  const webhookDispatcher = createFetchDispatcher({
    connectTimeoutMs: fetchOptions.connectTimeoutMs,
    allowNetworks: fetchOptions.allowNetworks,
    resolvePins: fetchOptions.resolvePins,
  });

  const fetchSite = createFetchSiteService({ repos, fetchRobotsTxt: (origin) => fetchRobotsTxt(origin, fetchOptions), schedule, log });

  const diffSite = createDiffSiteService({
    reader: {
      snapshotFor: (runId, siteId) => repos.snapshots.snapshotFor(runId, siteId),
      previousSnapshot: (s) => repos.snapshots.previousSnapshot(s),
      lastGoodBefore: (s) => repos.snapshots.lastGoodBefore(s),
      snapshotById: (id) => repos.snapshots.snapshotById(id),
      getBody: (sha) => repos.bodies.getBody(sha),
      siteOrigin: async (siteId) => (await repos.sites.getSite(siteId))?.origin ?? null,
      evaluationTargets: (siteId) => repos.trackedUrls.evaluationTargets(siteId),
      verdictsOf: (runId, ids) => repos.changes.verdictsOf(runId, ids),
    },
    transaction: (fn) =>
      db.db.transaction(async (tx) => {
        const t = createRepos(tx);
        const writer: DiffWriter = {
          insertChange: (c) => t.changes.insertChange(c),
          insertVerdicts: (v) => t.changes.insertVerdicts(v),
          insertFlips: (f) => t.changes.insertFlips(f),
          markDiffed: (id, at) => t.changes.markDiffed(id, at),
          async raiseAlerts(runId, siteId, drafts) {
            if (drafts.length === 0) return;
            const written = await t.alerts.insertAlerts(
              drafts.map((d) => ({ dedupeKey: d.dedupeKey, runId, siteId, severity: d.severity, kind: d.kind, title: d.title, details: { ...d.details } })),
            );
            const raised = [...written.inserted, ...written.existing];
            const channels = (await t.channels.enabledChannels()).filter((c) => !c.digest);
            await t.alerts.createDeliveries(
              channels.flatMap((c) => raised.filter((a) => severitiesAtLeast(c.minSeverity).includes(a.severity)).map((a) => ({ channelId: c.id, alertId: a.id }))),
            );
          },
        };
        return fn(writer);
      }),
    log,
    now,
  });

  const lifecycle = createRunLifecycle({ db: db.db, repos, fetchQueue: queues.fetch, diffQueue: queues.diff, now });

  const delivery = createAlertDeliveryService({
    store: {
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
          const textDiff = a.runId !== null && a.siteId !== null ? await textDiffOf(db.db, a.runId, a.siteId) : null;
          return { ...base, alert: { ...alertDraftOf(a), createdAt: a.createdAt, textDiff }, digest: null };
        }
        const run = await repos.runs.getRun(found.digestRunId);
        return {
          ...base,
          alert: null,
          digest: { runId: found.digestRunId, finishedAt: run?.finishedAt ?? now(), alerts: found.alerts.map(alertDraftOf) },
        };
      },
      markDelivered: async (id, status, at) => void (await repos.alerts.markDelivered(id, status, at)),
      markAttemptFailed: async (id, error, status) => void (await repos.alerts.markAttemptFailed(id, error, status)),
      markFailed: async (id, error) => void (await repos.alerts.markFailed(id, error)),
    },
    deliver: (input) => deliverWebhook({ ...input, timeoutMs: config.ROBOTS_AUDIT_WEBHOOK_TIMEOUT_MS, dispatcher: webhookDispatcher.agent }),
    log,
    now,
    userAgent: config.ROBOTS_AUDIT_USER_AGENT,
  });

  return {
    config,
    log,
    db,
    repos,
    redis,
    queues,
    hostLock,
    fetchSite,
    diffSite,
    lifecycle,
    delivery,
    pendingDeliveries: (runId, siteId) => pendingDeliveryIds(db.db, runId, siteId),
    async close() {
      await queues.close();
      await webhookDispatcher.close();
      redis.disconnect();
      await db.close();
    },
  };
}
