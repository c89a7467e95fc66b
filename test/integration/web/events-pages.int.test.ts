/**
 * The dashboard's event lists read through their fast paths (night by night, probes, the rare
 * kinds' nights, the sites of a night by alert then origin) give exactly what a plain query
 * over every event gives, page after page, for each filter alone and together. The database is
 * filled by SQL with what makes the fast paths differ: a first night of every site, two runs at
 * the same time, rare and common kinds, critical alerts on one night, flips of one crawler,
 * sites in two portfolios.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsPage, EVENT_TYPES } from '../../../src/reports/web-events.js';
import type { EventCursor, EventQuery } from '../../../src/reports/web-events.js';
import type { AlertSeverity as Severity } from '../../../src/night/vocabulary.js';
import { nightEvents } from '../../../src/reports/night-events.js';
import { createTestDatabase } from '../../helpers/test-db.js';
import type { TestDatabase } from '../../helpers/test-db.js';

const SITES = 90;
const NIGHTS = 14;
let db: TestDatabase;
let gptbot: number;

beforeAll(async () => {
  db = await createTestDatabase();
  const [row] = (await db.pool.query<{ id: number }>("select id from user_agents where token = 'GPTBot'")).rows;
  gptbot = row!.id;
  await db.pool.query(`
    insert into portfolios (id, name) values (1, 'even'), (2, 'odd');
    -- Origins not in id order, so "by origin" and "by id" differ.
    insert into sites (id, origin) select i, 'https://s' || ((i * 37) % ${SITES}) || '-' || i || '.example' from generate_series(1, ${SITES}) i;
    insert into portfolio_sites (portfolio_id, site_id) select 1 + i % 2, i from generate_series(1, ${SITES}) i;
    insert into tracked_urls (id, site_id, url, path, is_root) select i, i, 'https://s' || i || '.example/', '/', true from generate_series(1, ${SITES}) i;
    -- Nights 1..NIGHTS a day apart; night 8 has a second run at the same time (a portfolio's).
    insert into audit_runs (id, run_key, trigger, run_at, status, sites_total)
      select n, 'nightly-' || n, 'scheduled', timestamptz '2026-01-01T03:00Z' + n * interval '1 day', 'completed', ${SITES} from generate_series(1, ${NIGHTS}) n;
    insert into audit_runs (id, run_key, trigger, run_at, status, sites_total) values (${NIGHTS + 1}, 'portfolio-8', 'manual', timestamptz '2026-01-01T03:00Z' + 8 * interval '1 day', 'completed', 10);
    insert into snapshot_changes (run_id, site_id, outcome_from, outcome_to, policy_from, policy_to, kinds)
      select 1, i, null::fetch_outcome, 'ok'::fetch_outcome, null::effective_policy, 'rules'::effective_policy, '{first_seen}'::text[] from generate_series(1, ${SITES}) i
      union all select n, i, 'ok', 'ok', 'rules', 'rules', '{raw,rules}' from generate_series(2, ${NIGHTS}) n cross join generate_series(1, ${SITES}) i where (i + n) % 5 = 0
      union all select 6, i, 'ok', 'server_error', 'rules', 'disallow_all', '{outcome,policy}' from generate_series(1, ${SITES}) i where i % 11 = 1 and (i + 6) % 5 <> 0
      union all select ${NIGHTS + 1}, i, 'ok', 'ok', 'rules', 'rules', '{raw,comments_only}' from generate_series(1, 10) i;
    insert into alerts (dedupe_key, run_id, site_id, severity, kind, title)
      select 'r' || n || 's' || i, n, i, 'warning'::alert_severity, 'rules_changed', 'rules of ' || i from generate_series(2, ${NIGHTS}) n cross join generate_series(1, ${SITES}) i where (i + n) % 5 = 0 and i % 3 = 0
      union all select 'u' || i, 6, i, 'critical', 'site_unreachable', 'down ' || i from generate_series(1, ${SITES}) i where i % 11 = 1 and (i + 6) % 5 <> 0
      union all select 'c' || i, ${NIGHTS + 1}, i, 'info', 'comments_only', 'comments ' || i from generate_series(1, 10) i;
    insert into verdict_flips (run_id, site_id, tracked_url_id, user_agent_id, from_allowed, to_allowed, cause)
      select 6, i, i, a.id, true, false, 'outcome_changed' from generate_series(1, ${SITES}) i cross join user_agents a where i % 11 = 1 and (i + 6) % 5 <> 0 and a.is_default
      union all select n, i, i, ${'$'}{GPTBOT}, true, false, 'rules_changed' from generate_series(2, ${NIGHTS}) n cross join generate_series(1, ${SITES}) i where (i + n) % 5 = 0 and i % 4 = 0;
  `.replace('${GPTBOT}', String(gptbot)));
  await db.pool.query('analyze');
}, 60_000);

afterAll(async () => {
  await db?.close();
});

interface Ref {
  at: Date;
  origin: string;
  rank: number;
  id: string;
}

/** Every event that matches, in page order: the plain query the fast paths must equal. */
async function reference(q: Omit<EventQuery, 'after' | 'pageSize'>): Promise<string[]> {
  const { rows } = await db.pool.query<Ref>(
    `select * from (
       select r.run_at as at, s.origin, 1 as rank, c.id, c.site_id, c.run_id, 'change' as type from snapshot_changes c join audit_runs r on r.id = c.run_id join sites s on s.id = c.site_id
        where ($2::text is null or $2 = any(c.kinds))
          and ($3::alert_severity is null or exists (select 1 from alerts l where l.site_id = c.site_id and l.run_id = c.run_id and l.severity <= $3))
       union all
       select r.run_at, s.origin, 2, f.id, f.site_id, f.run_id, 'flip' from verdict_flips f join audit_runs r on r.id = f.run_id join sites s on s.id = f.site_id join user_agents a on a.id = f.user_agent_id
        where ($2::text is null or f.cause = $2) and ($4::text is null or lower(a.token) = $4)
          and ($3::alert_severity is null or exists (select 1 from alerts l where l.site_id = f.site_id and l.run_id = f.run_id and l.severity <= $3))
       union all
       select r.run_at, s.origin, 3, l.id, l.site_id, l.run_id, 'alert' from alerts l join audit_runs r on r.id = l.run_id join sites s on s.id = l.site_id
        where ($2::text is null or l.kind = $2) and ($3::alert_severity is null or l.severity <= $3)
     ) e
     where ($1::int is null or e.site_id in (select site_id from portfolio_sites where portfolio_id = $1))
       and e.type = any($5::text[]) and ($4::text is null or e.type = 'flip')
       and ($6::timestamptz is null or e.at >= $6) and ($7::timestamptz is null or e.at < $7)
     order by e.at desc, e.origin, e.rank, e.id`,
    [q.portfolioId, q.kind, q.severity, q.crawler?.toLowerCase() ?? null, q.types, q.since, q.until],
  );
  return rows.map((r) => `${r.at.toISOString()} ${r.origin} ${r.rank} ${r.id}`);
}

