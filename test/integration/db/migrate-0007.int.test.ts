/**
 * Migration 0007 (portfolio schedules) on a database filled as 0006 left it: every portfolio,
 * membership and run carries over, with no schedule; the new columns take a schedule whole or
 * not at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseBefore } from '../../helpers/migrations-before.js';
import type { DatabaseBefore } from '../../helpers/migrations-before.js';
import type { TestDatabase } from '../../helpers/test-db.js';

let db: TestDatabase;
let old: DatabaseBefore | undefined;
let beforeRows: { portfolios: unknown[]; members: unknown[]; runs: unknown[] };

const q = async <T extends Record<string, unknown>>(text: string) => (await db.pool.query<T>(text)).rows;

beforeAll(async () => {
  old = await databaseBefore('0007_');
  db = old.db;
  await db.pool.query(`
    insert into portfolios (id, name, extra_user_agents) values (1, 'clients', '{GPTBot}'), (2, 'brands', '{}');
    insert into sites (id, origin) values (1, 'https://a.example'), (2, 'https://b.example');
    insert into portfolio_sites (portfolio_id, site_id) values (1, 1), (1, 2), (2, 2);
    insert into audit_runs (id, run_key, trigger, run_at, portfolio_id, status, sites_total)
      values (1, 'nightly-2026-11-01', 'scheduled', '2026-11-01T03:00Z', null, 'completed', 2),
             (2, 'at-2026-11-02T03:00:00.000Z-clients', 'manual', '2026-11-02T03:00Z', 1, 'completed', 2);`);
  beforeRows = {
    portfolios: await q('select id, name, extra_user_agents, created_at from portfolios order by id'),
    members: await q('select * from portfolio_sites order by portfolio_id, site_id'),
    runs: await q('select id, run_key, portfolio_id from audit_runs order by id'),
  };
  await old.upgrade();
}, 60_000);

afterAll(async () => {
  await old?.close();
});

describe('0007: portfolios carried over', () => {
  it('every portfolio, membership and run as it was', async () => {
    expect(await q('select id, name, extra_user_agents, created_at from portfolios order by id')).toEqual(beforeRows.portfolios);
    expect(await q('select * from portfolio_sites order by portfolio_id, site_id')).toEqual(beforeRows.members);
    expect(await q('select id, run_key, portfolio_id from audit_runs order by id')).toEqual(beforeRows.runs);
  });

  it('with no schedule', async () => {
    expect(await q('select name, schedule_cron, schedule_timezone from portfolios order by id')).toEqual([
      { name: 'clients', schedule_cron: null, schedule_timezone: null },
      { name: 'brands', schedule_cron: null, schedule_timezone: null },
    ]);
  });

  it('a schedule is stored whole, or not at all', async () => {
    await db.pool.query("update portfolios set schedule_cron = '*/15 * * * *', schedule_timezone = 'Europe/Paris' where id = 1");
    await expect(db.pool.query("update portfolios set schedule_timezone = null where id = 1")).rejects.toThrow(/portfolios_schedule_complete/);
    await expect(db.pool.query("update portfolios set schedule_cron = '0 3 * * *' where id = 2")).rejects.toThrow(/portfolios_schedule_complete/);
  });
});
