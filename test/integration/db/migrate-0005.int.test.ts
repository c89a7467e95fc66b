/**
 * Migration 0005 (one pass per site) upgrades a database in place. A database migrated to 0004
 * is filled as the previous pipeline filled it (a night per site per run, every attempt with its
 * headers, a verdict per tracked URL x agent x run, changes, flips, an alert), then migrated.
 * Everything must be carried over in its new form, and the first night stored after the upgrade
 * must find what it needs: the same bodies and answers (no new row), the verdict spans (none
 * written when nothing changed), the 30-day streak and the fallback's copy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepos, responseKey } from '../../../src/db/index.js';
import { sha256Of } from '../../../src/night/keys.js';
import { storeSingleNight } from '../../../src/services/night-runner.js';
import { fetchResult } from '../../helpers/fetch-results.js';
import type { TestDatabase } from '../../helpers/test-db.js';
import { databaseBefore } from '../../helpers/migrations-before.js';
import type { DatabaseBefore } from '../../helpers/migrations-before.js';
import { runCli } from '../../helpers/cli.js';

const BODY_1 = Buffer.from('User-agent: *\nDisallow: /private/\n');
const BODY_2 = Buffer.from('User-agent: *\nAllow: /\n');
const RUN_AT = ['2026-01-01T03:00:00Z', '2026-01-02T03:00:00Z', '2026-01-03T03:00:00Z', '2026-02-15T03:00:00Z'];
const NIGHT_5 = new Date('2026-02-16T03:00:00Z');

let db: TestDatabase;
let old: DatabaseBefore | undefined;

/**
 * What the previous pipeline wrote for three sites over four nights:
 * - a.example: BODY_1, BODY_1 (unchanged), BODY_2 (its /private/x flips to allowed), then a 503
 *   after two retried attempts (everything disallowed);
 * - b.example: 404 every night (everything allowed), the first answer through a redirect;
 * - c.example: BODY_1, then 503 from night 2; night 4 is more than 30 days after the first
 *   failure, so night 1's rules apply again (D-3).
 */
