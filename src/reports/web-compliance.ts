/**
 * The dashboard's Compliance pages (issue 29): a page of `report compliance` (site x crawler) and
 * a page of `report violations`, each with how many rows match. A page is the report's own query
 * (report-compliance.ts) with a limit and an offset, so the page, its CSV download and the CLI
 * count the same requests the same way. Text from the logs (paths, rules) is returned as it is:
 * the pages escape it and mark its hidden characters (src/web/html-text.ts).
 */
import type pg from 'pg';
import type { ReportRow } from './format.js';
import { complianceSource, violationsSource } from './report-compliance.js';
import type { ReportFilters } from './report-filters.js';
import type { ReportSource } from './report-source.js';

export interface ComplianceQuery {
  filters: ReportFilters;
  page: number;
  pageSize: number;
}

export interface CompliancePage {
  /** The report's rows (COMPLIANCE_COLUMNS or VIOLATIONS_COLUMNS keys) of this page. */
  rows: ReportRow[];
  matching: number;
  /** Whether any crawler request was ever imported: a page with none says how to import a log. */
  imported: boolean;
}

/** Per site x crawler, the worst first: what `report compliance` lists, a page at a time. */
export const compliancePage = (pool: pg.Pool, query: ComplianceQuery) => pageOf(pool, complianceSource(query.filters), query);

/** One row a violation, newest first: what `report violations` lists, a page at a time. */
export const violationsPage = (pool: pg.Pool, query: ComplianceQuery) => pageOf(pool, violationsSource(query.filters), query);

async function pageOf<DbRow extends Record<string, unknown>>(pool: pg.Pool, source: ReportSource<DbRow>, query: ComplianceQuery): Promise<CompliancePage> {
  const n = source.params.length;
  const offset = (Math.max(1, query.page) - 1) * query.pageSize;
  // The report's query ends with its order: the page is a limit and an offset after it.
  const [page, count] = await Promise.all([
    pool.query<DbRow>(`${source.sql}\n limit $${n + 1} offset $${n + 2}`, [...source.params, query.pageSize, offset]),
    pool.query<{ n: number }>(`select count(*)::int as n from (${source.sql}) matching`, source.params),
  ]);
  const matching = count.rows[0]!.n;
  const imported = matching > 0 || (await anyRequestImported(pool));
  return { rows: await source.rows(page.rows), matching, imported };
}

async function anyRequestImported(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ imported: boolean }>('select exists (select 1 from crawler_requests) as imported');
  return rows[0]!.imported;
}

/**
 * The crawlers the filter offers: the catalogue and the configured agents, which are what a log
 * import names a request's crawler by (any other token is taken too, and matches nothing).
 */
export async function complianceCrawlers(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ token: string }>('select token from user_agents order by lower(token)');
  return rows.map((r) => r.token);
}
