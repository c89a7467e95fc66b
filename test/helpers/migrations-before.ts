/**
 * A migrations folder holding the migrations before a given one, and a database migrated through
 * them, for tests that fill a database as an older release left it and then upgrade it with the
 * current migrations.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS_FOLDER, migrateDatabase, readJournal } from '../../src/db/migrate.js';
import { createTestDatabase } from './test-db.js';
import type { TestDatabase } from './test-db.js';

export interface MigrationsBefore {
  folder: string;
  remove(): void;
}

/** The migrations before the one whose tag starts with `tagPrefix` (e.g. `0007_`). */
export function migrationsBefore(tagPrefix: string): MigrationsBefore {
  const entries = readJournal();
  const upTo = entries.findIndex((e) => e.tag.startsWith(tagPrefix));
  if (upTo === -1) throw new Error(`no migration ${tagPrefix}* in the journal`);
  if (upTo === 0) throw new Error(`no migration comes before ${tagPrefix}*`);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `migrations-before-${tagPrefix}`));
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as { entries: unknown[] };
  fs.mkdirSync(path.join(folder, 'meta'));
  fs.writeFileSync(path.join(folder, 'meta/_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, upTo) }));
  for (const e of entries.slice(0, upTo)) fs.copyFileSync(path.join(MIGRATIONS_FOLDER, `${e.tag}.sql`), path.join(folder, `${e.tag}.sql`));
  return { folder, remove: () => fs.rmSync(folder, { recursive: true, force: true }) };
}

/** A database as the release before a migration left it. */
export interface DatabaseBefore {
  db: TestDatabase;
  /** Applies every migration, the one under test included. */
  upgrade(): Promise<void>;
  /** Drops the database and the migrations folder. */
  close(): Promise<void>;
}

/** An empty test database migrated through the migrations before the one whose tag starts with `tagPrefix`. */
export async function databaseBefore(tagPrefix: string): Promise<DatabaseBefore> {
  const before = migrationsBefore(tagPrefix);
  let db: TestDatabase | undefined;
  const close = async () => {
    before.remove();
    await db?.close();
  };
  try {
    db = await createTestDatabase({ empty: true });
    await migrateDatabase(db.url, before.folder);
  } catch (err) {
    await close();
    throw err;
  }
  const migrated = db;
  return {
    db: migrated,
    upgrade: async () => {
      await migrateDatabase(migrated.url);
    },
    close,
  };
}