const FILL = `
insert into sites (id, origin) values (1, 'https://a.example'), (2, 'https://b.example'), (3, 'https://c.example');
select setval(pg_get_serial_sequence('sites', 'id'), 3);
insert into tracked_urls (id, site_id, url, path, is_root) values
  (1, 1, 'https://a.example/', '/', true), (2, 1, 'https://a.example/private/x', '/private/x', false),
  (3, 2, 'https://b.example/', '/', true), (4, 3, 'https://c.example/', '/', true);
select setval(pg_get_serial_sequence('tracked_urls', 'id'), 4);
insert into audit_runs (id, run_key, trigger, run_at, status, sites_total, sites_diffed, counts)
  select n, 'nightly-' || n, 'scheduled', ($3::timestamptz[])[n], 'completed', 3, 3, '{"outcome":{"ok":1}}' from generate_series(1, 4) n;
select setval(pg_get_serial_sequence('audit_runs', 'id'), 4);
insert into bodies (sha256, content, size) values ($1, $4, ${BODY_1.length}), ($2, $5, ${BODY_2.length});
insert into snapshots (id, fetched_at, policy_snapshot_id, unreachable_since, diffed_at, run_id, site_id, outcome, policy, body_bytes, rules,
                       status, attempts, groups, sitemaps, lint_errors, lint_warnings, lint_infos, truncated, policy_reason, body_sha256)
values
  (1, ($3::timestamptz[])[1], 1, null, now(), 1, 1, 'ok', 'rules', ${BODY_1.length}, 1, 200, 1, 1, 0, 0, 0, 0, false, 'R-10', $1),
  (2, ($3::timestamptz[])[1], null, null, now(), 1, 2, 'unavailable', 'allow_all', 0, 0, 404, 1, 0, 0, 0, 0, 0, false, 'R-12', null),
  (3, ($3::timestamptz[])[1], 3, null, now(), 1, 3, 'ok', 'rules', ${BODY_1.length}, 1, 200, 1, 1, 0, 0, 0, 0, false, 'R-10', $1),
  (4, ($3::timestamptz[])[2], 4, null, now(), 2, 1, 'ok', 'rules', ${BODY_1.length}, 1, 200, 1, 1, 0, 0, 0, 0, false, 'R-10', $1),
  (5, ($3::timestamptz[])[2], null, null, now(), 2, 2, 'unavailable', 'allow_all', 0, 0, 404, 1, 0, 0, 0, 0, 0, false, 'R-12', null),
  (6, ($3::timestamptz[])[2], null, ($3::timestamptz[])[2], now(), 2, 3, 'server_error', 'disallow_all', 0, 0, 503, 1, 0, 0, 0, 0, 0, false, 'R-13', null),
  (7, ($3::timestamptz[])[3], 7, null, now(), 3, 1, 'ok', 'rules', ${BODY_2.length}, 1, 200, 1, 1, 0, 0, 0, 0, false, 'R-10', $2),
  (8, ($3::timestamptz[])[3], null, null, now(), 3, 2, 'unavailable', 'allow_all', 0, 0, 404, 1, 0, 0, 0, 0, 0, false, 'R-12', null),
  (9, ($3::timestamptz[])[3], null, ($3::timestamptz[])[2], now(), 3, 3, 'server_error', 'disallow_all', 0, 0, 503, 1, 0, 0, 0, 0, 0, false, 'R-13', null),
  (10, ($3::timestamptz[])[4], null, ($3::timestamptz[])[4], now(), 4, 1, 'server_error', 'disallow_all', 0, 0, 503, 3, 0, 0, 0, 0, 0, false, 'R-13', null),
  (11, ($3::timestamptz[])[4], null, null, now(), 4, 2, 'unavailable', 'allow_all', 0, 0, 404, 1, 0, 0, 0, 0, 0, false, 'R-12', null),
  (12, ($3::timestamptz[])[4], 3, ($3::timestamptz[])[2], now(), 4, 3, 'server_error', 'rules', 0, 0, 503, 1, 0, 0, 0, 0, 0, false, 'D-3', null);
select setval(pg_get_serial_sequence('snapshots', 'id'), 12);
-- Every attempt: the final one of each night (its headers), and a's two retried 503s on night 4.
insert into fetch_attempts (started_at, run_id, site_id, duration_ms, outcome, body_bytes, full_size, cache_lifetime_seconds, attempt, status,
                            requested_url, final_url, hops, error_code, remote_address, body_sha256, content_type, etag)
select s.fetched_at, s.run_id, s.site_id, 100 + s.id, s.outcome, s.body_bytes, case when s.status = 404 then 10 else s.body_bytes end, 86400,
       s.attempts, s.status, o.origin || '/robots.txt',
       case when s.site_id = 2 and s.run_id = 1 then 'https://www.b.example/robots.txt' end,
       case when s.site_id = 2 and s.run_id = 1 then '[{"url":"https://b.example/robots.txt","status":301,"location":"https://www.b.example/robots.txt"}]'::jsonb end,
       null, '203.0.113.7', s.body_sha256, 'text/plain', case when s.outcome = 'ok' then '"v1"' end
from snapshots s join sites o on o.id = s.site_id;
insert into fetch_attempts (started_at, run_id, site_id, duration_ms, outcome, attempt, status, requested_url, error_code, remote_address, content_type)
select ($3::timestamptz[])[4] - make_interval(secs => 10 * (3 - n)), 4, 1, 50, 'server_error', n, 503, 'https://a.example/robots.txt', null, '203.0.113.7', 'text/plain'
from generate_series(1, 2) n;
-- A verdict per tracked URL x default agent x run, as the engine decides under each night's policy.
insert into verdicts (tracked_url_id, run_id, user_agent_id, rule_line, allowed)
select t.id, s.run_id, a.id,
       case when s.policy <> 'rules' then null when coalesce(rb.body_sha256, s.body_sha256) = $2 then 2 when t.path = '/private/x' then 2 end,
       case when s.policy = 'disallow_all' then false when s.policy = 'allow_all' then true
            when coalesce(rb.body_sha256, s.body_sha256) = $2 then true else t.path <> '/private/x' end
from snapshots s
left join snapshots rb on rb.id = s.policy_snapshot_id
join tracked_urls t on t.site_id = s.site_id
cross join user_agents a where a.is_default;
insert into snapshot_changes (snapshot_id, previous_snapshot_id, run_id, site_id, outcome_from, outcome_to, policy_from, policy_to, kinds, text_diff)
values (1, null, 1, 1, null, 'ok', null, 'rules', '{first_seen}', null),
       (7, 4, 3, 1, 'ok', 'ok', 'rules', 'rules', '{raw,rules}', '-Disallow: /private/' || chr(10) || '+Allow: /'),
       (10, 7, 4, 1, 'ok', 'server_error', 'rules', 'disallow_all', '{outcome,policy}', null);
insert into verdict_flips (run_id, site_id, tracked_url_id, user_agent_id, from_allowed, to_allowed, cause)
select 3, 1, 2, a.id, false, true, 'rules_changed' from user_agents a where a.is_default;
insert into alerts (dedupe_key, run_id, site_id, severity, kind, title) values ('r3:s1:rules', 3, 1, 'warning', 'rules_changed', 'rules changed');
`;

