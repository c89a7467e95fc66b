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

const journalTags = readJournal().map((e) => e.tag);
const TABLES = [
  'portfolios',
  'sites',
  'portfolio_sites',
  'audit_runs',
  'bodies',
  'fetch_attempts',
  'snapshots',
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

  it('creates the site_latest view', async () => {
    const rows = await target.db.execute<{ n: string }>(sql`select count(*) as n from pg_views where viewname = 'site_latest'`);
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
    expect(first).toEqual({ code: 0, stdout: journalTags.map((t) => `applied ${t}\n`).join(''), stderr: '' });
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
