/**
 * `report lint`: the errors and warnings of each site's robots.txt as last fetched, one row per
 * diagnostic with its line. Only the bodies whose stored counts say they have some are read, and
 * each distinct body is linted once however many sites serve it. Infos (style) are left to
 * `robots-audit lint`. `--since`: sites whose file changed on or after that night.
 */
import type pg from 'pg';
import { lintRobotsTxt } from '../robots/index.js';
import type { Diagnostic } from '../robots/index.js';
import type { ReportColumn } from './format.js';
import type { ReportSource } from './report-source.js';
import { inPortfolio } from './report-filters.js';
import type { ReportFilters } from './report-filters.js';

export const LINT_COLUMNS: readonly ReportColumn[] = [
  { key: 'origin', header: 'SITE', type: 'text', shrink: true },
  { key: 'line', header: 'LINE', type: 'number' },
  { key: 'severity', header: 'SEVERITY', type: 'text' },
  { key: 'code', header: 'CODE', type: 'text' },
  { key: 'message', header: 'MESSAGE', type: 'text', shrink: true },
];

interface LintSiteRow extends Record<string, unknown> {
  origin: string;
  body_id: number;
}

/** Sites read from the cursor at a time: each may bring a body of up to 500 KiB to lint. */
const LINT_BATCH_ROWS = 50;
/** Distinct bodies whose diagnostics are kept while the report runs (sites sharing a file lint it once). */
const LINTED_BODIES_KEPT = 200;

/** `--since`: sites whose file changed on or after it; the dashboard's overview adds its search. */
export function lintSource(pool: pg.Pool, filters: ReportFilters): ReportSource<LintSiteRow> {
  const linted = new Map<number, Diagnostic[]>();
  return {
    columns: LINT_COLUMNS,
    sql: `select s.origin, n.body_id
          from site_state x
          join sites s on s.id = x.site_id
          join snapshots n on n.site_id = x.site_id and n.run_at = x.run_at and n.run_id = x.run_id
          join bodies b on b.id = n.body_id
          left join audit_runs lc on lc.id = x.last_change_run_id
          where b.lint_errors + b.lint_warnings > 0
            and ${inPortfolio('x.site_id')}
            and ($2::timestamptz is null or lc.run_at >= $2)
            and ($3::text is null or strpos(s.origin, $3) > 0)
          order by s.origin`,
    params: [filters.portfolioId, filters.since, filters.search ?? null],
    batchRows: LINT_BATCH_ROWS,
    async rows(batch) {
      const missing = [...new Set(batch.map((r) => r.body_id))].filter((id) => !linted.has(id));
      if (missing.length > 0) {
        const { rows } = await pool.query<{ id: number; content: Buffer }>('select id, content from bodies where id = any($1::int[])', [missing]);
        for (const b of rows) linted.set(b.id, lintRobotsTxt(b.content).filter((d) => d.severity !== 'info'));
      }
      const out = batch.flatMap((site) =>
        (linted.get(site.body_id) ?? []).map((d) => ({ origin: site.origin, line: d.line, severity: d.severity, code: d.code, message: d.message })),
      );
      // Keep the bodies most recently linted (a Map iterates oldest first).
      for (const id of linted.keys()) if (linted.size > LINTED_BODIES_KEPT) linted.delete(id);
      return out;
    },
  };
}
