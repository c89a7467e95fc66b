/**
 * Migration 0014 (a group's user-agents stored once, in body_groups) on a database filled as the
 * release before it left it: every rule row carries over, each group with rules gets the
 * user-agent values its rule rows held, and current_rules reads as it did.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseBefore } from '../../helpers/migrations-before.js';
import type { DatabaseBefore } from '../../helpers/migrations-before.js';
import type { TestDatabase } from '../../helpers/test-db.js';

let db: TestDatabase;
let old: DatabaseBefore | undefined;
let currentRulesBefore: unknown[];

const q = async <T extends Record<string, unknown>>(text: string) => (await db.pool.query<T>(text)).rows;
const CURRENT_RULES = 'select * from current_rules order by site_id, line';

beforeAll(async () => {
  old = await databaseBefore('0014_');
  db = old.db;
  await db.pool.query(`
    insert into sites (id, origin) values (1, 'https://shop.example');
    insert into audit_runs (id, run_key, trigger, run_at, status, sites_total) values (1, 'nightly-2026-11-01', 'scheduled', '2026-11-01T03:00Z', 'completed', 1);
    insert into bodies (id, sha256, content, size, indexed) values (1, decode(repeat('ab', 32), 'hex'), 'x', 1, true);
    insert into body_rules (body_id, line, group_no, kind, user_agents, value, pattern)
      values (1, 3, 0, 'disallow', '{GPTBot,CCBot}', '/', '/'),
             (1, 4, 0, 'allow', '{GPTBot,CCBot}', '/public/', '/public/'),
             (1, 7, 1, 'disallow', '{*}', '/private/', '/private/');
    insert into site_state (site_id, run_id, run_at, outcome, policy, policy_reason, rules_body_id)
      values (1, 1, '2026-11-01T03:00Z', 'ok', 'rules', 'R-10', 1);
    -- A fetch --store whose store failed: running, no site list (reconcile read it as every site).
    insert into audit_runs (id, run_key, trigger, run_at, status, sites_total)
      values (2, 'fetch-https://shop.example-2026-11-01T10:00:00.000Z', 'manual', '2026-11-01T10:00Z', 'running', 1);`);
  currentRulesBefore = await q(CURRENT_RULES);
  await old.upgrade();
}, 60_000);

afterAll(async () => {
  await old?.close();
});

describe('0014: body_groups', () => {
  it('each group with rules, its user-agents as its rule rows held them', async () => {
    expect(await q('select body_id, group_no, user_agents from body_groups order by group_no')).toEqual([
      { body_id: 1, group_no: 0, user_agents: ['GPTBot', 'CCBot'] },
      { body_id: 1, group_no: 1, user_agents: ['*'] },
    ]);
  });

  it('every rule row, without its copy of the user-agents', async () => {
    expect(await q('select body_id, line, group_no, kind, value, pattern from body_rules order by line')).toEqual([
      { body_id: 1, line: 3, group_no: 0, kind: 'disallow', value: '/', pattern: '/' },
      { body_id: 1, line: 4, group_no: 0, kind: 'allow', value: '/public/', pattern: '/public/' },
      { body_id: 1, line: 7, group_no: 1, kind: 'disallow', value: '/private/', pattern: '/private/' },
    ]);
  });

  it('a fetch --store run left running without a site list ends failed, listing what it stored (nothing); other runs untouched', async () => {
    expect(await q('select id, status::text, site_ids, finished_at is not null as finished from audit_runs order by id')).toEqual([
      { id: 1, status: 'completed', site_ids: null, finished: false },
      { id: 2, status: 'failed', site_ids: [], finished: true },
    ]);
  });

  it('current_rules reads as before', async () => {
    expect(currentRulesBefore).toHaveLength(3);
    expect(await q(CURRENT_RULES)).toEqual(currentRulesBefore);
  });
});
