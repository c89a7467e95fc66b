/**
 * What happened on one night (a run), by site: each site that changed, flipped or raised an
 * alert that night, its events grouped by cause, one line per cause. A new file's rules, an
 * outage (the fetch outcome and the policy moving, with the twenty verdicts it flipped and the
 * alert it raised), the 30-day fallback, usage preferences that changed (usage_flips), a first
 * sighting: each is one line that opens on its details, not twenty rows. Sites with the worst alert first, then by origin; a page at a time,
 * read through the night's indexes (snapshot_changes, verdict_flips, usage_flips and alerts by run).
 */
import type pg from 'pg';
import type { FlipRule } from '../night/rows.js';
import { DEFAULT_TEXT_DIFF_MAX_LINE_CHARS, describeRobotsDiff } from '../robots/diff.js';
import type { RobotsDiff } from '../robots/diff.js';
import { move } from './report-changes.js';
import { ruleText } from './report-flips.js';
import { inPortfolio } from './report-filters.js';
import { usageFlipLines } from './usage-flips.js';
import type { UsageFlipEvent } from './usage-flips.js';
import { SEVERITIES } from '../night/vocabulary.js';
import type { AlertSeverity } from '../night/vocabulary.js';

/** Lines of a night's rule diff shown per site, at most (the rest counted). */
export const MAX_RULE_DIFF_LINES = 200;

/**
 * A night's semantic diff as a page shows it: at most MAX_RULE_DIFF_LINES lines, the rest
 * counted, each cut as a line of the text diff is (a group line names every user-agent of its
 * token: 12,000 of them in a 500 KiB file). The night page and the changes feed read it.
 */
export function semanticLines(diff: RobotsDiff | null): string[] {
  const all = diff ? describeRobotsDiff(diff) : [];
  const max = DEFAULT_TEXT_DIFF_MAX_LINE_CHARS;
  const shown = all.slice(0, MAX_RULE_DIFF_LINES).map((l) => {
    const line = l.trim();
    return line.length <= max ? line : `${line.slice(0, max)}… (${line.length - max} more characters)`;
  });
  return all.length <= MAX_RULE_DIFF_LINES ? shown : [...shown, `… and ${all.length - MAX_RULE_DIFF_LINES} more lines`];
}

/**
 * Why a site's events happened: the rules of a new file, the fetch, the 30-day fallback, usage
 * preferences changed (Content-Signal, Content-Usage: usage_flips and their alerts), its first night.
 */
export const NIGHT_CAUSES = ['outcome', 'fallback', 'rules', 'usage', 'first_seen', 'other'] as const;
export type NightCause = (typeof NIGHT_CAUSES)[number];

/** snapshot_changes.kinds → cause (a change may have two: a site back up with a new file). */
const CHANGE_KIND_CAUSE: Record<string, NightCause> = {
  first_seen: 'first_seen',
  outcome: 'outcome',
  policy: 'outcome',
  fallback_started: 'fallback',
  fallback_ended: 'fallback',
  raw: 'rules',
  comments_only: 'rules',
  rules: 'rules',
  sitemaps: 'rules',
  records: 'rules',
};

/** verdict_flips.cause → cause. */
const FLIP_CAUSE: Record<string, NightCause> = {
  rules_changed: 'rules',
  outcome_changed: 'outcome',
  fallback_started: 'fallback',
  fallback_ended: 'fallback',
};

/**
 * alerts.kind → cause. A policy transition's alert lists the flips it caused, and those flips
 * raise no alert of their own (src/services/alerting/alert-rules.ts), so every alert has one cause.
 */
const ALERT_CAUSE: Record<string, NightCause> = {
  site_unreachable: 'outcome',
  allow_all_4xx: 'outcome',
  site_recovered: 'outcome',
  fallback_started: 'fallback',
  fallback_ended: 'fallback',
  disallow_all_added: 'rules',
  search_url_disallowed: 'rules',
  search_url_allowed: 'rules',
  rules_changed: 'rules',
  ai_access_changed: 'rules',
  star_rules_bypassed: 'rules',
  sitemaps_changed: 'rules',
  records_changed: 'rules',
  comments_only: 'rules',
  ai_training_refused: 'usage',
  ai_training_allowed: 'usage',
  ai_input_refused: 'usage',
  ai_input_allowed: 'usage',
  search_use_refused: 'usage',
  search_use_allowed: 'usage',
  usage_preference_withdrawn: 'usage',
};

/** Flips listed per site and cause; the rest is counted (an outage flips every tracked URL x agent). */
export const FLIPS_LISTED = 100;

export interface NightRun {
  id: number;
  runKey: string;
  at: Date;
  status: string;
  portfolio: string | null;
}

export interface NightFlip {
  url: string;
  agent: string;
  before: boolean | null;
  after: boolean;
  rule: string;
}

