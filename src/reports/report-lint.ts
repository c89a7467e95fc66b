/**
 * `report lint`: the errors and warnings of each site's robots.txt as last fetched, one row per
 * diagnostic with its line. Only the bodies whose stored counts say they have some are read, and
 * each distinct body is linted once however many sites serve it. Infos (style) are left to
 * `robots-audit lint`. `--since`: sites whose file changed on or after that night.
 */
import type pg from 'pg';
import { lintRobotsTxt } from '../robots/index.js';
import type { Diagnostic } from '../robots/index.js';
import type { ReportColumn, ReportTable } from './format.js';
import { inPortfolio } from './report-filters.js';
import type { ReportFilters } from './report-filters.js';

export const LINT_COLUMNS: readonly ReportColumn[] = [
  { key: 'origin', header: 'SITE', type: 'text', shrink: true },
  { key: 'line', header: 'LINE', type: 'number' },
  { key: 'severity', header: 'SEVERITY', type: 'text' },
  { key: 'code', header: 'CODE', type: 'text' },
  { key: 'message', header: 'MESSAGE', type: 'text', shrink: true },
];

interface LintSiteRow {
  origin: string;
  body_id: number;
}

export async function lintReport(pool: pg.Pool, filters: ReportFilters): Promise<ReportTable> {
  const sites = await pool.query<LintSiteRow>(
    `select s.origin, n.body_id
     from site_state x
     join sites s on s.id = x.site_id
     join snapshots n on n.site_id = x.site_id and n.run_at = x.run_at and n.run_id = x.run_id
     join bodies b on b.id = n.body_id
     left join audit_runs lc on lc.id = x.last_change_run_id
     where b.lint_errors + b.lint_warnings > 0
       and ${inPortfolio('x.site_id')}
       and ($2::timestamptz is null or lc.run_at >= $2)
     order by s.origin`,
    [filters.portfolioId, filters.since],
  );
  const diagnostics = await lintBodies(pool, [...new Set(sites.rows.map((r) => r.body_id))]);
  const rows = sites.rows.flatMap((site) =>
    (diagnostics.get(site.body_id) ?? []).map((d) => ({ origin: site.origin, line: d.line, severity: d.severity, code: d.code, message: d.message })),
  );
  return { report: 'lint', columns: LINT_COLUMNS, rows };
}

/** Bodies read a page at a time: a report over many sites never holds every file at once. */
const BODIES_PER_QUERY = 200;

async function lintBodies(pool: pg.Pool, ids: readonly number[]): Promise<Map<number, Diagnostic[]>> {
  const out = new Map<number, Diagnostic[]>();
  for (let i = 0; i < ids.length; i += BODIES_PER_QUERY) {
    const { rows } = await pool.query<{ id: number; content: Buffer }>('select id, content from bodies where id = any($1::int[])', [
      ids.slice(i, i + BODIES_PER_QUERY),
    ]);
    for (const b of rows) out.set(b.id, lintRobotsTxt(b.content).filter((d) => d.severity !== 'info'));
  }
  return out;
}
