/**
 * The database handle: a node-postgres pool wrapped by drizzle with the schema, so queries are
 * typed. Repos take the `Executor` type, which both the database and a transaction satisfy, so
 * the same repo function runs alone or inside a caller's transaction.
 */
import type { PgDatabase } from 'drizzle-orm/pg-core';
import type { NodePgDatabase, NodePgQueryResultHKT } from 'drizzle-orm/node-postgres';
import { drizzle } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import { createPool, DEFAULT_POOL_MAX, readOnlyConnection } from './pool.js';
import type { CreatePoolOptions } from './pool.js';
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

export type CreateDbOptions = CreatePoolOptions;
export { DEFAULT_POOL_MAX, readOnlyConnection };

export function createDb(url: string, options: CreateDbOptions = {}): DbHandle {
  const pool = createPool(url, options);
  const db = drizzle(pool, { schema });
  let closed: Promise<void> | undefined;
  return {
    db,
    pool,
    close: () => (closed ??= pool.end()),
  };
}

/** Throws unless the pool's sessions are read-only (a reader checks it once before it serves). */
export async function assertReadOnlySession(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ value: string }>("select current_setting('default_transaction_read_only') as value");
  if (rows[0]?.value !== 'on') throw new Error('the database session is not read-only (default_transaction_read_only is off)');
}