export interface NightAlert {
  severity: AlertSeverity;
  kind: string;
  title: string;
}

export interface CauseLine {
  cause: NightCause;
  /** The worst alert of the cause; null when it raised none. */
  severity: AlertSeverity | null;
  /** The change's kinds of this cause (`outcome`, `policy`; `rules`, `raw`). */
  kinds: string[];
  /** Outcome and policy moves (`ok → server_error`), or the semantic diff's lines. */
  what: string[];
  flips: NightFlip[];
  /** Flips of the cause, listed or not. */
  flipCount: number;
  /** Usage flips of the cause (`usage`), listed in `what` or not. */
  usageFlipCount: number;
  alerts: NightAlert[];
}

export interface NightSite {
  siteId: number;
  origin: string;
  severity: AlertSeverity | null;
  causes: CauseLine[];
}

export interface NightQuery {
  /** null: the latest run. */
  runId: number | null;
  portfolioId: number | null;
  /** Only sites whose worst alert that night is at least this severe. */
  severity: AlertSeverity | null;
  page: number;
  pageSize: number;
}

export interface NightPage {
  run: NightRun | null;
  previous: NightRun | null;
  next: NightRun | null;
  /** Sites with an event that night, in the portfolio, at the severity asked. */
  matching: number;
  counts: { changes: number; flips: number; usageFlips: number; alerts: number };
  sites: NightSite[];
}

const RUN = `select r.id, r.run_key as "runKey", r.run_at as at, r.status, p.name as portfolio from audit_runs r left join portfolios p on p.id = r.portfolio_id`;

/** The run, or the latest one; with the runs just before and after it. */
export async function nightRuns(pool: pg.Pool, runId: number | null): Promise<{ run: NightRun | null; previous: NightRun | null; next: NightRun | null }> {
  const found = await pool.query<NightRun>(runId === null ? `${RUN} order by r.run_at desc, r.id desc limit 1` : `${RUN} where r.id = $1`, runId === null ? [] : [runId]);
  const run = found.rows[0] ?? null;
  if (!run) return { run: null, previous: null, next: null };
  const [previous, next] = await Promise.all([
    pool.query<NightRun>(`${RUN} where (r.run_at, r.id) < ($1, $2) order by r.run_at desc, r.id desc limit 1`, [run.at, run.id]),
    pool.query<NightRun>(`${RUN} where (r.run_at, r.id) > ($1, $2) order by r.run_at, r.id limit 1`, [run.at, run.id]),
  ]);
  return { run, previous: previous.rows[0] ?? null, next: next.rows[0] ?? null };
}

export async function nightEvents(pool: pg.Pool, query: NightQuery): Promise<NightPage> {
  const { run, previous, next } = await nightRuns(pool, query.runId);
  if (!run) return { run, previous, next, matching: 0, counts: { changes: 0, flips: 0, usageFlips: 0, alerts: 0 }, sites: [] };
  const { matching, counts, page } = await nightSitesPage(pool, run.id, query);
  const details = await siteEvents(pool, run.id, page.map((r) => r.site_id));
  return {
    run,
    previous,
    next,
    matching,
    counts,
    sites: page.map((r) => ({ siteId: r.site_id, origin: r.origin, severity: r.severity, causes: groupByCause(details.get(r.site_id) ?? emptyEvents()) })),
  };
}

interface NightSiteRow {
  site_id: number;
  origin: string;
  severity: AlertSeverity | null;
}

/**
 * The sites of a page of the night: first those that raised an alert (the worst first, then by
 * origin: few, read whole), then those that only changed or flipped, by origin. A night can hold
 * 100,000 changes (every site's first night): the second list is read through the sites' origin
 * index and stops at the page's end, never sorted whole; its count is the count of the night's
 * changes (one per site) and the few sites that only flipped.
 */
