/**
 * A private Postgres database per integration test file, cloned from a migrated template.
 *
 * The global setup (global-setup.ts) builds `robots_audit_template_<hash of migrations/>` once,
 * with `prepareDatabase` (the migrations, then the shipped crawler catalogue), under an advisory
 * lock (several vitest processes may start at once).
 * `createTestDatabase()` then runs `CREATE DATABASE test_<random> TEMPLATE <template>`: a copy
 * of a migrated schema in milliseconds, no two files sharing one. Postgres refuses to copy a
 * database someone is connected to, so the template is closed to connections once built.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { config } from '../../src/config/env.js';
import type { Database } from '../../src/db/client.js';
import { createDb } from '../../src/db/client.js';
import { MIGRATIONS_FOLDER } from '../../src/db/migrate.js';
import { prepareDatabase } from '../../src/services/prepare-database.js';

const TEMPLATE_PREFIX = 'robots_audit_template_';
const BUILD_PREFIX = 'robots_audit_build_';
/** Serialises template builds across processes ("rbtstmpl" in ASCII). */
const TEMPLATE_LOCK_KEY = '8242278307264819308';
/** Postgres SQLSTATE 55006 (object_in_use): a connection to the source is still closing. */
const OBJECT_IN_USE = '55006';
/** SQLSTATE 3D000 (invalid_catalog_name): the template does not exist (no global setup ran). */
const UNKNOWN_DATABASE = '3D000';
const BUSY_RETRIES = 50;
const BUSY_RETRY_MS = 100;

/** The server's maintenance connection: DATABASE_URL (database `test` by default). */
function adminUrl(): string {
  return config().DATABASE_URL;
}

export function databaseUrl(name: string, base: string = adminUrl()): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Every file under migrations/ (SQL and journal): a new or changed migration gives a new template. */
export function migrationsHash(folder: string = MIGRATIONS_FOLDER): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(path.relative(folder, full)).update('\0').update(fs.readFileSync(full)).update('\0');
    }
  };
  walk(folder);
  return hash.digest('hex').slice(0, 16);
}

/** The shipped crawler catalogue: the template holds it too, so a new one gives a new template. */
const CATALOGUE_FILE = fileURLToPath(new URL('../../src/crawlers/catalogue.json', import.meta.url));

export function templateName(): string {
  const catalogue = createHash('sha256').update(fs.readFileSync(CATALOGUE_FILE)).digest('hex').slice(0, 8);
  return `${TEMPLATE_PREFIX}${migrationsHash()}_${catalogue}`;
}

async function withAdmin<T>(fn: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: adminUrl(), application_name: 'robots-audit test-db' });
  admin.on('error', () => {});
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

function sqlState(err: unknown): string | undefined {
  return err && typeof err === 'object' && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

/** Retries a statement that fails while a just-closed connection to its database is still exiting. */
async function retryWhileBusy<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (sqlState(err) !== OBJECT_IN_USE || attempt >= BUSY_RETRIES) throw err;
      await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS));
    }
  }
}

/**
 * Builds the template for the current migrations unless it exists; drops templates of older
 * migrations and leftovers of interrupted builds. Returns the template's name.
 */
export async function ensureTemplateDatabase(): Promise<string> {
  const name = templateName();
  await withAdmin(async (admin) => {
    await admin.query('select pg_advisory_lock($1::bigint)', [TEMPLATE_LOCK_KEY]);
    try {
      const { rows } = await admin.query<{ datname: string }>('select datname from pg_database');
      const names = rows.map((r) => r.datname);
      for (const stale of names.filter((n) => n.startsWith(BUILD_PREFIX) || (n.startsWith(TEMPLATE_PREFIX) && n !== name))) {
        await admin.query(`drop database if exists ${quoteIdent(stale)} with (force)`);
      }
      if (names.includes(name)) return;
      // Built under another name and renamed when complete: a crash mid-build leaves no
      // half-migrated template behind under the real name.
      const build = `${BUILD_PREFIX}${randomBytes(6).toString('hex')}`;
      await admin.query(`create database ${quoteIdent(build)} template template0`);
      await prepareDatabase(databaseUrl(build));
      await retryWhileBusy(() => admin.query(`alter database ${quoteIdent(build)} allow_connections false`));
      await retryWhileBusy(() => admin.query(`alter database ${quoteIdent(build)} rename to ${quoteIdent(name)}`));
    } finally {
      await admin.query('select pg_advisory_unlock($1::bigint)', [TEMPLATE_LOCK_KEY]);
    }
  });
  return name;
}

export interface TestDatabase {
  name: string;
  url: string;
  db: Database;
  pool: pg.Pool;
  /** Closes the pool and drops the database. */
  close(): Promise<void>;
}

export interface CreateTestDatabaseOptions {
  /** An empty database (from template0), not migrated: for migration tests. */
  empty?: boolean;
}

export async function createTestDatabase(options: CreateTestDatabaseOptions = {}): Promise<TestDatabase> {
  const name = `test_${randomBytes(8).toString('hex')}`;
  const create = (template: string) => withAdmin((admin) => retryWhileBusy(() => admin.query(`create database ${quoteIdent(name)} template ${quoteIdent(template)}`)));
  if (options.empty) {
    await create('template0');
  } else {
    try {
      await create(templateName());
    } catch (err) {
      if (sqlState(err) !== UNKNOWN_DATABASE) throw err;
      await create(await ensureTemplateDatabase());
    }
  }
  const url = databaseUrl(name);
  const handle = createDb(url, { max: 4, applicationName: 'robots-audit test' });
  return {
    name,
    url,
    db: handle.db,
    pool: handle.pool,
    close: async () => {
      await handle.close();
      await withAdmin((admin) => admin.query(`drop database if exists ${quoteIdent(name)} with (force)`));
    },
  };
}
