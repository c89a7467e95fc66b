/**
 * Migration 0021 (compliance from server logs, issue 29) on a database filled as the release
 * before it left it: new tables and views only, so every existing row stays as it was; the
 * compliance views read the nights already stored (site_rule_nights) for the version in force, so
 * a log imported after the upgrade is judged by the history kept before it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseBefore } from '../../helpers/migrations-before.js';
import type { DatabaseBefore } from '../../helpers/migrations-before.js';
import type { TestDatabase } from '../../helpers/test-db.js';

let db: TestDatabase;
let old: DatabaseBefore | undefined;
const TABLES = ['sites', 'audit_runs', 'snapshots', 'snapshot_changes', 'bodies', 'site_state', 'alerts'];
const before: Record<string, Record<string, unknown>[]> = {};
const q = async <T extends Record<string, unknown>>(text: string, params: unknown[] = []) => (await db.pool.query<T>(text, params)).rows;

beforeAll(async () => {
  old = await databaseBefore('0021_');
  db = old.db;
  await db.pool.query(`
    insert into sites (id, origin) values (1, 'https://a.example');
    insert into audit_runs (id, run_key, trigger, run_at, status, sites_total)
      select n, 'nightly-' || n, 'scheduled', timestamptz '2026-01-01T03:00Z' + n * interval '1 day', 'completed', 1 from generate_series(1, 2) n;
    insert into bodies (id, sha256, content, size) values
      (1, sha256('User-agent: *'::bytea), 'User-agent: *\nAllow: /\n'::bytea, 23),
      (2, sha256('User-agent: GPTBot'::bytea), 'User-agent: GPTBot\nDisallow: /\n'::bytea, 30);
    insert into snapshots (run_at, fetched_at, site_id, run_id, duration_ms, body_id, outcome, policy, status, attempts, policy_reason)
      values (timestamptz '2026-01-02T03:00Z', timestamptz '2026-01-02T03:00Z', 1, 1, 5, 1, 'ok', 'rules', 200, 1, 'R-10'),
             (timestamptz '2026-01-03T03:00Z', timestamptz '2026-01-03T03:00Z', 1, 2, 5, 2, 'ok', 'rules', 200, 1, 'R-10');
    insert into snapshot_changes (site_id, run_id, previous_run_id, outcome_to, policy_to, kinds) values (1, 1, null, 'ok', 'rules', '{first_seen}'), (1, 2, 1, 'ok', 'rules', '{raw,rules}');
    insert into site_state (site_id, run_id, run_at, outcome, policy, policy_reason) values (1, 2, timestamptz '2026-01-03T03:00Z', 'ok', 'rules', 'R-10');`);
  for (const table of TABLES) before[table] = await q(`select * from ${table} order by 1, 2`);
  await old.upgrade();
}, 60_000);

afterAll(async () => {
  await old?.close();
});

describe('0021: crawler requests, their imports, user-agents and range files', () => {
  it('carries every existing row over as it was', async () => {
    for (const table of TABLES) expect(await q(`select * from ${table} order by 1, 2`), table).toEqual(before[table]);
  });

  it('starts with no request, import or range file, and empty views', async () => {
    for (const table of ['crawler_requests', 'log_imports', 'request_user_agents', 'crawler_range_files', 'crawler_compliance', 'crawler_violations']) {
      expect(await q(`select * from ${table}`), table).toEqual([]);
    }
  });

  it('the violations view names the version in force from the nights stored before the upgrade', async () => {
    await db.pool.query(`
      insert into log_imports (id, source_key, name, format) values (1, '\\x01', 'access.log', 'combined');
      insert into request_user_agents (id, sha256, text) values (1, '\\x02', 'GPTBot/1.2');
      insert into crawler_requests (site_id, line_key, at, crawler, identity, identity_method, judgement, run_id, method, path, status, user_agent_id, rule_line, rule, import_id)
        values (1, '\\x03', timestamptz '2026-01-05T10:00Z', 'GPTBot', 'verified', 'ip_ranges', 'violation', 2, 'GET', '/a', 200, 1, 2, 'Disallow: /', 1);`);
    const [v] = await q<{ url: string; version_since: Date; version_sha256: string; rule: string }>('select url, version_since, version_sha256, rule from crawler_violations');
    expect(v).toMatchObject({ url: 'https://a.example/a', rule: 'Disallow: /' });
    expect(v!.version_since.toISOString()).toBe('2026-01-03T03:00:00.000Z');
    const [{ sha } = { sha: '' }] = await q<{ sha: string }>("select encode(sha256, 'hex') as sha from bodies where id = 2");
    expect(v!.version_sha256).toBe(sha);
    const [c] = await q<{ requests: number; violations_verified: number }>('select requests, violations_verified from crawler_compliance');
    expect(c).toMatchObject({ requests: 1, violations_verified: 1 });
  });
});