async function nightSitesPage(pool: pg.Pool, runId: number, query: NightQuery): Promise<{ matching: number; counts: NightPage['counts']; page: NightSiteRow[] }> {
  const offset = (Math.max(1, query.page) - 1) * query.pageSize;
  // $1 run, $2 portfolio
  const [alerted, counts] = await Promise.all([
    pool.query<NightSiteRow>(
      `select l.site_id, s.origin, min(l.severity) as severity
       from alerts l join sites s on s.id = l.site_id
       where l.run_id = $1 and ${inPortfolio('l.site_id', '$2')} and ($3::alert_severity is null or l.severity <= $3)
       group by l.site_id, s.origin
       order by 3, 2`,
      [runId, query.portfolioId, query.severity],
    ),
    pool.query<NightPage['counts']>(
      `select (select count(*)::int from snapshot_changes c where c.run_id = $1 and ${inPortfolio('c.site_id', '$2')}) as changes,
              (select count(*)::int from verdict_flips f where f.run_id = $1 and ${inPortfolio('f.site_id', '$2')}) as flips,
              (select count(*)::int from usage_flips u where u.run_id = $1 and ${inPortfolio('u.site_id', '$2')}) as "usageFlips",
              (select count(*)::int from alerts l where l.run_id = $1 and ${inPortfolio('l.site_id', '$2')}) as alerts`,
      [runId, query.portfolioId],
    ),
  ]);
  const first = alerted.rows.slice(offset, offset + query.pageSize);
  if (query.severity !== null) return { matching: alerted.rows.length, counts: counts.rows[0]!, page: first };
  const alertedIds = alerted.rows.map((r) => r.site_id);
  // $1 run, $2 portfolio, $3 the alerted sites
  const [flipOnly, alertedChanged] = await Promise.all([
    pool.query<{ site_id: number }>(
      `select distinct f.site_id from verdict_flips f
       where f.run_id = $1 and ${inPortfolio('f.site_id', '$2')} and f.site_id <> all($3::int[])
         and not exists (select 1 from snapshot_changes c where c.site_id = f.site_id and c.run_id = $1)`,
      [runId, query.portfolioId, alertedIds],
    ),
    pool.query<{ n: number }>('select count(*)::int as n from snapshot_changes c where c.run_id = $1 and c.site_id = any($2::int[])', [runId, alertedIds]),
  ]);
  const quiet = counts.rows[0]!.changes - alertedChanged.rows[0]!.n + flipOnly.rows.length;
  const want = query.pageSize - first.length;
  let rest: NightSiteRow[] = [];
  if (want > 0) {
    const skip = Math.max(0, offset - alerted.rows.length);
    const { rows } = await pool.query<NightSiteRow>(
      `select site_id, origin, null::alert_severity as severity from (
         (select c.site_id, s.origin from snapshot_changes c join sites s on s.id = c.site_id
          where c.run_id = $1 and ${inPortfolio('c.site_id', '$2')} and c.site_id <> all($3::int[])
          order by s.origin limit $4::int + $5::int)
         union all
         (select s.id, s.origin from sites s where s.id = any($6::int[]))
       ) x
       order by origin limit $4 offset $5`,
      [runId, query.portfolioId, alertedIds, want, skip, flipOnly.rows.map((r) => r.site_id)],
    );
    rest = rows;
  }
  return { matching: alerted.rows.length + quiet, counts: counts.rows[0]!, page: [...first, ...rest] };
}

export interface SiteNightEvents {
  change: {
    kinds: string[];
    outcomeFrom: string | null;
    outcomeTo: string;
    policyFrom: string | null;
    policyTo: string;
    ruleDiff: RobotsDiff | null;
  } | null;
  flips: (NightFlip & { cause: string; causeCount: number })[];
  /** The first FLIPS_LISTED usage flips, and how many there are. */
  usageFlips: UsageFlipEvent[];
  usageFlipCount: number;
  alerts: NightAlert[];
}

const emptyEvents = (): SiteNightEvents => ({ change: null, flips: [], usageFlips: [], usageFlipCount: 0, alerts: [] });

async function siteEvents(pool: pg.Pool, runId: number, siteIds: readonly number[]): Promise<Map<number, SiteNightEvents>> {
  const out = new Map<number, SiteNightEvents>();
  if (siteIds.length === 0) return out;
  const of = (id: number) => out.get(id) ?? out.set(id, emptyEvents()).get(id)!;
  const [changes, flips, usageFlips, alerts] = await Promise.all([
    pool.query<{ site_id: number; kinds: string[]; outcome_from: string | null; outcome_to: string; policy_from: string | null; policy_to: string; rule_diff: RobotsDiff | null }>(
      `select site_id, kinds, outcome_from::text, outcome_to::text, policy_from::text, policy_to::text, rule_diff
       from snapshot_changes where run_id = $1 and site_id = any($2::int[])`,
      [runId, siteIds],
    ),
    pool.query<{ site_id: number; cause: string; url: string; agent: string; from_allowed: boolean | null; to_allowed: boolean; rule_after: FlipRule | null; cause_count: number }>(
      `select * from (
         select f.site_id, f.cause, t.url, a.token as agent, f.from_allowed, f.to_allowed, f.rule_after,
                count(*) over (partition by f.site_id, f.cause)::int as cause_count,
                row_number() over (partition by f.site_id, f.cause order by t.is_root desc, t.url, lower(a.token)) as n
         from verdict_flips f join tracked_urls t on t.id = f.tracked_url_id join user_agents a on a.id = f.user_agent_id
         where f.run_id = $1 and f.site_id = any($2::int[])) x
       where n <= $3
       order by site_id, n`,
      [runId, siteIds, FLIPS_LISTED],
    ),
    pool.query<UsageFlipEvent & { site_id: number; count: number }>(
      `select site_id, url, agent, purpose, "from", "to", "ruleAfter", count from (
         select u.site_id, t.url, a.token as agent, u.purpose, u.from_preference as "from", u.to_preference as "to", u.rule_after as "ruleAfter",
                count(*) over (partition by u.site_id)::int as count,
                row_number() over (partition by u.site_id order by t.is_root desc, t.url, lower(a.token), u.purpose) as n
         from usage_flips u join tracked_urls t on t.id = u.tracked_url_id join user_agents a on a.id = u.user_agent_id
         where u.run_id = $1 and u.site_id = any($2::int[])) x
       where n <= $3
       order by site_id, n`,
      [runId, siteIds, FLIPS_LISTED],
    ),
    pool.query<{ site_id: number; severity: AlertSeverity; kind: string; title: string }>(
      `select site_id, severity, kind, title from alerts where run_id = $1 and site_id = any($2::int[]) order by severity, kind`,
      [runId, siteIds],
    ),
  ]);
  for (const c of changes.rows) {
    of(c.site_id).change = { kinds: c.kinds, outcomeFrom: c.outcome_from, outcomeTo: c.outcome_to, policyFrom: c.policy_from, policyTo: c.policy_to, ruleDiff: c.rule_diff };
  }
  for (const f of flips.rows) {
    of(f.site_id).flips.push({ cause: f.cause, causeCount: f.cause_count, url: f.url, agent: f.agent, before: f.from_allowed, after: f.to_allowed, rule: ruleText(f.rule_after) });
  }
  for (const { site_id, count, ...f } of usageFlips.rows) {
    const events = of(site_id);
    events.usageFlips.push(f);
    events.usageFlipCount = count;
  }
  for (const a of alerts.rows) of(a.site_id).alerts.push({ severity: a.severity, kind: a.kind, title: a.title });
  return out;
}