/** The list as the dashboard pages it: every page, following the cursors. */
async function paged(q: Omit<EventQuery, 'after' | 'pageSize'>, pageSize: number): Promise<string[]> {
  const out: string[] = [];
  let after: EventCursor | null = null;
  for (let pages = 0; pages < 500; pages++) {
    const page = await eventsPage(db.pool, { ...q, after, pageSize });
    out.push(...page.events.map((e) => `${e.at.toISOString()} ${e.origin} ${e.cursor.rank} ${e.cursor.id}`));
    if (!page.next) return out;
    expect(page.events).toHaveLength(pageSize);
    after = page.next;
  }
  throw new Error('more than 500 pages');
}

const base: Omit<EventQuery, 'after' | 'pageSize'> = { portfolioId: null, types: EVENT_TYPES, kind: null, severity: null, crawler: null, since: null, until: null };
const day = (n: number) => new Date(Date.parse('2026-01-01T03:00Z') + n * 86_400_000);

describe('the changes page, page after page, equals the plain query', () => {
  it.each<[string, Partial<Omit<EventQuery, 'after' | 'pageSize'>>]>([
    ['everything', {}],
    ['changes', { types: ['change'] }],
    ['flips', { types: ['flip'] }],
    ['alerts', { types: ['alert'] }],
    ['a common kind', { kind: 'rules' }],
    ['a rare kind', { kind: 'outcome' }],
    ['the first sightings', { kind: 'first_seen' }],
    ['a kind no event has', { kind: 'fallback_started' }],
    ['an alert kind', { kind: 'site_unreachable' }],
    ['a flip cause', { kind: 'outcome_changed' }],
    ['critical', { severity: 'critical' }],
    ['warning', { severity: 'warning' }],
    ['info', { severity: 'info' }],
    ['a crawler', { crawler: 'GPTBot' }],
    ['a crawler that never flipped', { crawler: 'ClaudeBot' }],
    ['a portfolio', { portfolioId: 2 }],
    ['a portfolio, critical', { portfolioId: 2, severity: 'critical' }],
    ['a portfolio, a rare kind', { portfolioId: 1, kind: 'outcome' }],
    ['a period', { since: day(4), until: day(9) }],
    ['the night of two runs', { since: day(8), until: day(9) }],
    ['every filter', { portfolioId: 1, types: ['change'], kind: 'rules', severity: 'warning', since: day(2), until: day(12) }],
  ])('%s', async (_name, filters) => {
    const q = { ...base, ...filters };
    const expected = await reference(q);
    for (const size of [7, 50]) expect(await paged(q, size)).toEqual(expected);
  });
});

