/**
 * Does Postgres answer, does Redis? One question, asked three ways: by a command at start-up
 * (which then stops with one line instead of stack traces), by /readyz, and by the outage watch
 * of workers and the scheduler. Each check is bounded by a timeout: a host that drops packets
 * must not hold a command or a health check.
 */
import pg from 'pg';
import { maskUrlPassword } from './masked-url.js';

export type ServiceName = 'Postgres' | 'Redis';

export type Reachability = { reachable: true } | { reachable: false; reason: string };

export interface ServiceProbe {
  readonly service: ServiceName;
  readonly url: string;
  check(): Promise<Reachability>;
  close(): Promise<void>;
}

/** What a person reads when a service cannot be reached: `cannot reach Redis at redis://:***@host:6379: ECONNREFUSED`. */
export class ServiceUnreachableError extends Error {
  constructor(
    readonly service: ServiceName,
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot reach ${service} at ${maskUrlPassword(url)}: ${reason}`);
    this.name = 'ServiceUnreachableError';
  }
}

const SOCKET_ERROR_CODE = /^E[A-Z]+$/;

function codeOf(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && SOCKET_ERROR_CODE.test(code) ? code : null;
}

/**
 * The short reason of a connection failure: the socket's error code (ECONNREFUSED, ENOTFOUND,
 * ETIMEDOUT, ...) when there is one, since it says it all; else the first line of the message
 * (a refused password, a database that does not exist).
 */
export function reasonOf(err: unknown, timeoutMs?: number): string {
  // Node tries every address of a name (IPv6 and IPv4): an AggregateError holds each failure.
  const errors = err instanceof AggregateError ? [err, ...(err.errors as unknown[])] : [err];
  for (const e of errors) {
    const code = codeOf(e);
    if (code) return code;
  }
  const message = err instanceof Error ? err.message : String(err);
  // ioredis through Sentinel, after a round over every Sentinel: none was reached, or none knew the primary.
  if (/^All sentinels are unreachable/.test(message)) {
    const last = /\b(E[A-Z]{3,})\b/.exec(message)?.[1];
    return `no Sentinel answered with the primary's address${last ? ` (${last})` : ''}`;
  }
  if (/timeout|timed out/i.test(message)) return timeoutMs === undefined ? 'no answer in time' : `no answer within ${timeoutMs} ms`;
  return message.split('\n')[0]!.trim() || 'unknown error';
}

/** A connection-level failure (the service is away), as opposed to an error about a command or a row. */
export function isConnectionError(err: unknown): boolean {
  if (codeOf(err) !== null) return true;
  const message = err instanceof Error ? err.message : String(err);
  return /connection is closed|connection terminated|econn|socket|stream isn't writeable|reached the max retries|sentinels are unreachable/i.test(message);
}

/** `work`, or a rejection after `ms` (the work itself is not cancelled). */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** What node-postgres says of a query on a connection that was closed under it. */
const KEPT_CONNECTION_CUT = /Connection terminated|ECONNRESET|EPIPE|not queryable/i;

/**
 * Postgres: one pooled connection of its own, kept between checks (a worker checks every few
 * seconds: a connection each time would cost a server process each time), never one of the
 * pipeline's pool, whose connections may all be busy storing nights.
 */
export function postgresProbe(url: string, timeoutMs: number): ServiceProbe {
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    application_name: 'robots-audit probe',
    allowExitOnIdle: true,
  });
  // A dropped connection is reported by the next check, not thrown.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  let closed: Promise<void> | undefined;
  return {
    service: 'Postgres',
    url,
    async check() {
      const started = Date.now();
      try {
        await withDeadline(pool.query('select 1'), timeoutMs);
        return { reachable: true };
      } catch (err) {
        // The connection kept from the last check may have been cut meanwhile (Postgres going
        // away, a pooler closing idle connections) and found so only now: the pool drops it, and
        // a new one says how the server is now (ECONNREFUSED, or answering after all).
        const left = timeoutMs - (Date.now() - started);
        if (!KEPT_CONNECTION_CUT.test(err instanceof Error ? err.message : String(err)) || left <= 0) return { reachable: false, reason: reasonOf(err, timeoutMs) };
        try {
          await withDeadline(pool.query('select 1'), left);
          return { reachable: true };
        } catch (again) {
          return { reachable: false, reason: reasonOf(again, timeoutMs) };
        }
      }
    },
    close: () => (closed ??= pool.end()),
  };
}

/**
 * Redis: a connection per check, closed right after (Redis connections cost next to nothing), so
 * that no reconnecting client keeps a stale state between checks. ioredis is loaded by the first
 * check: commands that only ask Postgres (every database command) do not pay its start-up.
 */
export function redisProbe(url: string, timeoutMs: number): ServiceProbe {
  return {
    service: 'Redis',
    url,
    async check() {
      const { oneShotRedisClient } = await import('./redis-client.js');
      const { redis, lastError } = oneShotRedisClient(url, timeoutMs);
      try {
        await withDeadline(redis.connect().then(() => redis.ping()), timeoutMs);
        return { reachable: true };
      } catch (err) {
        return { reachable: false, reason: reasonOf(lastError() ?? err, timeoutMs) };
      } finally {
        redis.disconnect();
      }
    },
    close: async () => {},
  };
}

/** Checks the services in order; throws ServiceUnreachableError for the first that does not answer. Closes every probe. */
export async function requireReachable(probes: readonly ServiceProbe[]): Promise<void> {
  try {
    for (const probe of probes) {
      const result = await probe.check();
      if (!result.reachable) throw new ServiceUnreachableError(probe.service, probe.url, result.reason);
    }
  } finally {
    await Promise.all(probes.map((p) => p.close()));
  }
}