const worst = (alerts: readonly NightAlert[]): AlertSeverity | null => SEVERITIES.find((s) => alerts.some((a) => a.severity === s)) ?? null;

/** A site's events of one night as lines, one per cause, in NIGHT_CAUSES order. Pure. */
export function groupByCause(events: SiteNightEvents): CauseLine[] {
  const lines = new Map<NightCause, CauseLine>();
  const line = (cause: NightCause) =>
    lines.get(cause) ?? lines.set(cause, { cause, severity: null, kinds: [], what: [], flips: [], flipCount: 0, usageFlipCount: 0, alerts: [] }).get(cause)!;
  const c = events.change;
  if (c) {
    // The 30-day fallback moves the policy itself: its policy move is the fallback's line.
    const fallback = c.kinds.some((k) => CHANGE_KIND_CAUSE[k] === 'fallback');
    const causeOf = (kind: string) => (kind === 'policy' && fallback ? 'fallback' : (CHANGE_KIND_CAUSE[kind] ?? 'other'));
    for (const kind of c.kinds) line(causeOf(kind)).kinds.push(kind);
    if (c.outcomeFrom !== null && c.outcomeFrom !== c.outcomeTo) line('outcome').what.push(`fetch ${move(c.outcomeFrom, c.outcomeTo)}`);
    if (c.policyFrom !== null && c.policyFrom !== c.policyTo) line(causeOf('policy')).what.push(`policy ${move(c.policyFrom, c.policyTo)}`);
    if (lines.has('first_seen')) line('first_seen').what.push(`first night: ${c.outcomeTo}, policy ${c.policyTo}`);
    if (lines.has('rules')) {
      // A file of 15,000 user-agents changes 15,000 groups at once: a page lists the first lines.
      const semantic = semanticLines(c.ruleDiff);
      line('rules').what.push(...(semantic.length > 0 ? semantic : ['the text changed; no crawler reads a difference']));
    }
  }
  const counted = new Set<string>();
  for (const f of events.flips) {
    const l = line(FLIP_CAUSE[f.cause] ?? 'other');
    l.flips.push({ url: f.url, agent: f.agent, before: f.before, after: f.after, rule: f.rule });
    if (!counted.has(f.cause)) {
      counted.add(f.cause);
      l.flipCount += f.causeCount;
    }
  }
  if (events.usageFlipCount > 0) {
    const usage = line('usage');
    const { lines: listed, hidden } = usageFlipLines(events.usageFlips, MAX_RULE_DIFF_LINES);
    const more = hidden + events.usageFlipCount - events.usageFlips.length;
    usage.what.push(...listed, ...(more > 0 ? [`… and ${more} more usage flips`] : []));
    usage.usageFlipCount = events.usageFlipCount;
  }
  for (const a of events.alerts) line(ALERT_CAUSE[a.kind] ?? 'other').alerts.push(a);
  for (const l of lines.values()) l.severity = worst(l.alerts);
  return NIGHT_CAUSES.filter((cause) => lines.has(cause)).map((cause) => lines.get(cause)!);
}
