/**
 * How database commands connect, without the ORM: the URL (`--database-url`, else DATABASE_URL),
 * the start-up check that prints one line when Postgres does not answer, and a plain pg pool for
 * commands that read a few rows with SQL of their own (`test-draft`). `with-database.ts` adds
 * drizzle, the schema and the migration check on top for the others.
 */
import { Option } from 'commander';
import type pg from 'pg';
import { config } from '../config/env.js';
import { createPool } from '../db/pool.js';
import { postgresProbe, reasonOf, requireReachable, ServiceUnreachableError, withDeadline } from '../health/service-probes.js';

export interface DatabaseOptions {
  databaseUrl?: string;
}

export function databaseUrlOption(): Option {
  return new Option('--database-url <url>', 'PostgreSQL connection URL (default: the DATABASE_URL environment variable)');
}

export function resolveDatabaseUrl(options: DatabaseOptions): string {
  return options.databaseUrl ?? config().DATABASE_URL;
}

/**
 * Fails fast, with one line (`cannot reach Postgres at ...: ECONNREFUSED`), when the database does
 * not answer within ROBOTS_AUDIT_SERVICE_CHECK_TIMEOUT_MS.
 */
export async function requireDatabase(url: string): Promise<void> {
  await requireReachable([postgresProbe(url, config().ROBOTS_AUDIT_SERVICE_CHECK_TIMEOUT_MS)]);
}

/** SQLSTATE of a relation or a column the query names that the database lacks. */
const MISSING_RELATION = new Set(['42P01', '42703']);

/**
 * Opens a pool of one connection (read-only sessions when `readOnly`), checks on it that the
 * database answers within ROBOTS_AUDIT_SERVICE_CHECK_TIMEOUT_MS (else the one line of
 * `requireDatabase`: `cannot reach Postgres at ...`), runs `work` and closes the pool whatever
 * happens. One connection for the check and the work: a command that reads a few rows pays for one
 * connection set-up. A table or column the work needs and the database lacks is reported as
 * `database is not migrated`, as `withDatabase` reports it.
 */
export async function withPool<T>(options: DatabaseOptions, work: (pool: pg.Pool) => Promise<T>, poolOptions: { readOnly?: boolean } = {}): Promise<T> {
  const url = resolveDatabaseUrl(options);
  const timeoutMs = config().ROBOTS_AUDIT_SERVICE_CHECK_TIMEOUT_MS;
  const pool = createPool(url, { max: 1, applicationName: 'robots-audit cli', connectionTimeoutMillis: timeoutMs, ...poolOptions });
  try {
    try {
      await withDeadline(pool.query('select 1'), timeoutMs);
    } catch (err) {
      throw new ServiceUnreachableError('Postgres', url, reasonOf(err, timeoutMs));
    }
    return await work(pool);
  } catch (err) {
    if (MISSING_RELATION.has((err as { code?: string }).code ?? '')) throw new Error('database is not migrated: run `robots-audit db migrate`', { cause: err });
    throw err;
  } finally {
    await pool.end();
  }
}
