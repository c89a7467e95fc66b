/**
 * A command that needs Postgres or Redis, with that service unreachable, prints one line and
 * exits non-zero before it writes anything: `robots-audit: cannot reach Redis at
 * redis://:***@127.0.0.1:<port>: ECONNREFUSED`, the password masked. Every such command, run
 * in-process (test/helpers/cli.ts) against a port nothing listens on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../../fixtures/webhook-receiver.js';
import { runCli } from '../../helpers/cli.js';
import { createTestDatabase } from '../../helpers/test-db.js';
import type { TestDatabase } from '../../helpers/test-db.js';
import { cleanupPrefix, uniquePrefix } from '../../helpers/test-queue.js';

let port = 0;
let db: TestDatabase;
const prefix = uniquePrefix();

beforeAll(async () => {
  port = await closedPort();
  db = await createTestDatabase();
});
afterAll(async () => {
  await cleanupPrefix('redis://127.0.0.1:6379', prefix);
  await db?.close();
});

const deadPostgres = () => `postgres://audit:hunter2@127.0.0.1:${port}/robots`;
const deadRedis = () => `redis://:s3cret@127.0.0.1:${port}`;

/** Every command that reads or writes the database, with arguments that get it as far as connecting. */
const POSTGRES_COMMANDS: [name: string, argv: string[], stdin?: string][] = [
  ['sites add', ['sites', 'add', 'example.com']],
  ['sites import', ['sites', 'import', '-'], 'url\nexample.com\n'],
  ['sites list', ['sites', 'list']],
  ['sites remove', ['sites', 'remove', 'example.com']],
  ['track', ['track', 'example.com', '/a']],
  ['untrack', ['untrack', 'example.com', '/a']],
  ['tracked', ['tracked']],
  ['agents list', ['agents', 'list']],
  ['agents add', ['agents', 'add', 'ExampleBot']],
  ['agents remove', ['agents', 'remove', 'ExampleBot']],
  ['alerts add', ['alerts', 'add', 'https://hooks.example.com/x']],
  ['alerts list', ['alerts', 'list']],
  ['alerts remove', ['alerts', 'remove', '1']],
  ['alerts test', ['alerts', 'test']],
  ['fetch --store', ['fetch', '--store', 'https://example.com']],
  ['prune', ['prune', '--before', '2020-01-01']],
  ['db migrate', ['db', 'migrate']],
  ['audit', ['audit']],
  ['audit --wait', ['audit', '--wait']],
  ['demo', ['demo']],
  ['stats', ['stats']],
  ['stats --json', ['stats', '--json']],
  ['portfolios list', ['portfolios', 'list']],
  ['portfolios schedule', ['portfolios', 'schedule', 'clients', '--cron', '*/15 * * * *']],
  ['portfolios schedule --off', ['portfolios', 'schedule', 'clients', '--off']],
];

/** Every command that uses the queues (Postgres reachable: the test's database). */
const REDIS_COMMANDS: [name: string, argv: string[]][] = [
  ['audit', ['audit']],
  ['audit --wait', ['audit', '--wait']],
  ['audit --work --wait', ['audit', '--work', '--wait']],
  ['demo', ['demo', '--database-name', 'robots_audit_demo_never']],
  ['stats', ['stats']],
  ['stats --json', ['stats', '--json']],
];

describe('Postgres unreachable: one line, exit 2, nothing on stdout', () => {
  it.each(POSTGRES_COMMANDS)('%s', async (_name, argv, stdin) => {
    const run = await runCli([...argv, '--database-url', deadPostgres()], { ...(stdin ? { stdin } : {}), env: { ROBOTS_AUDIT_QUEUE_PREFIX: prefix } });
    expect(run.stderr).toBe(`robots-audit: cannot reach Postgres at postgres://audit:***@127.0.0.1:${port}/robots: ECONNREFUSED\n`);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(2);
  });
});

describe('Redis unreachable: one line, exit 2, nothing written', () => {
  it.each(REDIS_COMMANDS)('%s', async (_name, argv) => {
    const run = await runCli([...argv, '--database-url', db.url, '--redis-url', deadRedis()], { env: { ROBOTS_AUDIT_QUEUE_PREFIX: prefix } });
    expect(run.stderr).toBe(`robots-audit: cannot reach Redis at redis://:***@127.0.0.1:${port}: ECONNREFUSED\n`);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(2);
    // Checked before the run is created: no run is left behind without its jobs.
    expect((await db.pool.query('select count(*)::int as n from audit_runs')).rows[0]).toEqual({ n: 0 });
  });

  it('demo checks before it drops and creates its database', async () => {
    const found = await db.pool.query("select 1 from pg_database where datname = 'robots_audit_demo_never'");
    expect(found.rowCount).toBe(0);
  });
});

describe('both reachable: the check lets the command through', () => {
  it('audit starts its run', async () => {
    const run = await runCli(['audit', '--database-url', db.url, '--redis-url', 'redis://127.0.0.1:6379'], { env: { ROBOTS_AUDIT_QUEUE_PREFIX: prefix, ROBOTS_AUDIT_LOG_LEVEL: 'silent' } });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^run \d+ \(manual-.+\) started: 0 sites\n$/);
    expect(run.code).toBe(0);
  });
});
