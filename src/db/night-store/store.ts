/**
 * Storing many sites' nights and retried attempts in one transaction, table family by family,
 * each a multi-row statement or two. The order is the one every writer takes its locks in.
 */
import type pg from 'pg';
import type { FailedAttemptRow, SiteNight } from '../../night/rows.js';
import { raiseAlerts } from './alerts.js';
import { storeSharedRows } from './bodies.js';
import { storeChanges } from './changes.js';
import { countRuns } from './run-counts.js';
import { storeFailedAttempts, storeSnapshots } from './snapshots.js';
import { storeFlips, storeSpans, storeUsageFlips } from './spans.js';
import { storeStates } from './state.js';
import { nightKey } from './store-result.js';
import type { StoreResult } from './store-result.js';

/**
 * Stores nights and retried attempts in one transaction on `client` (checked out of the pool by
 * the caller). Returns what was stored; throws (after rolling back) on any database error.
 */
export async function storeNights(client: pg.PoolClient, nights: readonly SiteNight[], attempts: readonly FailedAttemptRow[]): Promise<StoreResult> {
  await client.query('begin');
  try {
    const result = await storeInTransaction(client, nights, attempts);
    if (result.stale.size > 0) {
      // A racing writer moved some sites on: keep nothing, so the caller can store the rest alone.
      await client.query('rollback');
      return result;
    }
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  }
}

async function storeInTransaction(db: pg.PoolClient, nights: readonly SiteNight[], attempts: readonly FailedAttemptRow[]): Promise<StoreResult> {
  const result: StoreResult = { stored: new Set(), stale: new Set(), deliveryIds: [], runsToFinish: [] };
  const ids = await storeSharedRows(db, nights, attempts);
  await storeFailedAttempts(db, attempts, ids);
  // Only the nights this call inserted go on: the others' rows were written with them.
  const fresh = await storeSnapshots(db, nights, ids);
  for (const n of fresh) result.stored.add(nightKey(n.siteId, n.runId));
  if (fresh.length > 0) {
    for (const key of await storeStates(db, fresh, ids)) result.stale.add(key);
    if (result.stale.size > 0) return result;
    await storeChanges(db, fresh);
    await storeSpans(db, fresh);
    await storeFlips(db, fresh);
    await storeUsageFlips(db, fresh);
    result.deliveryIds = await raiseAlerts(db, fresh);
  }
  await countRuns(db, fresh, attempts, result);
  return result;
}
