/**
 * Migrations: applied under an advisory lock (two processes at once both succeed), checked at
 * startup by assertMigrated, and run by `robots-audit db migrate`.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseNotMigratedError, assertMigrated, migrateDatabase, readJournal } from '../../../src/db/migrate.js';
import { runCli } from '../../helpers/cli.js';
import type { TestDatabase } from '../../helpers/test-db.js';
import { createTestDatabase } from '../../helpers/test-db.js';
import { migrationsBefore } from '../../helpers/migrations-before.js';

const journalTags = readJournal().map((e) => e.tag);
const TABLES = [
  'portfolios',
  'sites',
  'portfolio_sites',
  'audit_runs',
  'bodies',
  'responses',
  'failed_attempts',
  'snapshots',
  'site_state',
  'snapshot_changes',
  'user_agents',
  'tracked_urls',
  'verdicts',
  'verdict_flips',
  'alerts',
  'alert_channels',
  'alert_deliveries',
];

const open: TestDatabase[] = [];
async function database(empty: boolean): Promise<TestDatabase> {
  const created = await createTestDatabase({ empty });
  open.push(created);
  return created;
}
afterAll(async () => {
  await Promise.all(open.map((d) => d.close()));
});

describe('migrateDatabase: concurrent processes', () => {
  let target: TestDatabase;
  let results: { applied: string[] }[];
  beforeAll(async () => {
    target = await database(true);
    // Two migrators start together on an empty database, as two deploys would.
    results = await Promise.all([migrateDatabase(target.url), migrateDatabase(target.url)]);
  });

  it('both succeed and the journal is applied exactly once between them', () => {
    expect(results.flatMap((r) => r.applied)).toEqual(journalTags);
    expect(results.map((r) => r.applied.length).sort()).toEqual([0, journalTags.length]);
  });

  it('records each migration once', async () => {
    const rows = await target.db.execute<{ n: string }>(sql`select count(*) as n from drizzle.__drizzle_migrations`);
    expect(Number(rows.rows[0]!.n)).toBe(journalTags.length);
  });

  it.each(TABLES)('creates table %s', async (table) => {
    const rows = await target.db.execute<{ t: string | null }>(sql`select to_regclass(${`public.${table}`})::text as t`);
    expect(rows.rows[0]!.t).toBe(table);
  });

  it.each(['site_latest', 'verdict_latest', 'verdict_history', 'fetch_attempts'])('creates the %s view', async (view) => {
    const rows = await target.db.execute<{ n: string }>(sql`select count(*) as n from pg_views where viewname = ${view}`);
    expect(Number(rows.rows[0]!.n)).toBe(1);
  });

  it('a third run finds nothing to do', async () => {
    expect(await migrateDatabase(target.url)).toEqual({ applied: [] });
  });
});

describe('assertMigrated', () => {
  it('throws a clear error on an empty database', async () => {
    const empty = await database(true);
    const check = assertMigrated(empty.db);
    await expect(check).rejects.toBeInstanceOf(DatabaseNotMigratedError);
    await expect(check).rejects.toThrow('database is not migrated: run `robots-audit db migrate`');
  });

  it('names the pending migrations', async () => {
    const empty = await database(true);
    const err = await assertMigrated(empty.db).catch((e: unknown) => e);
    expect((err as DatabaseNotMigratedError).pending).toEqual(journalTags);
  });

  it('passes on a migrated database', async () => {
    const migrated = await database(false);
    await expect(assertMigrated(migrated.db)).resolves.toBeUndefined();
  });
});

describe('robots-audit db migrate', () => {
  it('prints what it applied, then "already up to date"', async () => {
    const empty = await database(true);
    const first = await runCli(['db', 'migrate', '--database-url', empty.url]);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    // Then the shipped crawler catalogue joins the ten default agents the migrations seed.
    const applied = journalTags.map((t) => `applied ${t}\n`).join('');
    expect(first.stdout.startsWith(applied)).toBe(true);
    expect(first.stdout.slice(applied.length)).toMatch(/^added \d{3} crawlers of the catalogue\n$/);
    const second = await runCli(['db', 'migrate', '--database-url', empty.url]);
    expect(second).toEqual({ code: 0, stdout: 'already up to date\n', stderr: '' });
    await expect(assertMigrated(empty.db)).resolves.toBeUndefined();
  });

  it('commands refuse an unmigrated database with the message', async () => {
    const empty = await database(true);
    const run = await runCli(['sites', 'list', '--database-url', empty.url]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('database is not migrated: run `robots-audit db migrate`');
  });
});

describe('0003_run-diff-counter: runs that exist already get their diffed count', () => {
  it('sites_diffed is backfilled from the snapshots diffed so far', async () => {
    const before = migrationsBefore('0003_');
    const through = migrationsBefore('0004_');
    try {
      const target = await database(true);
      await migrateDatabase(target.url, before.folder);
      await target.pool.query(`
        insert into sites (id, origin) values (1, 'https://a.example'), (2, 'https://b.example'), (3, 'https://c.example');
        insert into audit_runs (id, run_key, trigger, run_at, sites_total) values (1, 'r1', 'manual', now(), 3), (2, 'r2', 'manual', now(), 3);
        insert into snapshots (run_id, site_id, fetched_at, outcome, attempts, policy, policy_reason, diffed_at)
          select r, s, now(), 'unavailable', 1, 'allow_all', 'R-12', case when s <= r then now() end
          from generate_series(1, 2) r, generate_series(1, 3) s;`);
      await migrateDatabase(target.url, through.folder);
      const rows = (await target.pool.query<{ id: number; sites_diffed: number }>('select id, sites_diffed from audit_runs order by id')).rows;
      expect(rows).toEqual([
        { id: 1, sites_diffed: 1 },
        { id: 2, sites_diffed: 2 },
      ]);
    } finally {
      before.remove();
      through.remove();
    }
  });
});
