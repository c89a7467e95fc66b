/**
 * Migration 0020 (usage preferences, issue 28) on a database filled as the release before it left
 * it: every verdict span carries over as it was, its preferences unknown and never read
 * (`usage_read` false: the first night that reads them takes them in without a flip,
 * test/unit/services/site-night.test.ts); verdict_latest and verdict_history (and verdicts_on)
 * gain the preferences as words at their end; ai_use lists them purpose by purpose; run_summary
 * counts usage_flips.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseBefore } from '../../helpers/migrations-before.js';
import type { DatabaseBefore } from '../../helpers/migrations-before.js';
import type { TestDatabase } from '../../helpers/test-db.js';

let db: TestDatabase;
let old: DatabaseBefore | undefined;
let spansBefore: Record<string, unknown>[];
let latestBefore: Record<string, unknown>[];
let summaryBefore: Record<string, unknown>[];
const q = async <T extends Record<string, unknown>>(text: string) => (await db.pool.query<T>(text)).rows;
const SPANS = 'select * from verdicts order by tracked_url_id, user_agent_id, valid_from';
const LATEST = 'select * from verdict_latest order by tracked_url_id, user_agent_id';
const SUMMARY = 'select * from run_summary order by run_id';
const USAGE_COLUMNS = ['usage_search', 'usage_ai_train', 'usage_ai_input', 'usage_rules'];

beforeAll(async () => {
  old = await databaseBefore('0020_');
  db = old.db;
  await db.pool.query(`
    insert into sites (id, origin) values (1, 'https://a.example'), (2, 'https://b.example');
    insert into audit_runs (id, run_key, trigger, run_at, status, sites_total)
      select n, 'nightly-' || n, 'scheduled', timestamptz '2026-01-01T03:00Z' + n * interval '1 day', 'completed', 2 from generate_series(1, 3) n;
    insert into site_state (site_id, run_id, run_at, outcome, policy, policy_reason)
      select i, 3, timestamptz '2026-01-04T03:00Z', 'ok', 'rules', 'R-10' from generate_series(1, 2) i;
    insert into tracked_urls (id, site_id, url, path, is_root) values (1, 1, 'https://a.example/', '/', true), (2, 2, 'https://b.example/', '/', true);
    insert into verdicts (valid_from, valid_to, tracked_url_id, user_agent_id, from_run_id, to_run_id, rule_line, allowed)
      select timestamptz '2026-01-02T03:00Z', timestamptz '2026-01-03T03:00Z', t, a.id, 1, 2, 2, false from generate_series(1, 2) t cross join user_agents a where a.is_default;
    insert into verdicts (valid_from, tracked_url_id, user_agent_id, from_run_id, rule_line, allowed, parser_profile, parser_allowed)
      select timestamptz '2026-01-03T03:00Z', t, a.id, 2, null, t = 1, case when t = 2 then 'python-urllib' end, case when t = 2 then true end
      from generate_series(1, 2) t cross join user_agents a where a.is_default;`);
  spansBefore = await q(SPANS);
  latestBefore = await q(LATEST);
  summaryBefore = await q(SUMMARY);
  await old.upgrade();
}, 60_000);

afterAll(async () => {
  await old?.close();
});

describe('0020: usage preferences on the verdict spans', () => {
  it('every span carries over as it was: preferences unknown, never read', async () => {
    expect(spansBefore.length).toBeGreaterThan(4);
    expect(await q(SPANS)).toEqual(spansBefore.map((r) => ({ ...r, usage_search: null, usage_ai_train: null, usage_ai_input: null, usage_rules: null, usage_read: false })));
  });

  it('verdict_latest keeps its rows and columns, the preferences as words at its end', async () => {
    const rows = await q(LATEST);
    expect(rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !USAGE_COLUMNS.includes(k))))).toEqual(latestBefore);
    expect(Object.keys(rows[0]!).slice(-4)).toEqual(USAGE_COLUMNS);
    // Site 1 may be crawled (nothing stated: unknown); site 2 may not (no preference: not-crawlable).
    expect(new Set(rows.map((r) => `${r.site_id} ${r.usage_search} ${r.usage_ai_train} ${r.usage_ai_input}`))).toEqual(
      new Set(['1 unknown unknown unknown', '2 not-crawlable not-crawlable not-crawlable']),
    );
  });

  it('verdict_history and verdicts_on read the new columns', async () => {
    const on = await q<{ allowed: boolean; usage_ai_train: string }>(`select * from verdicts_on(timestamptz '2026-01-02T12:00Z') order by tracked_url_id, user_agent_id`);
    expect(on.length).toBe(spansBefore.length / 2);
    expect(on.every((r) => r.allowed === false && r.usage_ai_train === 'not-crawlable')).toBe(true);
  });

  it('ai_use lists each open span three times, a purpose a row, and reads a stated preference with its line and since', async () => {
    const agents = Number((await q<{ n: string }>('select count(*) as n from user_agents where is_default'))[0]!.n);
    expect((await q('select * from ai_use')).length).toBe(2 * agents * 3);
    await db.pool.query(`update verdicts set usage_search = true, usage_ai_train = false, usage_read = true,
      usage_rules = '{"search": {"line": 2, "mechanism": "content-signal", "label": "search", "value": "search=yes, ai-train=no", "since": "2026-01-03T03:00:00.000Z"},
                      "ai-train": {"line": 2, "mechanism": "content-signal", "label": "ai-train", "value": "search=yes, ai-train=no", "since": "2026-01-03T03:00:00.000Z"}}'
      where tracked_url_id = 1 and to_run_id is null`);
    const rows = await q<Record<string, unknown>>(`select purpose, preference, crawl_allowed, since, line, mechanism, label, value from ai_use where tracked_url_id = 1 and token = 'GPTBot' order by purpose`);
    expect(rows).toEqual([
      { purpose: 'ai-input', preference: 'unknown', crawl_allowed: true, since: null, line: null, mechanism: null, label: null, value: null },
      { purpose: 'ai-train', preference: 'refused', crawl_allowed: true, since: new Date('2026-01-03T03:00:00.000Z'), line: 2, mechanism: 'content-signal', label: 'ai-train', value: 'search=yes, ai-train=no' },
      { purpose: 'search', preference: 'allowed', crawl_allowed: true, since: new Date('2026-01-03T03:00:00.000Z'), line: 2, mechanism: 'content-signal', label: 'search', value: 'search=yes, ai-train=no' },
    ]);
  });

  it('run_summary keeps its rows and counts the usage flips of each run', async () => {
    expect((await q(SUMMARY)).map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'usage_flips')))).toEqual(summaryBefore);
    await db.pool.query(`insert into usage_flips (run_id, site_id, tracked_url_id, user_agent_id, purpose, from_preference, to_preference)
      select 3, 1, 1, a.id, 'ai-train', 'allowed', 'refused' from user_agents a where a.is_default`);
    // One row a purpose a night: the same again is refused by its key.
    await expect(db.pool.query(`insert into usage_flips (run_id, site_id, tracked_url_id, user_agent_id, purpose, from_preference, to_preference)
      select 3, 1, 1, min(a.id), 'ai-train', 'allowed', 'refused' from user_agents a where a.is_default`)).rejects.toThrow(/usage_flips_url_run_agent_purpose_key/);
    const counts = await q<{ run_id: number; usage_flips: number }>('select run_id, usage_flips from run_summary order by run_id');
    const agents = Number((await q<{ n: string }>('select count(*) as n from user_agents where is_default'))[0]!.n);
    expect(counts).toEqual([
      { run_id: 1, usage_flips: 0 },
      { run_id: 2, usage_flips: 0 },
      { run_id: 3, usage_flips: agents },
    ]);
  });
});

describe('0020: change_log', () => {
  it('lists usage changes as events of their own, with the line after', async () => {
    await db.pool.query(`update usage_flips set rule_after = '{"line": 2, "mechanism": "content-signal", "label": "ai-train", "value": "ai-train=no", "since": "2026-01-04T03:00:00.000Z"}'`);
    const rows = await q<Record<string, unknown>>(`select event, kind, url, allowed, detail from change_log where event = 'usage' limit 1`);
    expect(rows).toEqual([{ event: 'usage', kind: 'ai-train: allowed -> refused', url: 'https://a.example/', allowed: false, detail: 'content-signal ai-train=no (line 2)' }]);
    expect((await q(`select * from change_log where event <> 'usage'`)).length).toBe(0);
  });
});