beforeAll(async () => {
  old = await databaseBefore('0005_');
  db = old.db;
  // The fill runs as one script (several statements: no bind parameters), its values written in.
  const bytea = (b: Buffer) => `'\\x${b.toString('hex')}'::bytea`;
  const values: Record<string, string> = {
    $1: bytea(sha256Of(BODY_1)),
    $2: bytea(sha256Of(BODY_2)),
    $3: `'{${RUN_AT.join(',')}}'`,
    $4: bytea(BODY_1),
    $5: bytea(BODY_2),
  };
  await db.pool.query(FILL.replace(/\$[1-5]/g, (m) => values[m]!));
  await old.upgrade();
}, 60_000);

afterAll(async () => {
  await old?.close();
});

const q = async <T extends Record<string, unknown>>(text: string, params: unknown[] = []) => (await db.pool.query<T>(text, params)).rows;

describe('0005: nights carried over', () => {
  it('every snapshot is kept, keyed by its run clock, with its final attempt and its body by id', async () => {
    const rows = await q<{ site_id: number; run_id: number; run_at: Date; duration_ms: number; sha: Buffer | null; attempts: number; policy_reason: string; rules_run_id: number | null }>(
      `select n.site_id, n.run_id, n.run_at, n.duration_ms, b.sha256 as sha, n.attempts, n.policy_reason, n.rules_run_id
       from snapshots n left join bodies b on b.id = n.body_id order by n.site_id, n.run_id`,
    );
    expect(rows).toHaveLength(12);
    for (const r of rows) expect(r.run_at.toISOString()).toBe(new Date(RUN_AT[r.run_id - 1]!).toISOString());
    const a = rows.filter((r) => r.site_id === 1);
    expect(a.map((r) => [r.sha?.equals(sha256Of(BODY_1)) ?? null, r.sha?.equals(sha256Of(BODY_2)) ?? null])).toEqual([
      [true, false],
      [true, false],
      [false, true],
      [null, null],
    ]);
    // The old snapshot ids 1..12 had durations 101..112 on their final attempts.
    expect(rows.map((r) => r.duration_ms).sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, i) => 101 + i));
    // c's night 4: D-3 with the rules of its night 1.
    expect(rows.find((r) => r.site_id === 3 && r.run_id === 4)).toMatchObject({ policy_reason: 'D-3', rules_run_id: 1 });
    expect(rows.filter((r) => r.rules_run_id !== null)).toHaveLength(1);
  });

  it('bodies get an id and the parse summary the snapshots repeated', async () => {
    expect(await q('select size, rules, groups from bodies order by size')).toEqual([
      { size: BODY_2.length, rules: 1, groups: 1 },
      { size: BODY_1.length, rules: 1, groups: 1 },
    ]);
  });

  it('retried attempts move to failed_attempts; the fetch_attempts view shows every attempt, the final one last', async () => {
    expect(await q('select site_id, run_id, attempt, status from failed_attempts order by attempt')).toEqual([
      { site_id: 1, run_id: 4, attempt: 1, status: 503 },
      { site_id: 1, run_id: 4, attempt: 2, status: 503 },
    ]);
    const view = await q<{ attempt: number; final: boolean; requested_url: string }>(
      'select attempt, final, requested_url from fetch_attempts where site_id = 1 and run_id = 4 order by attempt',
    );
    expect(view).toEqual([1, 2, 3].map((n) => ({ attempt: n, final: n === 3, requested_url: 'https://a.example/robots.txt' })));
    expect(Number((await q<{ n: string }>('select count(*) as n from fetch_attempts'))[0]!.n)).toBe(14);
  });

  it('answers are stored once per distinct headers, under the key the worker computes', async () => {
    const rows = await q<{ key: Buffer; final_url: string | null; hops: unknown; remote_address: string; content_type: string; etag: string | null }>(
      'select key, final_url, hops, remote_address, content_type, etag from responses order by id',
    );
    // ok (etag "v1"), error/404 without etag, and b's redirected first answer.
    expect(rows).toHaveLength(3);
    for (const r of rows) {
      const key = responseKey({
        finalUrl: r.final_url,
        hops: r.hops as never,
        remoteAddress: r.remote_address,
        contentType: r.content_type,
        contentEncoding: null,
        cacheControl: null,
        expires: null,
        age: null,
        retryAfter: null,
        lastModified: null,
        etag: r.etag,
      });
      expect(key.equals(r.key)).toBe(true);
    }
    expect(rows.find((r) => r.final_url !== null)).toMatchObject({ final_url: 'https://www.b.example/robots.txt', hops: [{ url: 'https://b.example/robots.txt', status: 301 }] });
  });

  it('verdicts per run become spans: one per stretch of nights with the same verdict', async () => {
    const agents = Number((await q<{ n: string }>('select count(*) as n from user_agents where is_default'))[0]!.n);
    const spans = await q<{ from_run_id: number; to_run_id: number | null; allowed: boolean; rule_line: number | null }>(
      `select v.from_run_id, v.to_run_id, v.allowed, v.rule_line from verdicts v join user_agents a on a.id = v.user_agent_id
       where v.tracked_url_id = 2 and a.token = 'Googlebot' order by v.valid_from`,
    );
    // a's /private/x: disallowed on nights 1-2, allowed by `Allow: /` on night 3, everything disallowed on night 4.
    expect(spans).toEqual([
      { from_run_id: 1, to_run_id: 3, allowed: false, rule_line: 2 },
      { from_run_id: 3, to_run_id: 4, allowed: true, rule_line: 2 },
      { from_run_id: 4, to_run_id: null, allowed: false, rule_line: null },
    ]);
    // b's root: allowed every night: one open span per agent.
    expect(Number((await q<{ n: string }>('select count(*) as n from verdicts where tracked_url_id = 3'))[0]!.n)).toBe(agents);
    expect(await q('select count(*)::int as n from verdict_latest')).toEqual([{ n: 4 * agents }]);
  });

  it('site_state holds each site\'s latest night, the streak, the last good and last reachable nights', async () => {
    const state = await q(`select site_id, run_id, outcome::text, policy::text, policy_reason, failed_nights, last_good_run_id, last_reachable_run_id,
                                  rules_run_id, unreachable_since, last_change_run_id from site_state order by site_id`);
    expect(state).toEqual([
      { site_id: 1, run_id: 4, outcome: 'server_error', policy: 'disallow_all', policy_reason: 'R-13', failed_nights: 1, last_good_run_id: 3, last_reachable_run_id: 3, rules_run_id: null, unreachable_since: new Date(RUN_AT[3]!), last_change_run_id: 4 },
      { site_id: 2, run_id: 4, outcome: 'unavailable', policy: 'allow_all', policy_reason: 'R-12', failed_nights: 0, last_good_run_id: null, last_reachable_run_id: 4, rules_run_id: null, unreachable_since: null, last_change_run_id: null },
      { site_id: 3, run_id: 4, outcome: 'server_error', policy: 'rules', policy_reason: 'D-3', failed_nights: 3, last_good_run_id: 1, last_reachable_run_id: 1, rules_run_id: 1, unreachable_since: new Date(RUN_AT[1]!), last_change_run_id: null },
    ]);
  });

  it('changes name the previous night by its run; completed runs count their nights done', async () => {
    expect(await q('select site_id, run_id, previous_run_id, kinds from snapshot_changes order by run_id')).toEqual([
      { site_id: 1, run_id: 1, previous_run_id: null, kinds: ['first_seen'] },
      { site_id: 1, run_id: 3, previous_run_id: 2, kinds: ['raw', 'rules'] },
      { site_id: 1, run_id: 4, previous_run_id: 3, kinds: ['outcome', 'policy'] },
    ]);
    expect(await q('select sites_done from audit_runs order by id')).toEqual([3, 3, 3, 3].map((n) => ({ sites_done: n })));
    expect(await q('select count(*)::int as n from verdict_flips')).toEqual([{ n: 10 }]);
  });
});

