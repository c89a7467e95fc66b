/**
 * Telling a database that is unwell from a row it refuses. A transient failure (the connection
 * went, the server restarts, a deadlock, too many clients) is retried as a whole; a refused row
 * (a data exception, a constraint, a limit) would fail every retry the same way, so the rows of a
 * batch are then stored one by one and only the one that fails is set apart.
 */

/** SQLSTATE classes that say nothing about the rows: connection, resources, operator, system, rollback. */
const TRANSIENT_SQLSTATE_CLASSES = new Set(['08', '40', '53', '55', '57', '58', 'XX']);

export function isTransientDbError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return TRANSIENT_SQLSTATE_CLASSES.has(code.slice(0, 2));
  // No SQLSTATE: the socket itself (ECONNREFUSED, ECONNRESET, ETIMEDOUT, ...) or node-postgres's own
  // "Connection terminated" / pool timeouts, or Redis (ioredis) being away.
  if (typeof code === 'string' && code.startsWith('E')) return true;
  return /connection|terminated|timeout|Redis|ECONN|socket/i.test(`${err.name} ${err.message}`);
}
