/**
 * The database handle: a node-postgres pool wrapped by drizzle with the schema, so queries are
 * typed. Repos take the `Executor` type, which both the database and a transaction satisfy, so
 * the same repo function runs alone or inside a caller's transaction.
 */
import type { PgDatabase } from 'drizzle-orm/pg-core';
import type { NodePgDatabase, NodePgQueryResultHKT } from 'drizzle-orm/node-postgres';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema.js';

export type Schema = typeof schema;
export type Database = NodePgDatabase<Schema>;
/** A database or a transaction on it. */
export type Executor = PgDatabase<NodePgQueryResultHKT, Schema>;

export interface DbHandle {
  db: Database;
  pool: pg.Pool;
  /** Ends the pool; safe to call twice. */
  close(): Promise<void>;
}

export interface CreateDbOptions {
  /** Pool size. */
  max?: number;
  /** Shown in pg_stat_activity, so an operator can tell the workers' connections apart. */
  applicationName?: string;
  /** Every session read-only (`default_transaction_read_only`): a reader that cannot write (the dashboard). */
  readOnly?: boolean;
}

/** Default pool size: enough for a worker's concurrent jobs without exhausting the server. */
export const DEFAULT_POOL_MAX = 10;

export function createDb(url: string, options: CreateDbOptions = {}): DbHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? DEFAULT_POOL_MAX,
    application_name: options.applicationName ?? 'robots-audit',
    ...(options.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
  });
  // An idle client whose connection dies (server restart, database dropped) is discarded by the
  // pool; without a listener the 'error' event would crash the process. A real outage still
  // surfaces as an error on the next query.
  pool.on('error', () => {});
  // A client checked out of the pool (a transaction waiting on a lock, say) has no listener of
  // the pool's: its connection ending emits 'error' on it, which would crash the process. The
  // query in flight fails on its own, the job is retried, and the pool drops the dead client
  // when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = drizzle(pool, { schema });
  let closed: Promise<void> | undefined;
  return {
    db,
    pool,
    close: () => (closed ??= pool.end()),
  };
}
