/**
 * The dashboard's overview: every site, a page at a time (a portfolio of 100,000 sites is never
 * read whole), with counts of the whole selection at the top. The page's ids come from `sites`
 * and `site_state` alone (sorted by an index or a top-N sort); what a row shows besides (its
 * portfolios, since when its policy holds, its last change, its AI access) is read for those
 * rows only.
 */
import type pg from 'pg';
import { STATE_CONDITION } from './site-state-conditions.js';
import { SITE_STATES } from './site-states.js';
import type { SiteState } from './site-states.js';
import { ACCESS_COLUMNS, blockedByCategory, blockedCrawlers, loadAiCrawlers } from './report-ai-access.js';
import type { AiCrawler } from './report-ai-access.js';
import { inPortfolio } from './report-filters.js';
import { POLICY_EVENTS } from './site-lookup.js';

export { SITE_STATES };
export type { SiteState };

export const OVERVIEW_SORTS = ['site', 'status', 'policy', 'changed', 'failing', 'checked'] as const;
export type OverviewSort = (typeof OVERVIEW_SORTS)[number];

/** The count of the summary that a state's list has as many sites as. */
export const STATE_COUNT: Record<SiteState, keyof OverviewCounts | null> = {
  audited: 'audited',
  ok: 'ok',
  failing: 'failing',
  unavailable: 'unavailable',
  disallow_all: 'disallowAll',
  fallback: 'fallback',
  changed: 'changedRecently',
  never: null,
  unverified: 'unverified',
  flapping: 'flapping',
};

export interface OverviewQuery {
  portfolioId: number | null;
  /** Part of the origin, any case. */
  search: string | null;
  /** Only the sites in this state (a summary card's list); null: every site. */
  state: SiteState | null;
  sort: OverviewSort;
  descending: boolean;
  /** 1-based. */
  page: number;
  pageSize: number;
}

export interface OverviewCounts {
  sites: number;
  audited: number;
  ok: number;
  failing: number;
  unavailable: number;
  disallowAll: number;
  fallback: number;
  changedRecently: number;
  /** Behind a bot wall: the policy is unverified (issue 18). */
  unverified: number;
  flapping: number;
}

export interface AiSummary {
  blocked: number;
  total: number;
  /** Blocked / total per category (`ai-training` ...). */
  byCategory: { category: AiCrawler['category']; blocked: number; total: number }[];
  /** The blocked crawlers' tokens (a few, for the row's tooltip). */
  names: string[];
}

export interface OverviewRow {
  siteId: number;
  origin: string;
  enabled: boolean;
  portfolios: string[];
  /** Null until the site's first night. */
  outcome: string | null;
  status: number | null;
  policy: string | null;
  policyReason: string | null;
  policySince: Date | null;
  failedNights: number;
  unreachableSince: Date | null;
  checkedAt: Date | null;
  lastChangeAt: Date | null;
  lastChangeKinds: string[];
  /** A bot wall answers instead of the site since this night: the policy is the last known one, unverified. */
  unverifiedSince: Date | null;
  /** The site's robots.txt flaps between versions since this night. */
  flappingSince: Date | null;
  ai: AiSummary | null;
}

export interface OverviewPage {
  counts: OverviewCounts;
  /** Sites matching the search, portfolio and state: what the pages divide. */
  matching: number;
  rows: OverviewRow[];
}

/**
 * The ORDER BY of each sort over site_state (`x`), with the site id as the tie-breaker so pages
 * never overlap. `site` is apart: it walks the origin index of `sites`.
 */
const ORDER: Record<Exclude<OverviewSort, 'site'>, (dir: string) => string> = {
  status: (dir) => `x.outcome ${dir}, x.status ${dir} nulls last, x.site_id`,
  policy: (dir) => `x.policy ${dir}, x.policy_reason ${dir}, x.site_id`,
  changed: (dir) => `lc.run_at ${dir} nulls last, x.site_id`,
  failing: (dir) => `x.failed_nights ${dir}, x.unreachable_since ${dir === 'desc' ? 'asc' : 'desc'} nulls last, x.site_id`,
  checked: (dir) => `x.run_at ${dir}, x.site_id`,
};

/**
 * The filters on a site id (`$1`: portfolio) and its origin (`$2`: part of it). `strpos` on the
 * lower-cased text: origins are stored lower-case (normalizeOrigin), and it is several times
 * faster than ILIKE.
 */
const filter = (id: string) => `${inPortfolio(id)}
  and ($2::text is null or strpos(s.origin, $2) > 0)`;
/** Sites (alias `s`) in the portfolio ($1, or any) whose origin holds the search ($2, or any). */
export const FILTER = filter('s.id');

