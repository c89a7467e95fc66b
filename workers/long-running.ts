/**
 * What the worker and the scheduler share around their work: their endpoints (/metrics, /healthz,
 * /readyz) up first, Redis checked for eviction and persistence (a refusal stops the process), a
 * stop on SIGTERM, SIGINT or the caller's signal, a Postgres that does not answer yet waited for
 * (not fatal: the process may start before its database), and the endpoints closed last, whatever
 * the work did.
 */
import type { AppConfig } from '../src/config/env.js';
import type { Logger } from '../src/log/logger.js';
import { checkRedisSettings, startProcessHealth } from '../src/services/process-health.js';
import type { ProcessHealth } from '../src/services/process-health.js';
import { untilStopped } from './shutdown.js';

export interface LongRunningOptions {
  /** The process's name in its log lines. */
  name: 'worker' | 'scheduler';
  /** Port of its endpoints (0: off) and the setting that sets it, named when the port is taken. */
  port: number;
  portSetting: string;
  signal?: AbortSignal;
}

/** The endpoints, and what stopped the process once something did. */
export interface LongRunning {
  health: ProcessHealth;
  stopped: Promise<string>;
}

/** Runs `work` once Postgres answers; null when the process was stopped before it did. */
export async function runUntilStopped<T>(config: AppConfig, log: Logger, options: LongRunningOptions, work: (process: LongRunning) => Promise<T>): Promise<T | null> {
  const health = await startProcessHealth(config, log, { port: options.port, portSetting: options.portSetting });
  const stop = new AbortController();
  const stopped = untilStopped(options.signal).then((why) => {
    stop.abort();
    return why;
  });
  try {
    // A Redis unsafe for the queues stops the process before it waits for anything (ROBOTS_AUDIT_REDIS_CHECK).
    await checkRedisSettings(config, log, health.outages.redis);
    if (!(await health.waitForPostgres(stop.signal))) {
      log.info({ why: await stopped }, `${options.name} stopped before Postgres answered`);
      return null;
    }
    return await work({ health, stopped });
  } finally {
    await health.close();
  }
}