describe('0005: the first night after the upgrade', () => {
  it('finds its body, answer, streak and spans: nothing new but the nights themselves', async () => {
    const repos = createRepos(db.db);
    const { run } = await repos.runs.createRun({ runKey: 'after-upgrade', trigger: 'manual', runAt: NIGHT_5, sitesTotal: 3, siteIds: [1, 2, 3] });
    const tables = ['bodies', 'responses', 'verdicts', 'verdict_flips', 'snapshot_changes', 'alerts'];
    const counts = async () => Promise.all(tables.map(async (t) => Number((await q<{ n: string }>(`select count(*) as n from ${t}`))[0]!.n)));
    const before = await counts();
    // a still answers 503, b 404, c 503: the same answers as night 4 (headers included).
    for (const [siteId, origin, status] of [
      [1, 'https://a.example', 503],
      [2, 'https://b.example', 404],
      [3, 'https://c.example', 503],
    ] as const) {
      const result = fetchResult({ origin, outcome: status === 404 ? 'unavailable' : 'server_error', status, startedAt: NIGHT_5 });
      expect(await storeSingleNight(db.pool, run.id, siteId, result)).toEqual({ stored: true });
    }
    expect(await counts()).toEqual(before);
    // The streaks go on: a is on its second failed night, c still under the fallback with night 1's rules.
    expect(await q('select site_id, failed_nights, policy_reason, rules_run_id from site_state order by site_id')).toEqual([
      { site_id: 1, failed_nights: 2, policy_reason: 'R-13', rules_run_id: null },
      { site_id: 2, failed_nights: 0, policy_reason: 'R-12', rules_run_id: null },
      { site_id: 3, failed_nights: 4, policy_reason: 'D-3', rules_run_id: 1 },
    ]);
    expect(await q('select count(*)::int as n from site_state where eval_key is not null')).toEqual([{ n: 3 }]);
  });
});

