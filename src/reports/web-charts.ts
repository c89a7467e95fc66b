/**
 * The series behind the dashboard's charts: changes per week, and the share of sites whose root
 * each AI crawler of the default agents may not fetch, week by week. The second is read from the
 * verdict spans of the root (a span that blocks adds one site from its first night and removes
 * it from the night it ends), so it costs the blocking spans, not every night of every site.
 */
import type pg from 'pg';
import { inPortfolio } from './report-filters.js';

export interface WeekCount {
  week: Date;
  rules: number;
  outcome: number;
  other: number;
}

/** Changes per week (first sightings left out): the rules, the fetch outcome or policy, anything else (text, sitemaps). */
export async function changesPerWeek(pool: pg.Pool, portfolioId: number | null, weeks: Date[]): Promise<WeekCount[]> {
  const counts = await pool.query<WeekCount>(
    `select ${WEEK('r.run_at')} as week,
            count(*) filter (where c.kinds && '{rules}')::int as rules,
            count(*) filter (where not c.kinds && '{rules}' and c.kinds && '{outcome,policy,fallback_started,fallback_ended}')::int as outcome,
            count(*) filter (where not c.kinds && '{rules,outcome,policy,fallback_started,fallback_ended}')::int as other
     from snapshot_changes c join audit_runs r on r.id = c.run_id
     where c.kinds <> '{first_seen}'
       and ${inPortfolio('c.site_id')}
     group by 1`,
    [portfolioId],
  );
  const byWeek = new Map(counts.rows.map((r) => [r.week.getTime(), r]));
  // Every week from the first night to the last: a week without a change is a bar of zero, not a gap.
  return weeks.map((week) => byWeek.get(week.getTime()) ?? { week, rules: 0, outcome: 0, other: 0 });
}

/** The Monday (UTC) that starts the week of a time, in SQL. */
const WEEK = (column: string) => `(date_trunc('week', ${column} at time zone 'UTC') at time zone 'UTC')`;
const WEEK_MS = 7 * 86_400_000;

/** Every week from the first night's to the latest night's. */
export async function auditedWeeks(pool: pg.Pool): Promise<Date[]> {
  const { rows } = await pool.query<{ first: Date | null; last: Date | null }>(
    `select ${WEEK('min(run_at)')} as first, ${WEEK('max(run_at)')} as last from audit_runs`,
  );
  const { first, last } = rows[0]!;
  if (!first || !last) return [];
  const weeks: Date[] = [];
  for (let t = first.getTime(); t <= last.getTime(); t += WEEK_MS) weeks.push(new Date(t));
  return weeks;
}

export interface BlockingSeries {
  weeks: Date[];
  /** Per crawler: the share (0..1) of audited sites whose root it may not fetch at the end of each week. */
  series: { token: string; shares: number[] }[];
}

export async function aiBlockingShare(pool: pg.Pool, portfolioId: number | null, weeks: Date[]): Promise<BlockingSeries> {
  const [deltas, audited] = await Promise.all([
    pool.query<{ token: string; week: Date; delta: number }>(
      `select a.token, ${WEEK('e.at')} as week, sum(e.delta)::int as delta
       from (
         select v.user_agent_id, v.valid_from as at, 1 as delta
         from verdicts v join tracked_urls t on t.id = v.tracked_url_id where t.is_root and not v.allowed and ${inPortfolio('t.site_id')}
         union all
         select v.user_agent_id, v.valid_to, -1
         from verdicts v join tracked_urls t on t.id = v.tracked_url_id where t.is_root and not v.allowed and v.valid_to is not null and ${inPortfolio('t.site_id')}
       ) e join user_agents a on a.id = e.user_agent_id
       where a.is_default and a.category like 'ai-%'
       group by 1, 2`,
      [portfolioId],
    ),
    // Sites audited by the end of each week: their first night.
    pool.query<{ week: Date; sites: number }>(
      `select ${WEEK('r.run_at')} as week, count(*)::int as sites
       from snapshot_changes c join audit_runs r on r.id = c.run_id join tracked_urls t on t.site_id = c.site_id and t.is_root
       where c.kinds @> '{first_seen}' and ${inPortfolio('t.site_id')}
       group by 1`,
      [portfolioId],
    ),
  ]);
  const auditedBy = cumulative(weeks, new Map(audited.rows.map((r) => [r.week.getTime(), r.sites])));
  const tokens = [...new Set(deltas.rows.map((r) => r.token))].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  const series = tokens.map((token) => {
    const blocked = cumulative(weeks, new Map(deltas.rows.filter((r) => r.token === token).map((r) => [r.week.getTime(), r.delta])));
    return { token, shares: blocked.map((b, i) => (auditedBy[i]! > 0 ? Math.min(1, Math.max(0, b / auditedBy[i]!)) : 0)) };
  });
  return { weeks, series };
}

function cumulative(weeks: readonly Date[], deltas: ReadonlyMap<number, number>): number[] {
  let total = 0;
  return weeks.map((w) => (total += deltas.get(w.getTime()) ?? 0));
}
