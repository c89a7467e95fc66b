/**
 * How database commands connect. The URL comes from `--database-url` when given, else from
 * DATABASE_URL through `config()`. The flag exists because `config()` reads the environment
 * once per process: a caller running commands in-process (the integration tests, a script
 * driving `main()`) points each command at its own database without touching the process-wide
 * configuration, and an operator can target another database for one command.
 */
import type pg from 'pg';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import type { Database } from '../db/client.js';
import { createDb } from '../db/client.js';
import { assertMigrated } from '../db/migrate.js';
import { databaseUrlOption, requireDatabase, resolveDatabaseUrl } from './with-pool.js';
import type { DatabaseOptions } from './with-pool.js';

export type { DatabaseOptions };
export { databaseUrlOption, requireDatabase, resolveDatabaseUrl };

/**
 * Checks that the database answers, opens a small pool, checks that the schema is migrated (a clear message instead of "relation
 * does not exist"), runs `work` and closes the pool whatever happens.
 */
export async function withDatabase<T>(options: DatabaseOptions, work: (db: Database, pool: pg.Pool) => Promise<T>): Promise<T> {
  const url = resolveDatabaseUrl(options);
  await requireDatabase(url);
  const handle = createDb(url, { max: 2, applicationName: 'robots-audit cli' });
  try {
    await assertMigrated(handle.db);
    return await work(handle.db, handle.pool);
  } catch (err) {
    if (err instanceof DrizzleQueryError) throw new Error(databaseErrorMessage(err), { cause: err });
    throw err;
  } finally {
    await handle.close();
  }
}

/**
 * drizzle wraps a driver error as "Failed query: <sql> params: ..."; a person needs the
 * server's reason ("connect ECONNREFUSED", "duplicate key ...").
 */
export function databaseErrorMessage(err: unknown): string {
  if (err instanceof DrizzleQueryError && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}
