/**
 * One log line when a service goes away and one when it is back, whatever the number of
 * connections, queues and workers that notice it in between: every one of them reports to the
 * service's outage log, which speaks only on a change. Without it an outage printed a stack trace
 * per queue, per worker and per reconnect attempt.
 */
import type { Logger } from '../log/logger.js';
import { maskUrlPassword } from './masked-url.js';
import type { ServiceName } from './service-probes.js';

export interface OutageLog {
  /** The service failed to answer (a connection error, a failed probe). Logged only if it was up. */
  failed(reason: string): void;
  /** The service answered. Logged only if it was down. */
  recovered(): void;
  readonly down: boolean;
}

export interface ServiceOutages {
  postgres: OutageLog;
  redis: OutageLog;
}

export function createOutageLog(service: ServiceName, url: string, log: Pick<Logger, 'warn'>, now: () => number = Date.now): OutageLog {
  const shown = maskUrlPassword(url);
  let downSince: number | null = null;
  return {
    failed(reason) {
      if (downSince !== null) return;
      downSince = now();
      log.warn({ dependency: service, url: shown, reason }, `${service} at ${shown} unreachable: ${reason}; retrying`);
    },
    recovered() {
      if (downSince === null) return;
      const seconds = Math.round((now() - downSince) / 1000);
      downSince = null;
      log.warn({ dependency: service, url: shown, outageSeconds: seconds }, `${service} at ${shown} reachable again after ${seconds} s`);
    },
    get down() {
      return downSince !== null;
    },
  };
}

export function createServiceOutages(urls: { databaseUrl: string; redisUrl: string }, log: Pick<Logger, 'warn'>): ServiceOutages {
  return {
    postgres: createOutageLog('Postgres', urls.databaseUrl, log),
    redis: createOutageLog('Redis', urls.redisUrl, log),
  };
}