/** A page's search as the filters take it: trimmed, lower-case, null when empty. */
export const normalizeSearch = (search: string | null) => (search === null || search.trim() === '' ? null : search.trim().toLowerCase());

export async function overviewPage(pool: pg.Pool, query: OverviewQuery): Promise<OverviewPage> {
  const search = normalizeSearch(query.search);
  const params = [query.portfolioId, search];
  const offset = (Math.max(1, query.page) - 1) * query.pageSize;
  const state = query.state;
  // The sites never audited have no night to sort by: listed by origin.
  const byOrigin = query.sort === 'site' || state === 'never';
  const key = state === null ? null : STATE_COUNT[state];
  const matchingOf = (counts: OverviewCounts) => (state === null ? counts.sites : key === null ? counts.sites - counts.audited : counts[key]);
  const firstIds = () =>
    byOrigin ? sitesByOrigin(pool, params, query.sort === 'site' && query.descending, query.pageSize, offset, state) : auditedIds(pool, query, params, offset);
  let counts: OverviewCounts;
  let first: number[];
  if (params.every((p) => p === null)) {
    // Counts of every site are a few rows (site_counts): read first, so that a list they say is
    // empty (a card no site is in, a page past the end) is not looked for. Walking all 1,000,000
    // sites to find none took 1.2 s for the "never audited" card, 3.9 s for "failing" (bench:million).
    counts = await overviewCounts(pool, params);
    first = offset < matchingOf(counts) ? await firstIds() : [];
  } else {
    [counts, first] = await Promise.all([overviewCounts(pool, params), firstIds()]);
  }
  // Sorted by a night's column, the sites never audited come after the audited ones, by origin.
  const ids =
    byOrigin || state !== null || first.length === query.pageSize || counts.sites === counts.audited
      ? first
      : [...first, ...(await sitesByOrigin(pool, params, false, query.pageSize - first.length, Math.max(0, offset - counts.audited), 'never'))];
  const rows = await describeSites(pool, ids);
  const matching = matchingOf(counts);
  return { counts, matching, rows };
}

/** Each count of the summary as a condition on a site's latest night (`x`: site_state, or a group of site_counts). */
const COUNTED: [keyof Omit<OverviewCounts, 'sites' | 'audited'>, string][] = [
  ['ok', STATE_CONDITION.ok],
  ['failing', STATE_CONDITION.failing],
  ['unavailable', STATE_CONDITION.unavailable],
  ['disallowAll', STATE_CONDITION.disallow_all],
  ['fallback', STATE_CONDITION.fallback],
  ['changedRecently', STATE_CONDITION.changed],
  ['unverified', STATE_CONDITION.unverified],
  ['flapping', STATE_CONDITION.flapping],
];

/**
 * The counts. Of every site: summed from `site_counts` (migration 0022: the sites and their
 * states in groups, kept by triggers in the writers' transactions), a few rows whatever the
 * number of sites. With a portfolio or a search: site_state joined to the sites that match, and
 * the sites never audited the difference with a count of them.
 */
async function overviewCounts(pool: pg.Pool, params: unknown[]): Promise<OverviewCounts> {
  if (params.every((p) => p === null)) {
    const { rows } = await pool.query<OverviewCounts>(
      `select coalesce(sum(x.n) filter (where not x.audited), 0)::int as sites,
              coalesce(sum(x.n) filter (where x.audited), 0)::int as audited,
              ${COUNTED.map(([name, condition]) => `coalesce(sum(x.n) filter (where x.audited and ${condition}), 0)::int as "${name}"`).join(',\n              ')}
       from site_counts x`,
    );
    return rows[0]!;
  }
  const [state, sites] = await Promise.all([
    pool.query<Omit<OverviewCounts, 'sites'>>(
      `select count(*)::int as audited,
              ${COUNTED.map(([name, condition]) => `count(*) filter (where ${condition})::int as "${name}"`).join(',\n              ')}
       from site_state x join sites s on s.id = x.site_id where ${filter('x.site_id')}`,
      params,
    ),
    pool.query<{ sites: number }>(`select count(*)::int as sites from sites s where ${FILTER}`, params),
  ]);
  return { sites: sites.rows[0]!.sites, ...state.rows[0]! };
}

