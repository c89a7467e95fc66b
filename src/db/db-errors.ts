/**
 * Telling a database that is unwell from a row it refuses. A transient failure (the connection
 * went, the server restarts, a deadlock, too many clients) is retried as a whole; a refused row
 * (a data exception, a constraint, a limit) would fail every retry the same way, so the rows of a
 * batch are then stored one by one and only the one that fails is set apart.
 *
 * Not transient, though they say nothing about a row's shape: the server running out of memory
 * or disk, or its internal errors (SQLSTATE classes 53 and XX), and this process running out of
 * memory or string length (a RangeError). They follow what one site's night asks for (a huge
 * body, a huge array), so a retried batch would meet them again: the site is isolated instead.
 */

import { DrizzleQueryError } from 'drizzle-orm';

/** SQLSTATE classes that say nothing about the rows: connection, operator, rollback, system. */
const TRANSIENT_SQLSTATE_CLASSES = new Set(['08', '40', '55', '57', '58']);
/** 53300 too_many_connections: the only resource error that is about the server, not the work asked of it. */
const TRANSIENT_SQLSTATES = new Set(['53300']);

export function isTransientDbError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  // drizzle wraps what node-postgres threw ("Failed query: ..."), keeping it as the cause: judge
  // that. Without this, a query of a drizzle repo on a connection the server ended (57P01) read
  // as a refused row.
  if (err instanceof DrizzleQueryError && err.cause instanceof Error) return isTransientDbError(err.cause);
  // "Invalid string length", "Invalid array length", an allocation that failed: this site's size.
  if (err instanceof RangeError || /out of memory|heap/i.test(err.message)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return TRANSIENT_SQLSTATES.has(code) || TRANSIENT_SQLSTATE_CLASSES.has(code.slice(0, 2));
  // No SQLSTATE: the socket itself (ECONNREFUSED, ECONNRESET, ETIMEDOUT, ...) or node-postgres's own
  // "Connection terminated" / pool timeouts, or Redis (ioredis) being away.
  if (typeof code === 'string' && code.startsWith('E')) return true;
  return /connection|terminated|timeout|Redis|ECONN|socket/i.test(`${err.name} ${err.message}`);
}
