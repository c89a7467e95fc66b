/**
 * A site's night in the history (`snapshots`, one row a site and run: the row whose insert
 * decides that a night is stored) and the attempts of a night left open for a retry
 * (`failed_attempts`).
 */
import type pg from 'pg';
import type { FailedAttemptRow, SiteNight, SnapshotRow } from '../../night/rows.js';
import { pgText } from '../pg-text.js';
import { unnestInsert, unnestValues } from '../pg-unnest.js';
import type { ColumnMap } from '../pg-unnest.js';
import type { StoredIds } from './bodies.js';
import { nightKey } from './store-result.js';

/** A row with the batch's ids, which its references resolve to. */
interface WithIds<T> {
  row: T;
  ids: StoredIds;
}

const ATTEMPT_COLUMNS: ColumnMap<WithIds<FailedAttemptRow>> = [
  { name: 'started_at', type: 'timestamptz', value: ({ row }) => row.startedAt },
  { name: 'site_id', type: 'int', value: ({ row }) => row.siteId },
  { name: 'run_id', type: 'int', value: ({ row }) => row.runId },
  { name: 'duration_ms', type: 'int', value: ({ row }) => row.durationMs },
  { name: 'response_id', type: 'int', value: ({ row, ids }) => ids.response(row.response) },
  { name: 'full_size', type: 'int', value: ({ row }) => row.fullSize },
  { name: 'outcome', type: 'fetch_outcome', value: ({ row }) => row.outcome },
  { name: 'attempt', type: 'smallint', value: ({ row }) => row.attempt },
  { name: 'status', type: 'smallint', value: ({ row }) => row.status },
  { name: 'error_code', type: 'text', value: ({ row }) => pgText(row.errorCode) },
  { name: 'error_message', type: 'text', value: ({ row }) => pgText(row.errorMessage) },
];

const INSERT_ATTEMPTS = unnestInsert('failed_attempts', ATTEMPT_COLUMNS, 'on conflict do nothing');

export async function storeFailedAttempts(db: pg.PoolClient, attempts: readonly FailedAttemptRow[], ids: StoredIds): Promise<void> {
  if (attempts.length === 0) return;
  const rows = attempts.map((row) => ({ row, ids }));
  await db.query({ name: 'night-insert-failed-attempts', text: INSERT_ATTEMPTS, values: unnestValues(ATTEMPT_COLUMNS, rows) });
}

const SNAPSHOT_COLUMNS: ColumnMap<WithIds<SnapshotRow>> = [
  { name: 'run_at', type: 'timestamptz', value: ({ row }) => row.runAt },
  { name: 'fetched_at', type: 'timestamptz', value: ({ row }) => row.fetchedAt },
  { name: 'unreachable_since', type: 'timestamptz', value: ({ row }) => row.unreachableSince },
  { name: 'site_id', type: 'int', value: ({ row }) => row.siteId },
  { name: 'run_id', type: 'int', value: ({ row }) => row.runId },
  { name: 'duration_ms', type: 'int', value: ({ row }) => row.durationMs },
  { name: 'body_id', type: 'int', value: ({ row, ids }) => ids.body(row.body) },
  { name: 'response_id', type: 'int', value: ({ row, ids }) => ids.response(row.response) },
  { name: 'rules_run_id', type: 'int', value: ({ row }) => row.rulesRunId },
  { name: 'cache_lifetime_seconds', type: 'int', value: ({ row }) => row.cacheLifetimeSeconds },
  { name: 'full_size', type: 'int', value: ({ row }) => row.fullSize },
  { name: 'outcome', type: 'fetch_outcome', value: ({ row }) => row.outcome },
  { name: 'policy', type: 'effective_policy', value: ({ row }) => row.policy },
  { name: 'status', type: 'smallint', value: ({ row }) => row.status },
  { name: 'attempts', type: 'smallint', value: ({ row }) => row.attempts },
  { name: 'truncated', type: 'bool', value: ({ row }) => row.truncated },
  { name: 'policy_reason', type: 'text', value: ({ row }) => row.policyReason },
  { name: 'error_code', type: 'text', value: ({ row }) => pgText(row.errorCode) },
  { name: 'error_message', type: 'text', value: ({ row }) => pgText(row.errorMessage) },
  { name: 'flapping', type: 'bool', value: ({ row }) => row.flapping },
  { name: 'confirm_sha256', type: 'bytea', value: ({ row }) => row.confirmSha256 },
];

const INSERT_SNAPSHOTS = unnestInsert('snapshots', SNAPSHOT_COLUMNS, 'on conflict do nothing returning site_id, run_id');

/**
 * Inserts the nights' snapshots; returns the nights this call inserted, once each. A night stored
 * before (a job run twice) wrote the rest then, and two jobs of one process may hand in the same
 * night together: only the first goes on.
 */
export async function storeSnapshots(db: pg.PoolClient, nights: readonly SiteNight[], ids: StoredIds): Promise<SiteNight[]> {
  if (nights.length === 0) return [];
  const rows = nights.map((n) => ({ row: n.snapshot, ids }));
  const inserted = await db.query<{ site_id: number; run_id: number }>({
    name: 'night-insert-snapshots',
    text: INSERT_SNAPSHOTS,
    values: unnestValues(SNAPSHOT_COLUMNS, rows),
  });
  const stored = new Set(inserted.rows.map((r) => nightKey(r.site_id, r.run_id)));
  const fresh: SiteNight[] = [];
  for (const n of nights) {
    // Deleting the key takes each night once.
    if (stored.delete(nightKey(n.siteId, n.runId))) fresh.push(n);
  }
  return fresh;
}