async function sitesByOrigin(pool: pg.Pool, params: unknown[], descending: boolean, limit: number, offset: number, state: SiteState | null): Promise<number[]> {
  const inState =
    state === null ? '' : state === 'never' ? 'and not exists (select 1 from site_state x where x.site_id = s.id)'
      : `and exists (select 1 from site_state x where x.site_id = s.id and ${STATE_CONDITION[state]})`;
  const { rows } = await pool.query<{ id: number }>(
    `select s.id from sites s
     where ${FILTER} ${inState}
     order by s.origin ${descending ? 'desc' : 'asc'}
     limit $3 offset $4`,
    [...params, limit, offset],
  );
  return rows.map((r) => r.id);
}

/** A page of the audited sites sorted by a column of their latest night: site_state alone, unless the search needs the origin. */
async function auditedIds(pool: pg.Pool, query: OverviewQuery, params: unknown[], offset: number): Promise<number[]> {
  const sort = query.sort as Exclude<OverviewSort, 'site'>;
  const { rows } = await pool.query<{ id: number }>(
    `select x.site_id as id from site_state x ${params[1] === null ? '' : 'join sites s on s.id = x.site_id'}
     ${sort === 'changed' ? 'left join audit_runs lc on lc.id = x.last_change_run_id' : ''}
     where ${params[1] === null ? `${inPortfolio('x.site_id')} and $2::text is null` : filter('x.site_id')}
       and ${query.state === null || query.state === 'never' ? 'true' : STATE_CONDITION[query.state]}
     order by ${ORDER[sort](query.descending ? 'desc' : 'asc')}
     limit $3 offset $4`,
    [...params, query.pageSize, offset],
  );
  return rows.map((r) => r.id);
}

interface SiteRow {
  site_id: number;
  origin: string;
  enabled: boolean;
  portfolios: string[];
  outcome: string | null;
  status: number | null;
  policy: string | null;
  policy_reason: string | null;
  policy_since: Date | null;
  failed_nights: number | null;
  unreachable_since: Date | null;
  checked_at: Date | null;
  last_change_at: Date | null;
  last_change_kinds: string[] | null;
  challenged_since: Date | null;
  flapping_since: Date | null;
  star_allowed: boolean | null;
  exceptions: Record<string, boolean> | null;
}

/** The rows of the given sites, in the given order. */
export async function describeSites(pool: pg.Pool, ids: readonly number[]): Promise<OverviewRow[]> {
  if (ids.length === 0) return [];
  const [{ rows }, crawlers] = await Promise.all([
    pool.query<SiteRow>(
      `select s.id as site_id, s.origin, s.enabled,
              coalesce((select array_agg(p.name order by p.name) from portfolio_sites ps join portfolios p on p.id = ps.portfolio_id where ps.site_id = s.id), '{}') as portfolios,
              x.outcome, x.status, x.policy, x.policy_reason, x.failed_nights, x.unreachable_since, x.run_at as checked_at,
              x.challenged_since, x.flapping_since,
              (select r.run_at from snapshot_changes c join audit_runs r on r.id = c.run_id
               where c.site_id = s.id and c.kinds && '{${POLICY_EVENTS.join(',')}}'::text[]
               order by r.run_at desc limit 1) as policy_since,
              lc.run_at as last_change_at,
              (select c.kinds from snapshot_changes c where c.site_id = s.id and c.run_id = x.last_change_run_id) as last_change_kinds,
              ${ACCESS_COLUMNS}
       from unnest($1::int[]) with ordinality as page(id, n)
       join sites s on s.id = page.id
       left join site_state x on x.site_id = s.id
       left join audit_runs lc on lc.id = x.last_change_run_id
       order by page.n`,
      [ids],
    ),
    loadAiCrawlers(pool),
  ]);
  return rows.map((r) => ({
    siteId: r.site_id,
    origin: r.origin,
    enabled: r.enabled,
    portfolios: r.portfolios,
    outcome: r.outcome,
    status: r.status,
    policy: r.policy,
    policyReason: r.policy_reason,
    policySince: r.policy_since,
    failedNights: r.failed_nights ?? 0,
    unreachableSince: r.unreachable_since,
    checkedAt: r.checked_at,
    lastChangeAt: r.last_change_at,
    lastChangeKinds: r.last_change_kinds ?? [],
    unverifiedSince: r.challenged_since,
    flappingSince: r.flapping_since,
    ai: r.policy === null ? null : aiSummary({ policy: r.policy, starAllowed: r.star_allowed ?? true, exceptions: r.exceptions ?? {} }, crawlers),
  }));
}

export function aiSummary(access: Parameters<typeof blockedCrawlers>[0], crawlers: readonly AiCrawler[]): AiSummary {
  const blocked = blockedCrawlers(access, crawlers);
  return {
    blocked: blocked.length,
    total: crawlers.length,
    byCategory: blockedByCategory(blocked, crawlers),
    names: blocked.map((c) => c.token),
  };
}
