/**
 * The overview's counts and lists (src/reports/web-overview.ts): the counts of every site come
 * from site_counts (migration 0022), those of a search from the tables; both say the same of the
 * same sites, and a list the counts say is empty (a card no site is in, a page past the end) has
 * no rows, whichever way it is found.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overviewPage } from '../../../src/reports/web-overview.js';
import type { OverviewQuery } from '../../../src/reports/web-overview.js';
import { createTestDatabase } from '../../helpers/test-db.js';
import type { TestDatabase } from '../../helpers/test-db.js';

const SITES = 120;
const AUDITED = 100;
let db: TestDatabase;

const query = (over: Partial<OverviewQuery> = {}): OverviewQuery => ({
  portfolioId: null,
  search: null,
  state: null,
  sort: 'site',
  descending: false,
  page: 1,
  pageSize: 50,
  ...over,
});

beforeAll(async () => {
  db = await createTestDatabase();
  // Every origin holds ".example": a search for it matches every site, and is counted from the tables.
  await db.pool.query(`
    insert into sites (origin) select 'https://s' || i || '.example' from generate_series(1, ${SITES}) as i;
    insert into audit_runs (run_key, trigger, run_at, status, sites_total) values ('nightly-1', 'scheduled', '2026-11-02T03:00Z', 'completed', ${AUDITED});
    insert into site_state (site_id, run_id, run_at, outcome, status, policy, policy_reason, failed_nights, last_change_run_id)
      select s.id, r.id, r.run_at, case when s.id % 10 = 0 then 'server_error' else 'ok' end::fetch_outcome, 200,
             case when s.id % 25 = 0 then 'disallow_all' else 'rules' end::effective_policy,
             case when s.id % 10 = 0 then 'D-3' else 'R-10' end, 0, case when s.id % 3 = 0 then r.id end
      from sites s, audit_runs r where s.id <= (select min(id) from sites) + ${AUDITED - 1};`);
}, 60_000);

afterAll(async () => {
  await db.close();
});

describe('the overview counts', () => {
  it('of every site (site_counts) are those the tables give for a search matching every site', async () => {
    const all = await overviewPage(db.pool, query());
    const searched = await overviewPage(db.pool, query({ search: '.example' }));
    expect(all.counts).toEqual(searched.counts);
    expect(all.counts).toMatchObject({ sites: SITES, audited: AUDITED, failing: 10, fallback: 10, disallowAll: 4, changedRecently: 33 });
  });

  it('follow a removed site and a new state in the same way', async () => {
    await db.pool.query(`delete from sites where origin = 'https://s10.example'`);
    await db.pool.query(`update site_state set outcome = 'unavailable', policy = 'allow_all', policy_reason = 'R-12' where site_id = (select id from sites where origin = 'https://s11.example')`);
    const all = await overviewPage(db.pool, query());
    expect(all.counts).toEqual((await overviewPage(db.pool, query({ search: '.example' }))).counts);
    expect(all.counts).toMatchObject({ sites: SITES - 1, audited: AUDITED - 1, failing: 9, unavailable: 1 });
  });
});

describe('the lists the counts say are empty', () => {
  it('a card no site is in: no rows', async () => {
    const flapping = await overviewPage(db.pool, query({ state: 'flapping' }));
    expect(flapping).toMatchObject({ matching: 0, rows: [] });
  });

  it('the sites never audited: listed by origin, and none once every site has a night', async () => {
    const never = await overviewPage(db.pool, query({ state: 'never' }));
    expect(never.matching).toBe(SITES - AUDITED);
    expect(never.rows.map((r) => r.outcome)).toEqual(Array(SITES - AUDITED).fill(null));
    await db.pool.query(`delete from sites s where not exists (select 1 from site_state x where x.site_id = s.id)`);
    expect(await overviewPage(db.pool, query({ state: 'never' }))).toMatchObject({ matching: 0, rows: [] });
  });

  it('a page past the end: no rows, sorted by site or by a night', async () => {
    for (const sort of ['site', 'status'] as const) expect((await overviewPage(db.pool, query({ sort, page: 9 }))).rows).toEqual([]);
    // The last page sorted by a night: the audited sites, then none never audited to add.
    const last = await overviewPage(db.pool, query({ sort: 'status', page: 2 }));
    expect(last.rows).toHaveLength(AUDITED - 1 - 50);
  });
});
