/**
 * The node-postgres pool every database handle stands on, without drizzle: commands that only
 * read a few rows with plain SQL (`test-draft`) open one of these and skip loading the ORM and
 * the schema (about 100 ms of a command's start-up, docs/benchmarks.md).
 */
import pg from 'pg';

export interface CreatePoolOptions {
  /** Pool size. */
  max?: number;
  /** Shown in pg_stat_activity, so an operator can tell the workers' connections apart. */
  applicationName?: string;
  /** Every session read-only (`default_transaction_read_only`): a reader that cannot write (the dashboard). */
  readOnly?: boolean;
  /** How long getting a connection may take (node-postgres: 0, no limit). */
  connectionTimeoutMillis?: number;
}

/** Default pool size: enough for a worker's concurrent jobs without exhausting the server. */
export const DEFAULT_POOL_MAX = 10;

export function createPool(url: string, options: CreatePoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? DEFAULT_POOL_MAX,
    application_name: options.applicationName ?? 'robots-audit',
    ...(options.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
    ...(options.connectionTimeoutMillis !== undefined ? { connectionTimeoutMillis: options.connectionTimeoutMillis } : {}),
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
  return pool;
}
