/**
 * Migration 0022 (site_counts: the overview's counts kept by triggers) on a database filled as the
 * release before it left it: the counts start as a count of the tables would say, and stay so
 * through every way sites and states are written (the night store's update and insert in one
 * statement, removals by cascade, truncation), before and after the rows are folded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseBefore } from '../../helpers/migrations-before.js';
import type { DatabaseBefore } from '../../helpers/migrations-before.js';
import type { TestDatabase } from '../../helpers/test-db.js';

const SITES = 300;
let db: TestDatabase;
let old: DatabaseBefore | undefined;

const q = async <T extends Record<string, unknown>>(text: string) => (await db.pool.query<T>(text)).rows;

/** Sites, states and a few groups: each a condition, summed from site_counts and counted from the tables. */
const GROUPS: [string, string][] = [
  ['sites', 'not audited'],
  ['audited', 'audited'],
  ['ok', `audited and outcome = 'ok'`],
  ['fallback', `audited and policy_reason = 'D-3'`],
  ['changed', 'audited and last_change_run_id = 2'],
  ['unverified', 'audited and challenged_since is not null'],
  ['flapping', 'audited and flapping_since is not null'],
];

const numbers = (row: Record<string, string> | undefined) => Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)]));

async function summed(): Promise<Record<string, number>> {
  const [row] = await q<Record<string, string>>(`select ${GROUPS.map(([name, where]) => `coalesce(sum(n) filter (where ${where}), 0) as ${name}`).join(', ')} from site_counts`);
  return numbers(row);
}

async function counted(): Promise<Record<string, number>> {
  const [row] = await q<Record<string, string>>(`
    select ${GROUPS.map(([name, where]) => `count(*) filter (where ${where}) as ${name}`).join(', ')} from (
      select false as audited, null::fetch_outcome as outcome, null::text as policy_reason, null::int as last_change_run_id,
             null::timestamptz as challenged_since, null::timestamptz as flapping_since from sites
      union all
      select true, outcome, policy_reason, last_change_run_id, challenged_since, flapping_since from site_state) as t`);
  return numbers(row);
}

beforeAll(async () => {
  old = await databaseBefore('0022_');
  db = old.db;
  await db.pool.query(`
    insert into sites (id, origin) select i, 'https://s' || i || '.example' from generate_series(1, ${SITES}) as i;
    select setval(pg_get_serial_sequence('sites', 'id'), ${SITES});
    insert into audit_runs (id, run_key, trigger, run_at, status, sites_total)
      select n, 'nightly-' || n, 'scheduled', timestamptz '2026-11-01T03:00Z' + n * interval '1 day', 'completed', ${SITES} from generate_series(1, 3) n;
    insert into site_state (site_id, run_id, run_at, outcome, status, policy, policy_reason, failed_nights, last_change_run_id, challenged_since)
      select i, 1, '2026-11-02T03:00Z', case when i % 10 = 0 then 'server_error' else 'ok' end::fetch_outcome, 200,
             'rules', case when i % 10 = 0 then 'D-3' else 'R-10' end, 0, case when i % 3 = 0 then 2 end,
             case when i % 50 = 0 then timestamptz '2026-11-02T03:00Z' - (i || ' days')::interval end
      from generate_series(1, ${SITES - 50}) as i;`);
  await old.upgrade();
}, 60_000);

afterAll(async () => {
  await old?.close();
});

describe('0022: the overview counts kept as groups', () => {
  it('start as the tables count, in a few groups (however many sites)', async () => {
    expect(await summed()).toEqual(await counted());
    expect((await counted()).sites).toBe(SITES);
    // sites; ok with or without a change on night 2; server_error likewise; the challenged ones.
    expect(Number((await q<{ n: string }>('select count(*) as n from site_counts'))[0]!.n)).toBeLessThanOrEqual(8);
  });

  it('follow the night store: an update of existing states and an insert of new ones in one statement', async () => {
    await db.pool.query(`
      with v as (select i as site_id from generate_series(1, ${SITES}) as i where i % 4 = 0),
        updated as (
          update site_state st set run_id = 3, outcome = 'ok', policy_reason = 'R-10', last_change_run_id = 3, flapping_since = '2026-11-04T03:00Z'
          from v where st.site_id = v.site_id returning st.site_id
        ), inserted as (
          insert into site_state (site_id, run_id, run_at, outcome, policy, policy_reason, failed_nights)
          select site_id, 3, '2026-11-04T03:00Z', 'unavailable', 'allow_all', 'R-12', 0 from v
          on conflict (site_id) do nothing returning site_id
        )
      select (select count(*) from updated), (select count(*) from inserted)`);
    expect(await summed()).toEqual(await counted());
  });

  it('a night that changes no group adds no row', async () => {
    const rows = async () => Number((await q<{ n: string }>('select count(*) as n from site_counts'))[0]!.n);
    const before = await rows();
    await db.pool.query(`update site_state set run_id = 3, run_at = '2026-11-04T03:00Z', updated_at = now()`);
    expect(await rows()).toBe(before);
  });

  it('follow sites added (an upsert counts only the new ones) and removed (their states with them)', async () => {
    await db.pool.query(`insert into sites (origin) values ('https://new.example'), ('https://s1.example') on conflict (origin) do update set labels = sites.labels`);
    await db.pool.query(`delete from sites where id between 1 and 20`);
    expect(await summed()).toEqual(await counted());
    expect((await summed()).sites).toBe(SITES - 20 + 1);
  });

  it('fold into one row a group, the sums unchanged', async () => {
    const sums = await summed();
    await db.pool.query('select robots_audit_fold_site_counts()');
    expect(await summed()).toEqual(sums);
    const { rows } = await db.pool.query<{ n: string }>(`
      select count(*) as n from site_counts
      group by audited, outcome, policy, policy_reason, last_change_run_id, challenged_since, flapping_since having count(*) > 1`);
    expect(rows).toEqual([]);
  });

  it('follow truncation', async () => {
    await db.pool.query('truncate site_state');
    expect(await summed()).toEqual(await counted());
    await db.pool.query('truncate sites cascade');
    expect(await summed()).toEqual({ sites: 0, audited: 0, ok: 0, fallback: 0, changed: 0, unverified: 0, flapping: 0 });
  });
});
