/**
 * Applying and checking the schema. `migrations/` holds drizzle-kit output (reviewed SQL); the
 * migrator records what it applied in `drizzle.__drizzle_migrations`, one row per journal entry,
 * keyed by the entry's `when` timestamp.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { packageRoot } from '../package-root.js';
import type { Executor } from './client.js';

/**
 * The package's migrations, found from the package's root rather than the working directory or
 * this file's depth (which differs between src/ and dist/src/).
 */
export const MIGRATIONS_FOLDER = path.join(packageRoot(import.meta.url), 'migrations');

/**
 * Key of the session advisory lock every migrating process takes, so two deploys (or two test
 * workers) migrating at once serialise: the second waits, then finds nothing to do. Arbitrary,
 * fixed: the ASCII of "robotsDB" as a signed bigint.
 */
export const MIGRATION_LOCK_KEY = '8245917673573270594';

const MIGRATIONS_TABLE = 'drizzle.__drizzle_migrations';

export interface JournalEntry {
  idx: number;
  /** Milliseconds; what the migrator stores as `created_at`. */
  when: number;
  tag: string;
}

export function readJournal(migrationsFolder: string = MIGRATIONS_FOLDER): JournalEntry[] {
  const file = path.join(migrationsFolder, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: JournalEntry[] };
  return journal.entries;
}

export class DatabaseNotMigratedError extends Error {
  constructor(readonly pending: string[]) {
    super('database is not migrated: run `robots-audit db migrate`');
    this.name = 'DatabaseNotMigratedError';
  }
}

/** Enough of a database to run raw SQL: a `Database`, a transaction, or drizzle on one client. */
type SqlRunner = Pick<Executor, 'execute'>;

/** The `when` of every applied migration; empty when the migrations table does not exist yet. */
async function appliedMigrationTimes(db: SqlRunner): Promise<Set<number>> {
  const exists = await db.execute<{ table: string | null }>(sql`select to_regclass(${MIGRATIONS_TABLE})::text as "table"`);
  if (exists.rows[0]?.table == null) return new Set();
  const rows = await db.execute<{ created_at: string }>(sql`select created_at from drizzle.__drizzle_migrations`);
  return new Set(rows.rows.map((r) => Number(r.created_at)));
}

/** Journal entries not applied to the database, by tag. */
export async function pendingMigrations(db: SqlRunner, migrationsFolder: string = MIGRATIONS_FOLDER): Promise<string[]> {
  const applied = await appliedMigrationTimes(db);
  return readJournal(migrationsFolder)
    .filter((e) => !applied.has(e.when))
    .map((e) => e.tag);
}

/** Workers and CLI commands call this at startup: a clear error instead of "relation does not exist". */
export async function assertMigrated(db: SqlRunner, migrationsFolder: string = MIGRATIONS_FOLDER): Promise<void> {
  const pending = await pendingMigrations(db, migrationsFolder);
  if (pending.length > 0) throw new DatabaseNotMigratedError(pending);
}

export interface MigrationResult {
  /** Tags of the migrations this call applied, in order; empty when already up to date. */
  applied: string[];
}

/**
 * Applies pending migrations under a session advisory lock held on a dedicated connection; the
 * migrator runs on that same connection, in one transaction.
 */
export async function migrateDatabase(url: string, migrationsFolder: string = MIGRATIONS_FOLDER): Promise<MigrationResult> {
  const journal = readJournal(migrationsFolder);
  const client = new pg.Client({ connectionString: url, application_name: 'robots-audit migrate' });
  client.on('error', () => {}); // a dropped connection surfaces on the next query instead
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    try {
      const db = drizzle(client);
      const before = await appliedMigrationTimes(db);
      await migrate(db, { migrationsFolder });
      const after = await appliedMigrationTimes(db);
      return { applied: journal.filter((e) => after.has(e.when) && !before.has(e.when)).map((e) => e.tag) };
    } finally {
      // If the connection broke, the server already released the session's lock.
      await client.query('select pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end();
  }
}
