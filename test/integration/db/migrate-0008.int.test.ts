/**
 * Migration 0008 (site_state fillfactor 50) on a database filled as 0007 left it: every state row
 * carries over as it was; the table keeps half of each new page free, so the nightly update of a
 * site's state can stay on its page (a HOT update, no new index entry).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseBefore } from '../../helpers/migrations-before.js';
import type { DatabaseBefore } from '../../helpers/migrations-before.js';
import type { TestDatabase } from '../../helpers/test-db.js';

const SITES = 2_000;
let db: TestDatabase;
let old: DatabaseBefore | undefined;
let beforeRows: unknown[];

const q = async <T extends Record<string, unknown>>(text: string) => (await db.pool.query<T>(text)).rows;
const STATES = 'select * from site_state order by site_id';

beforeAll(async () => {
  old = await databaseBefore('0008_');
  db = old.db;
  await db.pool.query(`
    insert into sites (id, origin) select i, 'https://s' || i || '.example' from generate_series(1, ${SITES}) as i;
    insert into audit_runs (id, run_key, trigger, run_at, status, sites_total)
      values (1, 'nightly-2026-11-01', 'scheduled', '2026-11-01T03:00Z', 'completed', ${SITES});
    insert into site_state (site_id, run_id, run_at, outcome, status, policy, policy_reason, eval_key, failed_nights, updated_at)
      select i, 1, '2026-11-01T03:00Z', 'ok', 200, 'rules', 'R-10', sha256(i::text::bytea), 0, '2026-11-01T03:01Z'
      from generate_series(1, ${SITES}) as i;`);
  beforeRows = await q(STATES);
  await old.upgrade();
}, 60_000);

afterAll(async () => {
  await old?.close();
});

describe('0008: site_state keeps room for the nightly update', () => {
  it('every state row as it was', async () => {
    // Columns later migrations added (0015: challenges and flapping) are left out of the comparison.
    const later = ['challenged_since', 'flapping_since', 'stable_nights', 'recent_versions'];
    const asBefore = (await q(STATES)).map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !later.includes(k))));
    expect(asBefore).toEqual(beforeRows);
  });

  it('the table asks for half-full pages', async () => {
    expect(await q("select reloptions from pg_class where relname = 'site_state'")).toEqual([{ reloptions: ['fillfactor=50'] }]);
  });

  it('rows written after it: a night of updates leaves every row on its page (room for HOT updates)', async () => {
    await db.pool.query('truncate site_state');
    await db.pool.query(`
      insert into site_state (site_id, run_id, run_at, outcome, status, policy, policy_reason, eval_key, failed_nights)
      select i, 1, '2026-11-01T03:00Z', 'ok', 200, 'rules', 'R-10', sha256(i::text::bytea), 0 from generate_series(1, ${SITES}) as i`);
    const pages = `select site_id, (ctid::text::point)[0] as page from site_state order by site_id`;
    const first = await q<{ site_id: number; page: number }>(pages);
    await db.pool.query(`update site_state set run_id = 1, run_at = '2026-11-02T03:00Z', updated_at = now()`);
    // With full pages (fillfactor 100) each new row version would go to another page.
    expect(await q(pages)).toEqual(first);
  });
});
