/**
 * Migration 0012 (the dashboard's indexes) on a database filled as 0008 left it: every row of the
 * tables it indexes carries over as it was, each index is built and valid, and the dashboard's
 * queries can read through it (asked with sequential scans off: these tables are small here,
 * where Postgres would rightly read them whole).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseBefore } from '../../helpers/migrations-before.js';
import type { DatabaseBefore } from '../../helpers/migrations-before.js';
import type { TestDatabase } from '../../helpers/test-db.js';

const SITES = 500;
const NIGHTS = 20;
let db: TestDatabase;
let old: DatabaseBefore | undefined;
const TABLES = ['alerts', 'snapshot_changes', 'body_agent_access', 'verdicts', 'verdict_flips'] as const;
const before: Record<string, unknown[]> = {};

const q = async <T extends Record<string, unknown>>(text: string, params: unknown[] = []) => (await db.pool.query<T>(text, params)).rows;
const ORDER: Record<(typeof TABLES)[number], string> = {
  alerts: 'id',
  snapshot_changes: 'id',
  body_agent_access: 'body_id, token',
  verdicts: 'tracked_url_id, user_agent_id, valid_from',
  verdict_flips: 'id',
};

beforeAll(async () => {
  old = await databaseBefore('0012_');
  db = old.db;
  await db.pool.query(`
    insert into sites (id, origin) select i, 'https://s' || i || '.example' from generate_series(1, ${SITES}) as i;
    insert into audit_runs (id, run_key, trigger, run_at, status, sites_total)
      select n, 'nightly-' || n, 'scheduled', timestamptz '2026-01-01T03:00Z' + n * interval '1 day', 'completed', ${SITES} from generate_series(1, ${NIGHTS}) n;
    insert into snapshot_changes (run_id, site_id, outcome_to, policy_to, kinds)
      select n, i, 'ok', 'rules', case when n = 1 then '{first_seen}'::text[] else '{raw,rules}' end
      from generate_series(1, ${NIGHTS}) n cross join generate_series(1, ${SITES}) i where n = 1 or i % 7 = n % 7;
    insert into alerts (dedupe_key, run_id, site_id, severity, kind, title)
      select 'k' || n || '-' || i, n, i, case when i % 50 = 0 then 'critical'::alert_severity else 'warning' end,
             case when i % 50 = 0 then 'site_unreachable' else 'rules_changed' end, 'on ' || i
      from generate_series(2, ${NIGHTS}) n cross join generate_series(1, ${SITES}) i where i % 7 = n % 7;
    insert into bodies (id, sha256, content, size) select i, sha256(i::text::bytea), convert_to('User-agent: *', 'UTF8'), 13 from generate_series(1, ${SITES}) i;
    insert into body_agent_access (body_id, token, rule_line, allowed)
      select i, '*', null, true from generate_series(1, ${SITES}) i
      union all select i, 'gptbot', 2, false from generate_series(4, ${SITES}, 4) i;
    insert into tracked_urls (id, site_id, url, path, is_root) select i, i, 'https://s' || i || '.example/', '/', true from generate_series(1, ${SITES}) i;
    insert into verdicts (valid_from, tracked_url_id, user_agent_id, from_run_id, allowed)
      select timestamptz '2026-01-02T03:00Z', i, a.id, 1, i % 4 <> 0 from generate_series(1, ${SITES}) i cross join user_agents a where a.is_default;
    insert into verdict_flips (run_id, site_id, tracked_url_id, user_agent_id, from_allowed, to_allowed, cause)
      select 2, i, i, a.id, true, false, 'rules_changed' from generate_series(4, ${SITES}, 4) i cross join user_agents a where a.is_default;`);
  for (const t of TABLES) before[t] = await q(`select * from ${t} order by ${ORDER[t]}`);
  await old.upgrade();
}, 120_000);

afterAll(async () => {
  await old?.close();
});

/** The plan's text, with sequential scans off for the statement. */
async function plan(text: string, params: unknown[] = []): Promise<string> {
  const client = await db.pool.connect();
  try {
    await client.query('set enable_seqscan = off');
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain ${text}`, params);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await client.query('reset enable_seqscan');
    client.release();
  }
}

describe('0012: the dashboard\'s indexes', () => {
  it.each(TABLES)('every row of %s as it was', async (table) => {
    // Compared on the columns it had then: later migrations add some (0018: verdicts.parser_profile, parser_allowed).
    const columns = Object.keys((before[table]![0] ?? {}) as Record<string, unknown>);
    const now = await q(`select * from ${table} order by ${ORDER[table]}`);
    expect(now.map((r) => Object.fromEntries(columns.map((c) => [c, r[c]])))).toEqual(before[table]);
  });

  it('each index is built and valid', async () => {
    const rows = await q<{ name: string; valid: boolean; def: string }>(
      `select c.relname as name, i.indisvalid as valid, pg_get_indexdef(i.indexrelid) as def
       from pg_index i join pg_class c on c.oid = i.indexrelid
       where c.relname = any($1::text[]) order by 1`,
      [['alerts_kind_run_idx', 'alerts_run_severity_idx', 'body_agent_access_token_idx', 'snapshot_changes_kinds_idx', 'snapshot_changes_run_site_idx', 'verdict_flips_run_cause_idx', 'verdicts_blocked_agent_idx']],
    );
    expect(rows.map((r) => [r.name, r.valid])).toEqual([
      ['alerts_kind_run_idx', true],
      ['alerts_run_severity_idx', true],
      ['body_agent_access_token_idx', true],
      ['snapshot_changes_kinds_idx', true],
      ['snapshot_changes_run_site_idx', true],
      ['verdict_flips_run_cause_idx', true],
      ['verdicts_blocked_agent_idx', true],
    ]);
    expect(rows.find((r) => r.name === 'snapshot_changes_kinds_idx')?.def).toContain('USING gin (kinds)');
    expect(rows.find((r) => r.name === 'verdicts_blocked_agent_idx')?.def).toContain('WHERE (NOT allowed)');
  });

  it.each([
    ['a night\'s alerts at least so severe', `select site_id from alerts where run_id = 3 and severity <= 'critical'`, 'alerts_run_severity_idx'],
    ['the nights with an alert of a kind', `select distinct run_id from alerts where kind = 'site_unreachable'`, 'alerts_kind_run_idx'],
    ['the bodies that block a crawler', `select body_id from body_agent_access where token = 'gptbot' and not allowed`, 'body_agent_access_token_idx'],
    ['a night\'s changes by site, with their kinds', `select site_id, kinds from snapshot_changes where run_id = 3 order by site_id`, 'snapshot_changes_run_site_idx'],
    ['the changes of a kind', `select run_id from snapshot_changes where kinds @> '{first_seen}'`, 'snapshot_changes_kinds_idx'],
    ['a night\'s flips of a cause', `select 1 from verdict_flips where run_id = 2 and cause = 'outcome_changed'`, 'verdict_flips_run_cause_idx'],
    ['the spans that block, by agent', `select tracked_url_id, valid_from, valid_to from verdicts where user_agent_id = 3 and not allowed`, 'verdicts_blocked_agent_idx'],
  ])('%s: read through the index', async (_what, sql, index) => {
    expect(await plan(sql)).toContain(index);
  });
});
