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
  /**
   * false: no JIT compilation in the pool's sessions (`jit=off`). A page's queries take
   * milliseconds; a plan with a high cost estimate (a scan of a year of changes that stops at
   * its first match) made Postgres spend 0.5 to 0.7 s compiling it (docs/benchmarks.md).
   */
  jit?: boolean;
  /**
   * Postgres ends a session idle inside a transaction for longer than this, rolling it back
   * (`idle_in_transaction_session_timeout`): the locks of a client frozen or cut off mid-transaction
   * go after this long instead of with its TCP connection, which may take hours. 0 or absent: none.
   */
  idleInTransactionMs?: number;
}

/** Default pool size: enough for a worker's concurrent jobs without exhausting the server. */
export const DEFAULT_POOL_MAX = 10;

/** The startup option that makes every transaction of a session read-only. */
const READ_ONLY_OPTION = '-c default_transaction_read_only=on';

/**
 * A connection string and startup options whose sessions are read-only whatever the string
 * says. node-postgres lets the string's `options` parameter replace the pool's `options`, so
 * `?options=-c default_transaction_read_only=off` would switch a reader to writing: the string's
 * options are taken out of it and ours are put after them (Postgres applies the last `-c` of a
 * setting). Options ending in a backslash would escape the space before ours, so they are refused.
 */
export function readOnlyConnection(url: string): { connectionString: string; options: string } {
  let given = '';
  let connectionString = url;
  if (/^postgres(ql)?:\/\//i.test(url)) {
    const parsed = new URL(url);
    given = parsed.searchParams.getAll('options').join(' ').trim();
    parsed.searchParams.delete('options');
    connectionString = parsed.toString();
  }
  if (/(^|[^\\])(\\\\)*\\$/.test(given)) throw new Error('the options of the database URL end with a backslash: refused for a read-only connection');
  return { connectionString, options: given === '' ? READ_ONLY_OPTION : `${given} ${READ_ONLY_OPTION}` };
}

export function createPool(url: string, options: CreatePoolOptions = {}): pg.Pool {
  const connection: { connectionString: string; options?: string } = options.readOnly ? readOnlyConnection(url) : { connectionString: url };
  if (options.jit === false) connection.options = `${connection.options ?? ''} -c jit=off`.trim();
  const pool = new pg.Pool({
    ...connection,
    max: options.max ?? DEFAULT_POOL_MAX,
    application_name: options.applicationName ?? 'robots-audit',
    ...(options.connectionTimeoutMillis !== undefined ? { connectionTimeoutMillis: options.connectionTimeoutMillis } : {}),
    ...(options.idleInTransactionMs ? { idle_in_transaction_session_timeout: options.idleInTransactionMs } : {}),
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
