/**
 * `robots-audit demo`, the README's first command: the whole pipeline over three nights on a
 * loopback web, into a database of its own (here a throwaway name, dropped after), with its
 * Redis keys removed at the end.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { config } from '../../../src/config/env.js';
import { runCli } from '../../helpers/cli.js';
import type { CliRun } from '../../helpers/cli.js';
import { databaseUrl } from '../../helpers/test-db.js';

const name = `test_demo_${randomBytes(6).toString('hex')}`;
const adminUrl = config().DATABASE_URL;
const redisUrl = config().REDIS_URL;

afterAll(async () => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
  } finally {
    await admin.end();
  }
});

describe('robots-audit demo', () => {
  let run: CliRun;
  let keysBefore: number;
  const demoKeys = async () => {
    const redis = new Redis(redisUrl);
    try {
      let cursor = '0';
      let n = 0;
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', 'robots-audit-demo-*', 'COUNT', 1000);
        cursor = next;
        n += keys.length;
      } while (cursor !== '0');
      return n;
    } finally {
      await redis.quit();
    }
  };

  it('replays three nights and exits 0', async () => {
    keysBefore = await demoKeys();
    run = await runCli(['demo', '--database-name', name], { env: { DATABASE_URL: adminUrl, REDIS_URL: redisUrl } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`== database ${name}: recreated and migrated`);
    for (const night of [1, 2, 3]) expect(run.stdout).toContain(`== night ${night}:`);
    expect(run.stdout).toMatch(/== \d+ alerts delivered to the signed webhook; everything is in test_demo_/);
  }, 60_000);

  it('leaves three completed runs with flips, alerts and signed deliveries in its database', async () => {
    const db = new pg.Client({ connectionString: databaseUrl(name, adminUrl) });
    await db.connect();
    try {
      const one = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);
      expect(await one("select count(*) as n from audit_runs where status = 'completed'")).toBe(3);
      expect(await one('select count(*) as n from sites')).toBe(4);
      expect(await one('select count(*) as n from verdict_flips')).toBeGreaterThan(0);
      expect(await one("select count(*) as n from alerts where severity in ('warning', 'critical')")).toBeGreaterThan(0);
      expect(await one("select count(*) as n from alert_deliveries where status = 'delivered'")).toBeGreaterThan(0);
      expect(await one('select count(*) as n from verdict_latest where not allowed')).toBeGreaterThan(0);
    } finally {
      await db.end();
    }
  });

  it('removes its queue keys from Redis', async () => {
    expect(await demoKeys()).toBe(keysBefore);
  });

  it('refuses a database name that is not a plain identifier', async () => {
    const bad = await runCli(['demo', '--database-name', 'x; drop database test'], { env: { DATABASE_URL: adminUrl, REDIS_URL: redisUrl } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('a plain database name');
  });
});