describe('0006: reporting data for the nights carried over (robots-audit db migrate)', () => {
  it('migrations alone leave the bodies unindexed; db migrate indexes them and seeds the catalogue', async () => {
    expect(await q('select count(*)::int as n from bodies where indexed')).toEqual([{ n: 0 }]);
    const run = await runCli(['db', 'migrate', '--database-url', db.url]);
    expect(run.code, run.stderr).toBe(0);
    expect(await q('select count(*)::int as n from bodies where not indexed')).toEqual([{ n: 0 }]);
    const [ai] = await q<{ n: number }>("select count(*)::int as n from user_agents where category like 'ai-%'");
    expect(ai!.n).toBeGreaterThan(50);
    expect(await q('select b.size, r.line, r.kind, r.value from body_rules r join bodies b on b.id = r.body_id order by b.size, r.line')).toEqual([
      { size: BODY_2.length, line: 2, kind: 'allow', value: '/' },
      { size: BODY_1.length, line: 2, kind: 'disallow', value: '/private/' },
    ]);
    // A second run finds nothing to do.
    const again = await runCli(['db', 'migrate', '--database-url', db.url]);
    expect(again.code, again.stderr).toBe(0);
  });

  it('the reporting views answer for the carried-over nights', async () => {
    expect(await q('select origin, outcome::text, policy::text, policy_reason, failed_nights from site_status order by origin')).toEqual([
      { origin: 'https://a.example', outcome: 'server_error', policy: 'disallow_all', policy_reason: 'R-13', failed_nights: 2 },
      { origin: 'https://b.example', outcome: 'unavailable', policy: 'allow_all', policy_reason: 'R-12', failed_nights: 0 },
      { origin: 'https://c.example', outcome: 'server_error', policy: 'rules', policy_reason: 'D-3', failed_nights: 4 },
    ]);
    // c applies night 1's copy (D-3): its rules are BODY_1's; GPTBot may fetch its root.
    expect(await q("select origin, kind, value from current_rules where origin = 'https://c.example'")).toEqual([
      { origin: 'https://c.example', kind: 'disallow', value: '/private/' },
    ]);
    expect(await q("select origin, allowed from ai_access where token = 'GPTBot' order by origin")).toEqual([
      { origin: 'https://a.example', allowed: false },
      { origin: 'https://b.example', allowed: true },
      { origin: 'https://c.example', allowed: true },
    ]);
    expect(await q("select event, kind from change_log where origin = 'https://a.example' and event = 'alert'")).toEqual([{ event: 'alert', kind: 'rules_changed' }]);
    expect(await q('select run_key, changes, flips, alerts from run_summary where run_key = $1', ['nightly-3'])).toEqual([{ run_key: 'nightly-3', changes: 1, flips: 10, alerts: 1 }]);
  });
});
