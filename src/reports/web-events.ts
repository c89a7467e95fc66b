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
import type { FlipRule } from '../night/rows.js';
import type { AlertSeverity } from '../night/vocabulary.js';
import { semanticLines } from './night-events.js';
import type { RobotsDiff } from '../robots/diff.js';
import { ruleText } from './report-flips.js';
import { inPortfolio } from './report-filters.js';

export const EVENT_TYPES = ['change', 'flip', 'alert'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

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
  severity: AlertSeverity | null;
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
  severity: AlertSeverity | null;
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
  severity: AlertSeverity | null;
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

/** Nights read by the first query of a page; each further query reads twice as many, up to MAX_NIGHTS. */
const FIRST_NIGHTS = 1;
/** Nights read by one query at most (each is three subqueries to plan). */
const MAX_NIGHTS = 16;

interface NightRef {
  id: number;
  at: Date;
}

/*
 * Parameters of every query below: $1 portfolio, $2 kind, $3 severity, $4 crawler (lower-case).
 * A condition is written only when its filter is set, so each query is planned for what it asks.
 */
const TYPED_FILTERS = 'typed_filters as (select $1::int, $2::text, $3::alert_severity, $4::text)';

interface Conditions {
  portfolio: boolean;
  kind: boolean;
  severity: boolean;
  crawler: boolean;
  /** The nights that have a change of the kind are known ($8): the changes' probe looks at those only. */
  kindNights?: boolean;
}

const all = (conditions: (string | false)[]) => conditions.filter((c) => c !== false).map((c) => ` and ${c}`).join('');
/** An alert of the site (`alias`.site_id) on the night (`run`) at least as severe as $3. */
const nightAtLeast = (alias: string, run: string) => `exists (select 1 from alerts l where l.site_id = ${alias}.site_id and l.run_id = ${run} and l.severity <= $3)`;

/** The conditions of each kind of event (alias c, f, l) on the night `run`, for the filters set. */
const CONDITIONS: Record<EventType, (f: Conditions, run: string) => string> = {
  change: (f, run) => all([f.kind && '$2 = any(c.kinds)', f.portfolio && inPortfolio('c.site_id'), f.severity && nightAtLeast('c', run)]),
  flip: (f, run) =>
    all([
      f.kind && 'f.cause = $2',
      f.crawler && 'f.user_agent_id in (select a.id from user_agents a where lower(a.token) = $4)',
      f.portfolio && inPortfolio('f.site_id'),
      f.severity && nightAtLeast('f', run),
    ]),
  alert: (f) => all([f.kind && 'l.kind = $2', f.severity && 'l.severity <= $3', f.portfolio && inPortfolio('l.site_id')]),
};

/**
 * Per kind of event, "the night `run` has one that matches": true, or null when it has none. A
 * scalar subquery with LIMIT 1, so that Postgres probes night by night through the night's
 * index and stops at the first match; an EXISTS under OR it turns into one hashed scan of the
 * whole table (250,000 alerts joined to 330,000 changes, 170 ms at 100,000 sites x 365 nights).
 * Changes with a severity are found from the night's alerts that severe (through alerts
 * (run_id, severity)), not by reading every change of the night.
 */
const HAS_MATCH: Record<EventType, (f: Conditions, run: string) => string> = {
  change: (f, run) =>
    f.kindNights
      ? `(case when ${run} = any($8::int[]) then ${HAS_CHANGE({ ...f, kindNights: false }, run)} end)`
      : HAS_CHANGE(f, run),
  flip: (f, run) => `(select true from verdict_flips f where f.run_id = ${run}${CONDITIONS.flip(f, run)} limit 1)`,
  alert: (f, run) => `(select true from alerts l where l.run_id = ${run}${CONDITIONS.alert(f, run)} limit 1)`,
};

const HAS_CHANGE = (f: Conditions, run: string) =>
  f.severity
    ? `(select true from alerts l join snapshot_changes c on c.site_id = l.site_id and c.run_id = l.run_id
         where l.run_id = ${run} and l.severity <= $3${all([f.kind && '$2 = any(c.kinds)', f.portfolio && inPortfolio('l.site_id')])} limit 1)`
    : `(select true from snapshot_changes c where c.run_id = ${run}${CONDITIONS.change(f, run)} limit 1)`;

/** The probes from the cheapest (an alert of a kind or severity: one index entry) to the dearest (a night's changes). */
const PROBE_ORDER: readonly EventType[] = ['alert', 'flip', 'change'];

/** Changes of a kind read at most to tell a rare kind (its nights known at once) from a common one. */
const KIND_SAMPLE = 5_000;

/**
 * The nights with a change of this kind, through the GIN index on kinds, when the kind is rare
 * (fewer than KIND_SAMPLE changes in all); null when it is common: then most nights have one,
 * and probing night by night finds it at once.
 */
async function nightsWithChangeKind(pool: pg.Pool, kind: string): Promise<number[] | null> {
  const { rows } = await pool.query<{ run_id: number; n: number }>(
    'select run_id, count(*)::int as n from (select run_id from snapshot_changes where kinds @> array[$1::text] limit $2) x group by run_id',
    [kind, KIND_SAMPLE],
  );
  return rows.reduce((n, r) => n + r.n, 0) < KIND_SAMPLE ? rows.map((r) => r.run_id) : null;
}

export async function eventsPage(pool: pg.Pool, query: EventQuery): Promise<EventsPage> {
  const want = (t: EventType) => query.types.includes(t) && (query.crawler === null || t === 'flip');
  const types = EVENT_TYPES.filter(want);
  if (types.length === 0) return { events: [], next: null };
  const c = query.after;
  const filters = [query.portfolioId, query.kind, query.severity, query.crawler?.toLowerCase() ?? null];
  const set: Conditions = { portfolio: query.portfolioId !== null, kind: query.kind !== null, severity: query.severity !== null, crawler: query.crawler !== null };
  // A filter that may match few events (a small portfolio too): only the nights that have one are read.
  const selective = set.kind || set.severity || set.crawler || set.portfolio;
  const kindNights = query.kind !== null && types.includes('change') ? await nightsWithChangeKind(pool, query.kind) : null;
  const nights = await pool.query<NightRef>(
    `with ${TYPED_FILTERS}, typed_nights as (select $8::int[])
     select r.id, r.run_at as at from audit_runs r
     where ($5::timestamptz is null or r.run_at >= $5) and ($6::timestamptz is null or r.run_at < $6) and ($7::timestamptz is null or r.run_at <= $7)
       ${selective ? `and coalesce(${PROBE_ORDER.filter((t) => types.includes(t)).map((t) => HAS_MATCH[t]({ ...set, kindNights: kindNights !== null }, 'r.id')).join(', ')}, false)` : ''}
     order by r.run_at desc, r.id desc`,
    [...filters, query.since, query.until, c?.at ?? null, kindNights],
  );
  const list = nights.rows;
  const rows: EventRow[] = [];
  let from = 0;
  let chunk = FIRST_NIGHTS;
  // The nights newest first, a few at a time, until the page (and one row more) is full; runs
  // that share a night's time are read together (their events interleave by origin).
  while (from < list.length && rows.length <= query.pageSize) {
    let to = Math.min(list.length, from + chunk);
    while (to < list.length && list[to]!.at.getTime() === list[to - 1]!.at.getTime()) to++;
    rows.push(...(await eventsOfNights(pool, query, types, set, filters, list.slice(from, to), query.pageSize + 1 - rows.length)));
    from = to;
    chunk = Math.min(MAX_NIGHTS, chunk * 2);
  }
  const page = rows.slice(0, query.pageSize).map(toEvent);
  return { events: page, next: rows.length > query.pageSize ? page.at(-1)!.cursor : null };
}

const COLUMNS = `at, origin, rank, id, site_id, run_id, kinds, outcome_from, outcome_to, policy_from, policy_to, rule_diff, url, agent,
  from_allowed, to_allowed, rule_after, title, own_severity`;

/**
 * The events of some nights that match, after the cursor, in page order, at most `limit`. Each
 * night and kind of event is its own ordered, limited subquery with the night's id written in,
 * so the planner plans it for that night's size (a first night of 100,000 changes walks the
 * sites by origin and stops at the limit; a night of a few hundred reads them all).
 */
async function eventsOfNights(
  pool: pg.Pool,
  query: EventQuery,
  types: readonly EventType[],
  set: Conditions,
  filters: unknown[],
  nights: readonly NightRef[],
  limit: number,
): Promise<EventRow[]> {
  const c = query.after;
  // $5..$7 cursor, $8 limit, $9.. the nights' times
  const afterCursor = (night: NightRef, key: string) =>
    c !== null && night.at.getTime() === c.at.getTime() ? `and (s.origin, ${key}) > ($5::text, $6::int, $7::bigint)` : '';
  const branches: Record<EventType, (night: NightRef, at: string) => string> = {
    change: (n, at) => `(select ${at}::timestamptz as at, s.origin, 1 as rank, c.id::bigint as id, c.site_id, c.run_id, c.kinds,
        c.outcome_from::text as outcome_from, c.outcome_to::text as outcome_to, c.policy_from::text as policy_from, c.policy_to::text as policy_to,
        c.rule_diff, null::text as url, null::text as agent, null::boolean as from_allowed, null::boolean as to_allowed, null::jsonb as rule_after,
        null::text as title, null::alert_severity as own_severity
      from snapshot_changes c join sites s on s.id = c.site_id
      where c.run_id = ${n.id}${CONDITIONS.change(set, String(n.id))} ${afterCursor(n, '1, c.id::bigint')}
      order by s.origin, c.id limit $8)`,
    flip: (n, at) => `(select ${at}::timestamptz, s.origin, 2, f.id, f.site_id, f.run_id, array[f.cause],
        null::text, null::text, null::text, null::text, null::jsonb,
        t.url, a.token, f.from_allowed, f.to_allowed, f.rule_after, null::text, null::alert_severity
      from verdict_flips f join sites s on s.id = f.site_id join tracked_urls t on t.id = f.tracked_url_id join user_agents a on a.id = f.user_agent_id
      where f.run_id = ${n.id}${CONDITIONS.flip(set, String(n.id))} ${afterCursor(n, '2, f.id')}
      order by s.origin, f.id limit $8)`,
    alert: (n, at) => `(select ${at}::timestamptz, s.origin, 3, l.id, l.site_id, l.run_id, array[l.kind],
        null::text, null::text, null::text, null::text, null::jsonb,
        null::text, null::text, null::boolean, null::boolean, null::jsonb, l.title, l.severity
      from alerts l join sites s on s.id = l.site_id
      where l.run_id = ${n.id}${CONDITIONS.alert(set, String(n.id))} ${afterCursor(n, '3, l.id')}
      order by s.origin, l.id limit $8)`,
  };
  const parts: string[] = [];
  const params: unknown[] = [...filters, c?.origin ?? null, c?.rank ?? null, c?.id ?? null, limit];
  for (const night of nights) {
    params.push(night.at);
    for (const t of types) parts.push(branches[t](night, `$${params.length}`));
  }
  const { rows } = await pool.query<EventRow>(
    `with ${TYPED_FILTERS}, typed_cursor as (select $5::text, $6::int, $7::bigint)
     select ${COLUMNS}, coalesce(e.own_severity, ${NIGHT_SEVERITY('e')}) as severity
     from (${parts.join('\nunion all\n')}) e (${COLUMNS})
     order by e.at desc, e.origin, e.rank, e.id
     limit $8`,
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
    // As the night page lists them: 8,000 sitemaps changed are not one line of 1 MB.
    const semantic = semanticLines(r.rule_diff);
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
