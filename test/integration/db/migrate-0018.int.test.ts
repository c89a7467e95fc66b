/**
 * Migration 0018 (parser verdicts) on a database filled as the release before it left it: every
 * verdict span carries over as it was, with no parser verdict yet (both new columns NULL); the
 * views verdict_latest and verdict_history (and verdicts_on, which returns verdict_history rows)
 * read them with the new columns at their end. The next night evaluates every site again
 * (the evaluation key covers PARSER_VERDICTS_KEY: test/unit/services/site-night.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseBefore } from '../../helpers/migrations-before.js';
import type { DatabaseBefore } from '../../helpers/migrations-before.js';
import type { TestDatabase } from '../../helpers/test-db.js';

let db: TestDatabase;
let old: DatabaseBefore | undefined;
let spansBefore: Record<string, unknown>[];
let latestBefore: Record<string, unknown>[];
const q = async <T extends Record<string, unknown>>(text: string) => (await db.pool.query<T>(text)).rows;
/** A row without the columns later migrations added (0020: usage preferences, migrate-0020.int.test.ts). */
const asOf0018 = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).filter(([k]) => !k.startsWith('usage_')));
const SPANS = 'select * from verdicts order by tracked_url_id, user_agent_id, valid_from';
const LATEST = 'select * from verdict_latest order by tracked_url_id, user_agent_id';

beforeAll(async () => {
  old = await databaseBefore('0018_');
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
    insert into verdicts (valid_from, tracked_url_id, user_agent_id, from_run_id, rule_line, allowed)
      select timestamptz '2026-01-03T03:00Z', t, a.id, 2, null, true from generate_series(1, 2) t cross join user_agents a where a.is_default;`);
  spansBefore = await q(SPANS);
  latestBefore = await q(LATEST);
  await old.upgrade();
}, 60_000);

afterAll(async () => {
  await old?.close();
});

describe('0018: parser verdicts on the verdict spans', () => {
  it('every span carries over as it was, with no parser verdict yet', async () => {
    expect(spansBefore.length).toBeGreaterThan(4);
    expect((await q(SPANS)).map(asOf0018)).toEqual(spansBefore.map((r) => ({ ...r, parser_profile: null, parser_allowed: null })));
  });

  it('verdict_latest keeps its rows and columns, the two new ones at its end', async () => {
    const rows = (await q(LATEST)).map(asOf0018);
    expect(rows).toEqual(latestBefore.map((r) => ({ ...r, parser_profile: null, parser_allowed: null })));
    expect(Object.keys(rows[0]!).slice(-2)).toEqual(['parser_profile', 'parser_allowed']);
  });

  it('verdict_history and verdicts_on read the new columns', async () => {
    const on = await q<{ allowed: boolean; parser_profile: string | null }>(`select * from verdicts_on(timestamptz '2026-01-02T12:00Z') order by tracked_url_id, user_agent_id`);
    expect(on.length).toBe(spansBefore.length / 2);
    expect(on.every((r) => r.allowed === false && r.parser_profile === null)).toBe(true);
  });

  it('a span can carry a parser verdict', async () => {
    await db.pool.query(`update verdicts set parser_profile = 'scrapy-protego', parser_allowed = false where tracked_url_id = 1 and to_run_id is null`);
    const rows = await q<{ parser_profile: string | null; parser_allowed: boolean | null }>(`select parser_profile, parser_allowed from verdict_latest where tracked_url_id = 1`);
    expect(rows.every((r) => r.parser_profile === 'scrapy-protego' && r.parser_allowed === false)).toBe(true);
  });
});
