/**
 * The dashboard's "Changes and flips": the portfolio's events newest first (a site's night that
 * changed, a verdict that flipped, an alert raised), filtered by kind, severity, crawler and
 * period, a page at a time.
 *
 * Pages are cut by a cursor (the last row's night, site, event and id), not an offset: each
 * branch reads the nights newest first and stops once the page is full, so a page costs the
 * nights it shows, not the year behind them.
 */
import type pg from 'pg';
import type { FlipRule } from '../db/schema.js';
import { describeRobotsDiff } from '../robots/diff.js';
import type { RobotsDiff } from '../robots/diff.js';
import { ruleText } from './report-flips.js';
import { ALERT_KINDS } from '../services/alerting/alert-rules.js';
import { inPortfolio } from './report-filters.js';

export const EVENT_TYPES = ['change', 'flip', 'alert'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** snapshot_changes.kinds (ChangeKind in src/services/site-night.ts). */
export const CHANGE_KINDS = ['first_seen', 'raw', 'comments_only', 'rules', 'sitemaps', 'records', 'outcome', 'policy', 'fallback_started', 'fallback_ended'];
/** verdict_flips.cause (FlipCause in src/services/site-night.ts). */
export const FLIP_CAUSES = ['rules_changed', 'outcome_changed', 'fallback_started', 'fallback_ended'];
/** alerts.kind: the pipeline's own list. */
export { ALERT_KINDS };

export interface EventCursor {
  at: Date;
  origin: string;
  rank: number;
  id: number;
}

export interface EventQuery {
  portfolioId: number | null;
  types: readonly EventType[];
  /** A change kind, a flip cause or an alert kind. */
  kind: string | null;
  /**
   * At least this severe: an alert by its own severity, a change or a flip by the most severe
   * alert its site raised that night.
   */
  severity: Severity | null;
  /** A flip's crawler token (any case); only flips match. */
  crawler: string | null;
  since: Date | null;
  until: Date | null;
  after: EventCursor | null;
  pageSize: number;
}

export interface SiteEvent {
  type: EventType;
  at: Date;
  runId: number;
  siteId: number;
  origin: string;
  /** The change's kinds, the flip's cause, the alert's kind. */
  kinds: string[];
  severity: Severity | null;
  /** One line: the semantic diff, the flip, the alert's title. */
  summary: string;
  /** Flips: the URL and the crawler. */
  url: string | null;
  agent: string | null;
  verdict: string | null;
  cursor: EventCursor;
}

export interface EventsPage {
  events: SiteEvent[];
  /** The cursor of the next (older) page, or null when this is the last. */
  next: EventCursor | null;
}

interface EventRow {
  at: Date;
  origin: string;
  rank: number;
  id: string;
  site_id: number;
  run_id: number;
  kinds: string[];
  severity: Severity | null;
  outcome_from: string | null;
  outcome_to: string | null;
  policy_from: string | null;
  policy_to: string | null;
  rule_diff: RobotsDiff | null;
  url: string | null;
  agent: string | null;
  from_allowed: boolean | null;
  to_allowed: boolean | null;
  rule_after: FlipRule | null;
  title: string | null;
}

/** The worst alert of the event's site on the event's night. */
const NIGHT_SEVERITY = (alias: string) =>
  `(select min(l.severity) from alerts l where l.site_id = ${alias}.site_id and l.run_id = ${alias}.run_id)`;

/** Nights read by the first query of a page; each further query reads twice as many. */
const FIRST_NIGHTS = 1;

export async function eventsPage(pool: pg.Pool, query: EventQuery): Promise<EventsPage> {
  const want = (t: EventType) => query.types.includes(t) && (query.crawler === null || t === 'flip');
  const types = EVENT_TYPES.filter(want);
  if (types.length === 0) return { events: [], next: null };
  const c = query.after;
  const nights = await pool.query<{ id: number }>(
    `select id from audit_runs
     where ($1::timestamptz is null or run_at >= $1) and ($2::timestamptz is null or run_at < $2) and ($3::timestamptz is null or run_at <= $3)
     order by run_at desc, id desc`,
    [query.since, query.until, c?.at ?? null],
  );
  const runIds = nights.rows.map((r) => r.id);
  const rows: EventRow[] = [];
  let from = 0;
  let chunk = FIRST_NIGHTS;
  // The nights newest first, a few at a time, until the page (and one row more) is full.
  while (from < runIds.length && rows.length <= query.pageSize) {
    const ids = runIds.slice(from, from + chunk);
    rows.push(...(await eventsOfNights(pool, query, types, ids, query.pageSize + 1 - rows.length)));
    from += chunk;
    chunk *= 2;
  }
  const page = rows.slice(0, query.pageSize).map(toEvent);
  return { events: page, next: rows.length > query.pageSize ? page.at(-1)!.cursor : null };
}

/** The events of some nights that match the query, after the cursor, in page order, at most `limit`. */
async function eventsOfNights(pool: pg.Pool, query: EventQuery, types: readonly EventType[], runIds: number[], limit: number): Promise<EventRow[]> {
  const c = query.after;
  // $1 portfolio, $2 kind, $3 severity, $4 crawler, $5 nights, $6..$9 cursor, $10 limit
  const params = [query.portfolioId, query.kind, query.severity, query.crawler?.toLowerCase() ?? null, runIds, c?.at ?? null, c?.origin ?? null, c?.rank ?? null, c?.id ?? null, limit];
  const branches: Record<EventType, string> = {
    change: `select r.run_at as at, s.origin, 1 as rank, c.id::bigint as id, c.site_id, c.run_id, c.kinds,
        c.outcome_from::text as outcome_from, c.outcome_to::text as outcome_to, c.policy_from::text as policy_from, c.policy_to::text as policy_to,
        c.rule_diff, null::text as url, null::text as agent, null::boolean as from_allowed, null::boolean as to_allowed, null::jsonb as rule_after,
        null::text as title, null::alert_severity as own_severity
      from audit_runs r join snapshot_changes c on c.run_id = r.id join sites s on s.id = c.site_id
      where r.id = any($5::int[]) and ${inPortfolio('c.site_id')} and ($2::text is null or $2 = any(c.kinds))
        and ($3::alert_severity is null or ${NIGHT_SEVERITY('c')} <= $3)`,
    flip: `select r.run_at as at, s.origin, 2 as rank, f.id, f.site_id, f.run_id, array[f.cause] as kinds,
        null::text as outcome_from, null::text as outcome_to, null::text as policy_from, null::text as policy_to, null::jsonb as rule_diff,
        t.url, a.token as agent, f.from_allowed, f.to_allowed, f.rule_after, null::text as title, null::alert_severity as own_severity
      from audit_runs r join verdict_flips f on f.run_id = r.id join sites s on s.id = f.site_id
      join tracked_urls t on t.id = f.tracked_url_id join user_agents a on a.id = f.user_agent_id
      where r.id = any($5::int[]) and ${inPortfolio('f.site_id')} and ($2::text is null or f.cause = $2) and ($4::text is null or lower(a.token) = $4)
        and ($3::alert_severity is null or ${NIGHT_SEVERITY('f')} <= $3)`,
    alert: `select r.run_at as at, s.origin, 3 as rank, l.id, l.site_id, l.run_id, array[l.kind] as kinds,
        null::text as outcome_from, null::text as outcome_to, null::text as policy_from, null::text as policy_to, null::jsonb as rule_diff,
        null::text as url, null::text as agent, null::boolean as from_allowed, null::boolean as to_allowed, null::jsonb as rule_after,
        l.title, l.severity as own_severity
      from audit_runs r join alerts l on l.run_id = r.id join sites s on s.id = l.site_id
      where r.id = any($5::int[]) and ${inPortfolio('l.site_id')} and ($2::text is null or l.kind = $2) and ($3::alert_severity is null or l.severity <= $3)`,
  };
  // The nights' order is known: the cursor and the sort only order the rows within the nights read.
  const { rows } = await pool.query<EventRow>(
    // The CTE types every parameter, whichever branches use them.
    `with params as (select $1::int as portfolio, $2::text as kind, $3::alert_severity as severity, $4::text as crawler)
     select e.*, coalesce(e.own_severity, ${NIGHT_SEVERITY('e')}) as severity
     from (
       select * from (${types.map((t) => branches[t]).join('\nunion all\n')}) u
       where $6::timestamptz is null or u.at < $6
          or (u.at = $6 and (u.origin, u.rank, u.id) > ($7::text, $8::int, $9::bigint))
       order by u.at desc, u.origin, u.rank, u.id
       limit $10
     ) e
     order by e.at desc, e.origin, e.rank, e.id`,
    params,
  );
  return rows;
}

const move = (from: string | null, to: string | null) => (from === null || from === to ? (to ?? '') : `${from} → ${to}`);
const verdictWord = (allowed: boolean | null) => (allowed === null ? 'none' : allowed ? 'allowed' : 'disallowed');

function toEvent(r: EventRow): SiteEvent {
  const type: EventType = r.rank === 1 ? 'change' : r.rank === 2 ? 'flip' : 'alert';
  let summary: string;
  if (type === 'change') {
    const semantic = r.rule_diff ? describeRobotsDiff(r.rule_diff).map((l) => l.trim()) : [];
    const moves = [r.outcome_from !== r.outcome_to && r.outcome_from !== null ? move(r.outcome_from, r.outcome_to) : null,
      r.policy_from !== r.policy_to && r.policy_from !== null ? move(r.policy_from, r.policy_to) : null].filter((m) => m !== null);
    summary = [...moves, ...semantic].join('; ');
  } else if (type === 'flip') {
    summary = `${verdictWord(r.from_allowed)} → ${verdictWord(r.to_allowed)}: ${ruleText(r.rule_after)}`;
  } else {
    summary = r.title ?? '';
  }
  return {
    type,
    at: r.at,
    runId: r.run_id,
    siteId: r.site_id,
    origin: r.origin,
    kinds: r.kinds,
    severity: r.severity,
    summary,
    url: r.url,
    agent: r.agent,
    verdict: type === 'flip' ? verdictWord(r.to_allowed) : null,
    cursor: { at: r.at, origin: r.origin, rank: r.rank, id: Number(r.id) },
  };
}

/** The crawlers a flip can name: the default agents and the AI crawlers of the catalogue. */
export async function flipCrawlers(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ token: string }>(
    `select token from user_agents where is_default or category like 'ai-%' order by lower(token)`,
  );
  return rows.map((r) => r.token);
}
