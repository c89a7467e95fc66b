/**
 * What a long-running process (worker, scheduler) shows an operator: its /metrics, /healthz and
 * /readyz endpoints, and one log line per Postgres or Redis outage. Started before the runtime,
 * so that a process waiting for Postgres at start-up is already alive (healthz) and says why it
 * is not ready (readyz); the runtime is attached once it exists.
 */
import type { AppConfig } from '../config/env.js';
import { createPipelineStatusRepo } from '../db/pipeline-status.repo.js';
import { maskUrlPassword } from '../health/masked-url.js';
import { createServiceOutages } from '../health/outage-log.js';
import type { OutageLog, ServiceOutages } from '../health/outage-log.js';
import { judgeRedis } from '../health/redis-check.js';
import { readRedisSettings } from '../health/redis-settings.js';
import { waitUntilReachable, watchServices } from '../health/outage-watch.js';
import { postgresProbe, redisProbe, ServiceUnreachableError, withDeadline } from '../health/service-probes.js';
import type { Logger } from '../log/logger.js';
import { startMetricsServer } from '../metrics/metrics-server.js';
import { createPipelineMetrics } from '../metrics/pipeline-metrics.js';
import type { PipelineRecorder } from '../metrics/pipeline-metrics.js';
import { queueDepths, runsInProgress, waitsNow } from './pipeline-status.js';
import type { Runtime } from './runtime.js';

export interface ProcessHealthOptions {
  /** Port of the endpoints; 0: none. */
  port: number;
  /** The setting that chose the port (named when the port is taken). */
  portSetting: string;
}

export interface ProcessHealth {
  outages: ServiceOutages;
  recorder: PipelineRecorder;
  /** The port the endpoints listen on; null when they are off. */
  port: number | null;
  /** Resolves true once Postgres answers (its outage logged once meanwhile); false if `signal` aborts first. */
  waitForPostgres(signal?: AbortSignal): Promise<boolean>;
  /** Reads queue depths and runs from the runtime on scrape, and starts watching for outages. */
  attach(rt: Runtime): void;
  close(): Promise<void>;
}

export async function startProcessHealth(config: AppConfig, log: Logger, options: ProcessHealthOptions): Promise<ProcessHealth> {
  const timeoutMs = config.ROBOTS_AUDIT_SERVICE_CHECK_TIMEOUT_MS;
  const probes = [postgresProbe(config.DATABASE_URL, timeoutMs), redisProbe(config.REDIS_URL, timeoutMs)] as const;
  const outages = createServiceOutages({ databaseUrl: config.DATABASE_URL, redisUrl: config.REDIS_URL }, log);
  const watched = [
    { probe: probes[0], outage: outages.postgres },
    { probe: probes[1], outage: outages.redis },
  ];
  const metrics = createPipelineMetrics();

  async function notReadyReason(): Promise<string | null> {
    const results = await Promise.all(probes.map(async (probe) => ({ probe, result: await probe.check() })));
    const down = results.flatMap(({ probe, result }) => (result.reachable ? [] : [new ServiceUnreachableError(probe.service, probe.url, result.reason).message]));
    return down.length === 0 ? null : down.join('; ');
  }

  let server: Awaited<ReturnType<typeof startMetricsServer>> | null = null;
  if (options.port > 0) {
    try {
      server = await startMetricsServer({
        host: config.ROBOTS_AUDIT_METRICS_HOST,
        port: options.port,
        portSetting: options.portSetting,
        fallbacks: config.ROBOTS_AUDIT_METRICS_PORT_FALLBACKS,
        registry: metrics.registry,
        notReadyReason,
      });
    } catch (err) {
      await Promise.all(probes.map((p) => p.close()));
      throw err;
    }
    if (server.port === options.port) log.info({ host: config.ROBOTS_AUDIT_METRICS_HOST, port: server.port }, 'serving /metrics, /healthz and /readyz');
    else {
      log.warn(
        { host: config.ROBOTS_AUDIT_METRICS_HOST, port: server.port, wanted: options.port },
        `port ${options.port} is taken (another process on this host?): serving /metrics, /healthz and /readyz on ${server.port} instead`,
      );
    }
  }
  let watch: { stop(): void } | null = null;

  return {
    outages,
    recorder: metrics.recorder,
    port: server?.port ?? null,
    waitForPostgres: (signal) => waitUntilReachable(watched[0]!, config.ROBOTS_AUDIT_OUTAGE_PROBE_MS, signal),
    attach(rt) {
      const status = createPipelineStatusRepo(rt.db.db);
      metrics.observe({
        // Queue commands wait for a Redis that is away (workers never give a command up): a scrape must not.
        queueDepths: () => (rt.redis.status === 'ready' ? withDeadline(queueDepths(rt.queues), timeoutMs) : Promise.reject(new Error('Redis is not connected'))),
        runsInProgress: () => withDeadline(runsInProgress(status, new Date()), timeoutMs),
        waits: () => withDeadline(waitsNow(rt.db.pool, new Date()), timeoutMs),
        fetchSlots: () => rt.nights.slots,
        largeBodySlots: () => rt.nights.largeBodies,
      });
      watch = watchServices(watched, config.ROBOTS_AUDIT_OUTAGE_PROBE_MS);
    },
    async close() {
      watch?.stop();
      await server?.close();
      await Promise.all(probes.map((p) => p.close()));
    },
  };
}

/**
 * ROBOTS_AUDIT_REDIS_CHECK at a worker's or the scheduler's start: reads Redis' eviction policy and
 * persistence, logs what they are and what they mean, and throws the one line of a refusal (the
 * CLI prints it and exits 2). A Redis that does not answer is the outage log's, and not checked.
 */
export async function checkRedisSettings(config: AppConfig, log: Logger, outage: Pick<OutageLog, 'failed'>): Promise<void> {
  const mode = config.ROBOTS_AUDIT_REDIS_CHECK;
  if (mode === 'off') return;
  const reading = await readRedisSettings(config.REDIS_URL, config.ROBOTS_AUDIT_SERVICE_CHECK_TIMEOUT_MS);
  if (reading.kind === 'unreachable') outage.failed(reading.reason);
  const verdict = judgeRedis(reading, mode, maskUrlPassword(config.REDIS_URL));
  for (const note of verdict.notes) log.info({ redisCheck: mode }, note);
  for (const warning of verdict.warnings) log.warn({ redisCheck: mode }, warning);
  if (verdict.refusal !== null) throw new Error(verdict.refusal);
}
