/**
 * `report alerts`: the alerts raised, newest first: the night each is about (a replayed night is
 * its own date, not the day it was computed), the site, the severity, the kind and the title.
 * Default period: the last 7 nights before the latest (RECENT_DAYS); the dashboard adds until,
 * kind and severity.
 */
import type pg from 'pg';
import type { ReportColumn } from './format.js';
import type { ReportSource } from './report-source.js';
import { inPortfolio } from './report-filters.js';
import type { ReportFilters } from './report-filters.js';
import { recentSince } from './recent.js';

export const ALERTS_COLUMNS: readonly ReportColumn[] = [
  { key: 'night', header: 'NIGHT', type: 'time' },
  { key: 'origin', header: 'SITE', type: 'text', shrink: true },
  { key: 'severity', header: 'SEVERITY', type: 'text' },
  { key: 'kind', header: 'KIND', type: 'text' },
  { key: 'title', header: 'TITLE', type: 'text', shrink: true },
];

interface AlertRow extends Record<string, unknown> {
  night: Date;
  origin: string;
  severity: string;
  kind: string;
  title: string;
}

export async function alertsSource(pool: pg.Pool, filters: ReportFilters): Promise<ReportSource<AlertRow>> {
  const since = await recentSince(pool, filters);
  return {
    columns: ALERTS_COLUMNS,
    sql: `select r.run_at as night, s.origin, l.severity::text as severity, l.kind, l.title
          from audit_runs r
          join alerts l on l.run_id = r.id
          join sites s on s.id = l.site_id
          where r.run_at >= $2
            and ($3::timestamptz is null or r.run_at < $3)
            and ($4::text is null or l.kind = $4)
            and ($5::alert_severity is null or l.severity <= $5)
            and ${inPortfolio('l.site_id')}
          order by r.run_at desc, s.origin, l.severity, l.kind`,
    params: [filters.portfolioId, since, filters.until ?? null, filters.kind ?? null, filters.severity ?? null],
    rows: (batch) => batch.map((r) => ({ night: r.night, origin: r.origin, severity: r.severity, kind: r.kind, title: r.title })),
  };
}
