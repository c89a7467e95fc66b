/**
 * Migration 0015 (bot challenges and flapping) on a database filled as the release before it
 * left it: every site state and night carries over as it was, with no challenge, not flapping,
 * no recent versions yet; `challenged` is a fetch outcome after the others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseBefore } from '../../helpers/migrations-before.js';
import type { DatabaseBefore } from '../../helpers/migrations-before.js';
import type { TestDatabase } from '../../helpers/test-db.js';

let db: TestDatabase;
let old: DatabaseBefore | undefined;
let statesBefore: Record<string, unknown>[];
let snapshotsBefore: Record<string, unknown>[];

const q = async <T extends Record<string, unknown>>(text: string) => (await db.pool.query<T>(text)).rows;
const STATES = 'select * from site_state order by site_id';
const SNAPSHOTS = 'select * from snapshots order by site_id, run_at';

beforeAll(async () => {
  old = await databaseBefore('0015_');
  db = old.db;
  await db.pool.query(`
    insert into sites (id, origin) values (1, 'https://shop.example'), (2, 'https://down.example');
    insert into audit_runs (id, run_key, trigger, run_at, status, sites_total) values (1, 'nightly-2026-11-01', 'scheduled', '2026-11-01T03:00Z', 'completed', 2);
    insert into snapshots (run_at, fetched_at, site_id, run_id, duration_ms, outcome, policy, status, attempts, policy_reason)
      values ('2026-11-01T03:00Z', '2026-11-01T03:00:01Z', 1, 1, 12, 'unavailable', 'allow_all', 403, 1, 'R-12'),
             ('2026-11-01T03:00Z', '2026-11-01T03:00:01Z', 2, 1, 30, 'server_error', 'disallow_all', 503, 3, 'R-13');
    insert into site_state (site_id, run_id, run_at, outcome, status, policy, policy_reason, unreachable_since, eval_key, failed_nights)
      values (1, 1, '2026-11-01T03:00Z', 'unavailable', 403, 'allow_all', 'R-12', null, '\\x01', 0),
             (2, 1, '2026-11-01T03:00Z', 'server_error', 503, 'disallow_all', 'R-13', '2026-11-01T03:00Z', '\\x02', 1);`);
  statesBefore = await q(STATES);
  snapshotsBefore = await q(SNAPSHOTS);
  await old.upgrade();
}, 60_000);

afterAll(async () => {
  await old?.close();
});

const without = (rows: Record<string, unknown>[], columns: string[]) => rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !columns.includes(k))));

describe('0015: challenges and flapping', () => {
  it('every site state as it was: no challenge, not flapping, no versions yet', async () => {
    const after = await q(STATES);
    expect(without(after, ['challenged_since', 'flapping_since', 'stable_nights', 'recent_versions'])).toEqual(statesBefore);
    for (const r of after) expect(r).toMatchObject({ challenged_since: null, flapping_since: null, stable_nights: 0, recent_versions: [] });
  });

  it('every night as it was, not flapping, with no confirmation', async () => {
    const after = await q(SNAPSHOTS);
    expect(without(after, ['flapping', 'confirm_sha256'])).toEqual(snapshotsBefore);
    for (const r of after) expect(r).toMatchObject({ flapping: false, confirm_sha256: null });
  });

  it('challenged comes after the other outcomes', async () => {
    const outcomes = (await q<{ o: string }>('select unnest(enum_range(null::fetch_outcome))::text as o')).map((r) => r.o);
    expect(outcomes.at(-1)).toBe('challenged');
  });
});