describe('a night by site equals the plain query', () => {
  async function referenceNight(runId: number, portfolioId: number | null, severity: Severity | null) {
    const { rows } = await db.pool.query<{ site_id: number; severity: Severity | null }>(
      `select e.site_id, min(e.severity) as severity from (
         select site_id, null::alert_severity as severity from snapshot_changes where run_id = $1
         union all select site_id, null from verdict_flips where run_id = $1
         union all select site_id, severity from alerts where run_id = $1) e
       join sites s on s.id = e.site_id
       where ($2::int is null or e.site_id in (select site_id from portfolio_sites where portfolio_id = $2))
       group by e.site_id, s.origin
       having $3::alert_severity is null or min(e.severity) <= $3
       order by min(e.severity) nulls last, s.origin`,
      [runId, portfolioId, severity],
    );
    return rows.map((r) => `${r.site_id} ${r.severity}`);
  }

  it.each<[number, number | null, Severity | null]>([
    [1, null, null],
    [6, null, null],
    [6, 2, null],
    [6, null, 'critical'],
    [7, null, 'warning'],
    [NIGHTS + 1, null, null],
    [3, 1, null],
  ])('run %i, portfolio %s, severity %s', async (runId, portfolioId, severity) => {
    const expected = await referenceNight(runId, portfolioId, severity);
    const got: string[] = [];
    for (let page = 1; page <= Math.ceil(expected.length / 8) + 1; page++) {
      const night = await nightEvents(db.pool, { runId, portfolioId, severity, page, pageSize: 8 });
      expect(night.matching).toBe(expected.length);
      got.push(...night.sites.map((s) => `${s.siteId} ${s.severity}`));
    }
    expect(got).toEqual(expected);
  });

  it('an outage is one line per site: its flips and its alert under one cause', async () => {
    const night = await nightEvents(db.pool, { runId: 6, portfolioId: null, severity: 'critical', page: 1, pageSize: 50 });
    const site = night.sites[0]!;
    expect(site.causes.map((c) => c.cause)).toEqual(['outcome']);
    const outage = site.causes[0]!;
    expect(outage).toMatchObject({ severity: 'critical', kinds: ['outcome', 'policy'], what: ['fetch ok → server_error', 'policy rules → disallow_all'] });
    expect(outage.flipCount).toBe(10);
    expect(outage.alerts.map((a) => a.kind)).toEqual(['site_unreachable']);
  });
});
