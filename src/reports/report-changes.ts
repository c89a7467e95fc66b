/**
 * `report changes`: what changed, night by night, newest first: the kinds of change
 * (snapshot_changes.kinds), the outcome and policy moves, and the semantic diff of the rules in
 * one line. Default period: the last 7 nights before the latest (RECENT_DAYS).
 */
import type pg from 'pg';
import type { RobotsDiff } from '../robots/diff.js';
import { describeRobotsDiff } from '../robots/diff.js';
import type { ReportColumn } from './format.js';
import type { ReportSource } from './report-source.js';
import { inPortfolio } from './report-filters.js';
import type { ReportFilters } from './report-filters.js';
import { recentSince } from './recent.js';

export const CHANGES_COLUMNS: readonly ReportColumn[] = [
  { key: 'night', header: 'NIGHT', type: 'time' },
  { key: 'origin', header: 'SITE', type: 'text', shrink: true },
  { key: 'kinds', header: 'CHANGED', type: 'list', shrink: true },
  { key: 'outcome', header: 'OUTCOME', type: 'text' },
  { key: 'policy', header: 'POLICY', type: 'text' },
  { key: 'summary', header: 'WHAT', type: 'text', shrink: true },
];

interface ChangeRow extends Record<string, unknown> {
  night: Date;
  origin: string;
  kinds: string[];
  outcome_from: string | null;
  outcome_to: string;
  policy_from: string | null;
  policy_to: string;
  rule_diff: RobotsDiff | null;
}

/** `from → to`, or `to` alone when nothing moved. */
export const move = (from: string | null, to: string) => (from === null || from === to ? to : `${from} → ${to}`);

/**
 * The worst alert of the site's night (alias `c`: a row with site_id and run_id) is at least the
 * severity in `param`, or no severity was asked: how the dashboard narrows changes and flips.
 */
export const nightAtLeast = (alias: string, param: string) =>
  `(${param}::alert_severity is null or exists (select 1 from alerts l where l.site_id = ${alias}.site_id and l.run_id = ${alias}.run_id and l.severity <= ${param}))`;

/** `--since` (default: the last RECENT_DAYS nights); the dashboard adds until, kind and severity. */
export async function changesSource(pool: pg.Pool, filters: ReportFilters): Promise<ReportSource<ChangeRow>> {
  const since = await recentSince(pool, filters);
  return {
    columns: CHANGES_COLUMNS,
    sql: `select r.run_at as night, s.origin, c.kinds, c.outcome_from, c.outcome_to, c.policy_from, c.policy_to, c.rule_diff
          from audit_runs r
          join snapshot_changes c on c.run_id = r.id
          join sites s on s.id = c.site_id
          where r.run_at >= $2
            and ($3::timestamptz is null or r.run_at < $3)
            and ($4::text is null or $4 = any(c.kinds))
            and ${nightAtLeast('c', '$5')}
            and ${inPortfolio('c.site_id')}
          order by r.run_at desc, s.origin`,
    params: [filters.portfolioId, since, filters.until ?? null, filters.kind ?? null, filters.severity ?? null],
    rows: (batch) =>
      batch.map((r) => ({
        night: r.night,
        origin: r.origin,
        kinds: r.kinds,
        outcome: move(r.outcome_from, r.outcome_to),
        policy: move(r.policy_from, r.policy_to),
        summary: r.rule_diff ? describeRobotsDiff(r.rule_diff).map((l) => l.trim()).join('; ') : null,
      })),
  };
}
