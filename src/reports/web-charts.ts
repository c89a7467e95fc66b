/**
 * The series behind the dashboard's charts: changes per week, and the share of sites whose root
 * each AI crawler of the default agents may not fetch, week by week. Two passes over the year,
 * run side by side: the changes counted per night (one scan of snapshot_changes, which also
 * gives each night's first sightings, the sites audited so far), and the blocking verdict spans
 * of the roots (a span that blocks adds one site from its first night and removes it from the
 * night it ends), read through the partial index of the spans that block; weeks are made here
 * from the nights' times.
 */
import type pg from 'pg';
import { inPortfolio } from './report-filters.js';

export interface WeekCount {
  week: Date;
  rules: number;
  outcome: number;
  other: number;
}

export interface BlockingSeries {
  weeks: Date[];
  /** Per crawler: the share (0..1) of audited sites whose root it may not fetch at the end of each week. */
  series: { token: string; shares: number[] }[];
}

export interface ChartSeries {
  /** Every week from the first audited night's to the latest's (Mondays, UTC). */
  weeks: Date[];
  /** Changes per week (first sightings left out): the rules, the fetch outcome or policy, anything else (text, sitemaps). */
  changes: WeekCount[];
  blocking: BlockingSeries;
}

/** What a change counts as in the chart: a first sighting (the sites audited so far), or one of its bars. */
type ChangeClass = 'first_seen' | 'rules' | 'outcome' | 'other';

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

/** The Monday (UTC, midnight) that starts the week of a time. */
export function weekOf(at: Date): Date {
  const day = Math.floor(at.getTime() / DAY_MS) * DAY_MS;
  // 1970-01-01 was a Thursday: (days + 3) % 7 is the days since Monday.
  const sinceMonday = (Math.floor(day / DAY_MS) + 3) % 7;
  return new Date(day - sinceMonday * DAY_MS);
}

export async function chartSeries(pool: pg.Pool, portfolioId: number | null): Promise<ChartSeries> {
  const [nights, spans] = await Promise.all([
    // Each change classed once (a CASE stops at its first match), counted per night and class.
    pool.query<{ run_at: Date; class: ChangeClass; n: number }>(
      `select r.run_at, n.class, n.n
       from (select c.run_id,
                    case when c.kinds @> '{first_seen}' then 'first_seen'
                         when c.kinds && '{rules}' then 'rules'
                         when c.kinds && '{outcome,policy,fallback_started,fallback_ended}' then 'outcome'
                         else 'other' end as class,
                    count(*)::int as n
             from snapshot_changes c
             where ${inPortfolio('c.site_id')}
             group by 1, 2) n
       join audit_runs r on r.id = n.run_id`,
      [portfolioId],
    ),
    pool.query<{ token: string; valid_from: Date; valid_to: Date | null }>(
      `select a.token, v.valid_from, v.valid_to
       from user_agents a
       join verdicts v on v.user_agent_id = a.id and not v.allowed
       join tracked_urls t on t.id = v.tracked_url_id and t.is_root
       where a.is_default and a.category like 'ai-%' and ${inPortfolio('t.site_id')}`,
      [portfolioId],
    ),
  ]);
  const runs = await pool.query<{ first: Date | null; last: Date | null }>('select min(run_at) as first, max(run_at) as last from audit_runs');
  const { first, last } = runs.rows[0]!;
  const weeks: Date[] = [];
  if (first && last) for (let t = weekOf(first).getTime(); t <= weekOf(last).getTime(); t += WEEK_MS) weeks.push(new Date(t));
  const index = (at: Date) => Math.round((weekOf(at).getTime() - (weeks[0]?.getTime() ?? 0)) / WEEK_MS);

  // A week without a change is a bar of zero, not a gap.
  const changes = weeks.map((week) => ({ week, rules: 0, outcome: 0, other: 0 }));
  const audited = weeks.map(() => 0);
  for (const n of nights.rows) {
    const i = index(n.run_at);
    if (i < 0 || i >= weeks.length) continue;
    if (n.class === 'first_seen') audited[i]! += n.n;
    else changes[i]![n.class] += n.n;
  }
  const deltas = new Map<string, number[]>();
  for (const s of spans.rows) {
    const d = deltas.get(s.token) ?? deltas.set(s.token, weeks.map(() => 0)).get(s.token)!;
    const from = index(s.valid_from);
    if (from >= 0 && from < weeks.length) d[from]! += 1;
    if (s.valid_to !== null) {
      const to = index(s.valid_to);
      if (to >= 0 && to < weeks.length) d[to]! -= 1;
    }
  }
  const auditedBy = cumulative(audited);
  const tokens = [...deltas.keys()].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  const series = tokens.map((token) => {
    const blocked = cumulative(deltas.get(token)!);
    return { token, shares: blocked.map((b, i) => (auditedBy[i]! > 0 ? Math.min(1, Math.max(0, b / auditedBy[i]!)) : 0)) };
  });
  return { weeks, changes, blocking: { weeks, series } };
}

function cumulative(values: readonly number[]): number[] {
  let total = 0;
  return values.map((v) => (total += v));
}
